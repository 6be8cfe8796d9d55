//! `oy audit [FOCUS]`: collect, plan, and (unless `--dry-run`) review the
//! repository with no tools offered, then write the report atomically
//! inside the workspace. Progress is a bar on a terminal and plain lines
//! otherwise; Ctrl-C stops without writing a half report.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Context, Result};
use oy_audit::{
    AuditError, CollectOptions, Collection, Plan, PlanOptions, Report, ReviewOptions,
    ReviewProgress, Transparency,
};
use oy_boundary::Workspace;

use crate::agent_setup::runtime;
use crate::cli::{AuditArgs, AuditFormat};
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::render::{Style, terminal_line, terminal_safe};

pub(crate) fn run(config: &Config, args: &AuditArgs) -> Result<Exit> {
    let workspace = Workspace::open(&config.root)
        .with_context(|| format!("cannot open workspace {}", config.root.display()))?;
    let out = args.out.clone().unwrap_or_else(|| match args.format {
        AuditFormat::Markdown => "ISSUES.md".to_owned(),
        AuditFormat::Sarif => "oy-audit.sarif".to_owned(),
    });
    // Checked before any work: the report must land inside the workspace.
    let out_path = workspace
        .path(&out)
        .map_err(|error| UsageError::new(format!("--out {out}: {error}")))?;
    check_out(&workspace, &out, &out_path)?;
    if let Some(scope) = &args.path {
        oy_audit::check_scope(&workspace, scope)
            .map_err(|error| UsageError::new(format!("--path {scope}: {error}")))?;
    }
    let options = collect_options(args, &out);
    let collection = oy_audit::collect(&workspace, &options)?;
    let manifest = oy_audit::manifest(&collection.files);
    let index = oy_audit::security_index(&collection.files);
    let (window, window_source) = context_window(config);
    let mut plan_options = PlanOptions::default();
    plan_options.context_window = window;
    plan_options.max_chunks = args.max_chunks.max(1);
    let plan = match oy_audit::plan(&collection, &index, &plan_options) {
        Ok(plan) => plan,
        Err(error) => {
            if args.dry_run {
                print_plan(&collection, None, window, &window_source);
            }
            return fail_closed(&error);
        }
    };
    if args.dry_run {
        print_plan(&collection, Some(&plan), window, &window_source);
        return Ok(Exit::Ok);
    }

    let focus = (!args.focus.is_empty()).then(|| args.focus.join(" "));
    let previous = match workspace.read_text(&out_path, 8 * 1024 * 1024) {
        Ok(text) if args.format == AuditFormat::Markdown => carried(&text),
        _ => Vec::new(),
    };
    let command = command_line(args);
    runtime()?.block_on(async {
        let connected = crate::provider_setup::connect(config).await?;
        let mut review_options = ReviewOptions::new(connected.model.clone());
        review_options.concurrency = args.concurrency.max(1);
        review_options.focus.clone_from(&focus);
        review_options.previous = previous;
        let progress = Progress::new(plan.chunks.len());
        let on_progress = |event: ReviewProgress| progress.update(&event);
        let review = oy_audit::review(
            connected.provider.as_ref(),
            &collection,
            &manifest,
            &index,
            &plan,
            &review_options,
            &on_progress,
        );
        let review = tokio::select! {
            review = review => review,
            _ = tokio::signal::ctrl_c() => {
                progress.finish();
                note("oy: audit interrupted; no report was written");
                return Ok(Exit::Interrupted);
            }
        };
        progress.finish();
        let review = match review {
            Ok(review) => review,
            Err(error) => return fail_closed(&error),
        };
        let report = Report {
            transparency: Transparency {
                command,
                provider: connected.provider.name().to_owned(),
                model: connected.model.clone(),
                files_sent: review.files_sent,
                bytes_sent: review.bytes_sent,
                model_calls: review.model_calls,
                skipped: collection.skipped.clone(),
                redacted_lines: collection.files.iter().map(|f| f.redactions.len()).sum(),
                inclusions: inclusions(args),
            },
            findings: review.findings.clone(),
            focus,
        };
        let text = match args.format {
            AuditFormat::Markdown => oy_audit::render_markdown(&report),
            AuditFormat::Sarif => oy_audit::render_sarif(&report),
        };
        if let Some((parent, _)) = out.trim_end_matches('/').rsplit_once('/')
            && !parent.is_empty()
        {
            let parent = workspace.path(parent)?;
            workspace
                .create_dir_all(&parent)
                .with_context(|| format!("cannot create the directory of {out}"))?;
        }
        workspace
            .write(&out_path, text.as_bytes())
            .with_context(|| format!("cannot write {out}"))?;
        let mut stdout = std::io::stdout().lock();
        writeln!(
            stdout,
            "wrote {}: {} finding{}{}",
            terminal_line(&out),
            review.findings.len(),
            if review.findings.len() == 1 { "" } else { "s" },
            severity_counts(&review.findings)
        )?;
        if review.dropped_unverifiable > 0 {
            note(&format!(
                "oy: dropped {} finding(s) whose evidence names a file that was not reviewed",
                review.dropped_unverifiable
            ));
        }
        Ok(Exit::Ok)
    })
}

/// The report path must be a file oy may replace: not a symlink (the
/// repository would choose which file is overwritten), not a directory,
/// not inside version-control internals (`.git/hooks`, `.git/config`).
fn check_out(
    workspace: &Workspace,
    out: &str,
    out_path: &oy_boundary::WorkspacePath,
) -> Result<()> {
    let vcs = out
        .trim_start_matches("./")
        .split('/')
        .any(|part| matches!(part, ".git" | ".hg" | ".svn" | ".bzr" | "_darcs"));
    if vcs {
        return Err(UsageError::new(format!(
            "--out {out}: the report cannot go inside version-control internals"
        ))
        .into());
    }
    match workspace.symlink_metadata(out_path) {
        Ok(meta) if meta.kind == oy_boundary::FileKind::Symlink => Err(UsageError::new(format!(
            "{out} is a symlink; oy will not write the report through it (remove it, or pass --out)"
        ))
        .into()),
        Ok(meta) if meta.kind != oy_boundary::FileKind::File => Err(UsageError::new(format!(
            "{out} exists and is not a regular file; pass --out with a file path"
        ))
        .into()),
        _ => Ok(()),
    }
}

/// Findings carried forward from an earlier report: the file is part of
/// the repository, so its text is untrusted — secret-shaped lines are
/// redacted like any file's, and every finding must be verified again.
fn carried(text: &str) -> Vec<oy_audit::Finding> {
    oy_audit::carried_forward(text)
        .into_iter()
        .map(|mut finding| {
            for field in [
                &mut finding.title,
                &mut finding.evidence,
                &mut finding.explanation,
                &mut finding.fix,
            ] {
                *field = oy_audit::redact(field).0;
            }
            finding.verified = false;
            finding
        })
        .collect()
}

fn collect_options(args: &AuditArgs, out: &str) -> CollectOptions {
    let mut options = CollectOptions::default();
    options.scope.clone_from(&args.path);
    options.max_file_bytes = args.max_file_bytes;
    options.include_hidden = args.include_hidden;
    options.include_ignored = args.include_ignored;
    options.include_lockfiles = args.include_lockfiles;
    if !options.previous_outputs.iter().any(|path| path == out) {
        options.previous_outputs.push(out.to_owned());
    }
    options
}

/// The window for planning: the config's, else known for the model, else
/// the fallback (said so in the plan).
fn context_window(config: &Config) -> (u64, String) {
    if let Some(window) = config.context_window {
        return (window, "configured".to_owned());
    }
    if let Some(model) = &config.model
        && let Some(window) = oy_agent::known_window(model)
    {
        return (window, format!("known for {model}"));
    }
    (
        oy_agent::FALLBACK_WINDOW,
        "default; set context_window in the config for your model".to_owned(),
    )
}

fn inclusions(args: &AuditArgs) -> Vec<String> {
    let mut included = Vec::new();
    if args.include_hidden {
        included.push("hidden files (--include-hidden)".to_owned());
    }
    if args.include_ignored {
        included.push("files ignore files exclude (--include-ignored)".to_owned());
    }
    if args.include_lockfiles {
        included.push("lockfiles (--include-lockfiles)".to_owned());
    }
    included
}

fn command_line(args: &AuditArgs) -> String {
    let mut parts = vec!["oy audit".to_owned()];
    if !args.focus.is_empty() {
        parts.push(format!("{:?}", args.focus.join(" ")));
    }
    if let Some(path) = &args.path {
        parts.push(format!("--path {path}"));
    }
    for (on, flag) in [
        (args.include_hidden, "--include-hidden"),
        (args.include_ignored, "--include-ignored"),
        (args.include_lockfiles, "--include-lockfiles"),
    ] {
        if on {
            parts.push(flag.to_owned());
        }
    }
    parts.join(" ")
}

fn severity_counts(findings: &[oy_audit::Finding]) -> String {
    let mut counts = std::collections::BTreeMap::new();
    for finding in findings {
        *counts.entry(finding.severity).or_insert(0usize) += 1;
    }
    if counts.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(severity, count)| format!("{count} {}", format!("{severity:?}").to_lowercase()))
        .collect();
    format!(" ({})", parts.join(", "))
}

/// Prints the plan: what would be sent, what is skipped and why, the
/// chunks and the estimated tokens. Nothing is sent.
fn print_plan(collection: &Collection, plan: Option<&Plan>, window: u64, source: &str) {
    let mut stdout = std::io::stdout().lock();
    let bytes: u64 = collection.files.iter().map(|file| file.bytes).sum();
    let redacted: usize = collection.files.iter().map(|f| f.redactions.len()).sum();
    let _ = writeln!(
        stdout,
        "would send {} files ({bytes} bytes); {redacted} secret-shaped lines redacted",
        collection.files.len()
    );
    for file in &collection.files {
        let _ = writeln!(
            stdout,
            "  {}  {} bytes  {} lines{}",
            terminal_line(&file.path),
            file.bytes,
            file.lines,
            file.language
                .as_deref()
                .map(|language| format!("  {}", terminal_line(language)))
                .unwrap_or_default()
        );
    }
    let skipped: usize = collection.skipped.values().sum();
    let _ = writeln!(stdout, "skipped {skipped} files:");
    for (reason, count) in &collection.skipped {
        let examples = collection
            .skipped_examples
            .get(reason)
            .map(|paths| {
                paths
                    .iter()
                    .map(|path| terminal_line(path))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let _ = writeln!(stdout, "  {:<20} {count:>6}  {examples}", reason.name());
    }
    // The source can name the configured model.
    let _ = writeln!(
        stdout,
        "context window {window} tokens ({})",
        terminal_line(source)
    );
    if let Some(plan) = plan {
        let _ = writeln!(
            stdout,
            "{} chunk{} of at most {} tokens; {} model call{}; ~{} input tokens",
            plan.chunks.len(),
            if plan.chunks.len() == 1 { "" } else { "s" },
            plan.chunk_budget,
            plan.model_calls,
            if plan.model_calls == 1 { "" } else { "s" },
            plan.estimated_tokens
        );
        for chunk in &plan.chunks {
            let _ = writeln!(
                stdout,
                "  chunk {}: {} files, {} bytes, ~{} tokens",
                chunk.index + 1,
                chunk.files.len(),
                chunk.bytes,
                chunk.tokens
            );
        }
        let _ = writeln!(stdout, "nothing was sent (--dry-run)");
    }
}

/// An audit that cannot go on: the error's advice, exit 1.
fn fail_closed(error: &AuditError) -> Result<Exit> {
    // Errors name files, and file names come from the repository.
    note(&format!(
        "oy: audit stopped: {}",
        terminal_safe(&error.to_string())
    ));
    Ok(Exit::Failed)
}

fn note(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{text}");
}

/// A bar over chunks on a terminal, plain lines otherwise.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    style: Style,
    done: Arc<std::sync::atomic::AtomicUsize>,
}

impl Progress {
    fn new(total: usize) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = terminal.then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "reviewing {bar:30} {pos}/{len} chunks {elapsed} {msg}",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Self {
            bar,
            total,
            style: Style::detect(terminal),
            done: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
        }
    }

    fn update(&self, event: &ReviewProgress) {
        match (&self.bar, event) {
            (Some(bar), ReviewProgress::ChunkDone { .. }) => bar.inc(1),
            (Some(bar), ReviewProgress::Retry { error }) => {
                bar.set_message(format!("retrying: {}", terminal_safe(error)));
            }
            (Some(bar), ReviewProgress::Reducing) => bar.set_message("merging findings"),
            (None, ReviewProgress::ChunkDone { findings, .. }) => {
                let done = self.done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                note(&format!(
                    "reviewed chunk {done}/{}: {findings} finding(s)",
                    self.total
                ));
            }
            (None, ReviewProgress::Retry { error }) => {
                note(
                    &self
                        .style
                        .dim(&format!("retrying: {}", terminal_safe(error))),
                );
            }
            (None, ReviewProgress::Reducing) => note("merging findings"),
            _ => {}
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
