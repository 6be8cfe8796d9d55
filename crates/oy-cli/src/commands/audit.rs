//! `oy audit [FOCUS]`: flags into `oy_audit::AuditOptions`, the plan
//! printed for `--dry-run`, otherwise the review driven with a progress
//! bar (plain lines off a terminal) and the report written inside the
//! workspace. Ctrl-C stops without writing a half report. What is sent
//! and what the report says are decided in `oy-audit`.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use oy_audit::{
    AuditError, AuditOptions, Inclusion, PreparedAudit, ReportFormat, ReportTarget, ReviewProgress,
    WindowSource,
};
use oy_boundary::Workspace;
use oy_tools::{CancelToken, ChildKiller};

use crate::agent_setup::runtime;
use crate::cli::{AuditArgs, AuditFormat};
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::render::{Style, terminal_line, terminal_safe};
use crate::signals::Interrupts;

pub(crate) fn run(config: &Config, args: &AuditArgs) -> Result<Exit> {
    let workspace = Workspace::open(&config.root)
        .with_context(|| format!("cannot open workspace {}", config.root.display()))?;
    let format = match args.format {
        AuditFormat::Markdown => ReportFormat::Markdown,
        AuditFormat::Sarif => ReportFormat::Sarif,
    };
    // Checked before any work: the report must land inside the workspace.
    let target = ReportTarget::check(&workspace, args.out.as_deref(), format).map_err(flagged)?;
    let mut options = AuditOptions::new(target.clone(), config.settings.audit_window());
    options.collect.scope.clone_from(&args.path);
    options.collect.max_file_bytes = args.max_file_bytes;
    options.collect.include_hidden = args.include_hidden;
    options.collect.include_ignored = args.include_ignored;
    options.collect.include_lockfiles = args.include_lockfiles;
    options.focus = (!args.focus.is_empty()).then(|| args.focus.join(" "));
    options.max_chunks = args.max_chunks;
    options.concurrency = args.concurrency;
    options.command = command_line(args, &Inclusion::of(&options.collect));
    options.inclusion_option = |inclusion| Some(flag(inclusion));
    let prepared = oy_audit::prepare(&workspace, options).map_err(flagged)?;
    if args.dry_run {
        let _ = print_plan(&prepared, &mut std::io::stdout().lock());
    }
    let chunks = match prepared.plan() {
        Ok(plan) => plan.chunks.len(),
        Err(error) => return Ok(fail_closed(error)),
    };
    if args.dry_run {
        return Ok(Exit::Ok);
    }

    runtime()?.block_on(async {
        let connected = crate::provider_setup::connect(config).await?;
        let progress = Progress::new(chunks);
        // The one Ctrl-C path (signals.rs): the first signal cancels the
        // review, a second one quits at once.
        let cancel = CancelToken::new();
        let _interrupts = Interrupts::install(cancel.clone(), ChildKiller::default())?;
        let on_progress = |event: ReviewProgress| progress.update(&event);
        let outcome = prepared
            .review(
                connected.provider.as_ref(),
                &connected.model,
                cancel.token(),
                &on_progress,
            )
            .await;
        progress.finish();
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(AuditError::Cancelled) => {
                note("oy: audit interrupted; no report was written");
                return Ok(Exit::Interrupted);
            }
            Err(error) => return Ok(fail_closed(&error)),
        };
        let out = target.name();
        if let Some(parent) = target.parent() {
            workspace
                .create_dir_all(&workspace.path(parent)?)
                .with_context(|| format!("cannot create the directory of {out}"))?;
        }
        workspace
            .write(target.path(), outcome.render().as_bytes())
            .with_context(|| format!("cannot write {out}"))?;
        let summary = outcome.summary();
        writeln!(std::io::stdout(), "wrote {}: {summary}", terminal_line(out))?;
        if outcome.dropped_unverifiable > 0 {
            note(&format!(
                "oy: dropped {} finding(s) whose evidence names a file that was not reviewed",
                outcome.dropped_unverifiable
            ));
        }
        Ok(Exit::Ok)
    })
}

fn flag(inclusion: Inclusion) -> &'static str {
    match inclusion {
        Inclusion::Hidden => "--include-hidden",
        Inclusion::Ignored => "--include-ignored",
        Inclusion::Lockfiles => "--include-lockfiles",
    }
}

/// A refused scope or report path is a usage error naming its flag.
fn flagged(error: AuditError) -> anyhow::Error {
    if !error.is_usage() {
        return error.into();
    }
    UsageError::new(match &error {
        AuditError::Scope { .. } => format!("--path {error}"),
        AuditError::ReportSymlink { .. } => format!("{error} (remove it, or pass --out)"),
        AuditError::ReportNotFile { .. } => format!("{error}; pass --out with a file path"),
        AuditError::ReportOutside { .. } | AuditError::ReportInVcs { .. } => {
            format!("--out {error}")
        }
        _ => error.to_string(),
    })
    .into()
}

/// An audit that cannot go on: the error's advice (with the flag that
/// narrows an audit), exit 1.
fn fail_closed(error: &AuditError) -> Exit {
    const NARROW: &str = "with a path (oy audit --path DIR)";
    let advice = match error {
        AuditError::FileTooLarge {
            path,
            tokens,
            budget,
        } => format!(
            "{path} needs about {tokens} tokens but a chunk holds at most {budget}; narrow the audit {NARROW}, or use a model with a larger context window"
        ),
        AuditError::TooManyChunks { needed, max } => format!(
            "the audit needs {needed} chunks, more than the limit of {max}; narrow it {NARROW} or a focus, or use a model with a larger context window"
        ),
        AuditError::BudgetTooSmall { .. } => {
            format!("{error} (set context_window in the config if oy guessed it too small)")
        }
        _ => error.to_string(),
    };
    // Errors name files, and file names come from the repository.
    note(&format!("oy: audit stopped: {}", terminal_safe(&advice)));
    Exit::Failed
}

/// The command as typed, for the report's transparency line.
fn command_line(args: &AuditArgs, inclusions: &[Inclusion]) -> String {
    let mut parts = vec!["oy audit".to_owned()];
    if !args.focus.is_empty() {
        parts.push(format!("{:?}", args.focus.join(" ")));
    }
    if let Some(path) = &args.path {
        parts.push(format!("--path {path}"));
    }
    parts.extend(
        inclusions
            .iter()
            .map(|&inclusion| flag(inclusion).to_owned()),
    );
    parts.join(" ")
}

/// Prints the plan: what would be sent, what is skipped and why, the
/// chunks and the estimated tokens. Nothing is sent.
fn print_plan(prepared: &PreparedAudit, out: &mut impl Write) -> std::io::Result<()> {
    let collection = prepared.collection();
    let (files, bytes) = (collection.files.len(), prepared.bytes());
    let redacted = prepared.redacted_lines();
    writeln!(
        out,
        "would send {files} files ({bytes} bytes); {redacted} secret-shaped lines redacted"
    )?;
    for file in &collection.files {
        let language = file.language.as_deref().map(terminal_line);
        let language = language.map(|l| format!("  {l}")).unwrap_or_default();
        let path = terminal_line(&file.path);
        writeln!(
            out,
            "  {path}  {} bytes  {} lines{language}",
            file.bytes, file.lines
        )?;
    }
    writeln!(
        out,
        "skipped {} files:",
        collection.skipped.values().sum::<usize>()
    )?;
    for (reason, count) in &collection.skipped {
        let examples = collection
            .skipped_examples
            .get(reason)
            .into_iter()
            .flatten();
        let examples: Vec<String> = examples.map(|path| terminal_line(path)).collect();
        writeln!(
            out,
            "  {:<20} {count:>6}  {}",
            reason.name(),
            examples.join(", ")
        )?;
    }
    let window = prepared.window();
    let source = match &window.source {
        WindowSource::Fallback => "default; set context_window in the config for your model".into(),
        source => source.to_string(),
    };
    // The source can name the configured model.
    writeln!(
        out,
        "context window {} tokens ({})",
        window.tokens,
        terminal_line(&source)
    )?;
    let Ok(plan) = prepared.plan() else {
        return Ok(());
    };
    let (chunks, calls) = (plan.chunks.len(), plan.model_calls);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    writeln!(
        out,
        "{chunks} chunk{} of at most {} tokens; {calls} model call{}; ~{} input tokens",
        plural(chunks),
        plan.chunk_budget,
        plural(calls),
        plan.estimated_tokens
    )?;
    for chunk in &plan.chunks {
        let (index, files) = (chunk.index + 1, chunk.files.len());
        writeln!(
            out,
            "  chunk {index}: {files} files, {} bytes, ~{} tokens",
            chunk.bytes, chunk.tokens
        )?;
    }
    writeln!(out, "nothing was sent (--dry-run)")
}

fn note(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// A bar over chunks on a terminal, plain lines otherwise.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    style: Style,
    done: AtomicUsize,
}

impl Progress {
    fn new(total: usize) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let template = "reviewing {bar:30} {pos}/{len} chunks {elapsed} {msg}";
        let bar = terminal.then(|| indicatif::ProgressBar::new(total as u64));
        if let (Some(bar), Ok(style)) = (&bar, indicatif::ProgressStyle::with_template(template)) {
            bar.set_style(style);
        }
        let (style, done) = (Style::detect(terminal), AtomicUsize::new(0));
        Self {
            bar,
            total,
            style,
            done,
        }
    }

    fn update(&self, event: &ReviewProgress) {
        let (line, dim) = match (&self.bar, event) {
            (Some(bar), ReviewProgress::ChunkDone { .. }) => return bar.inc(1),
            (None, ReviewProgress::ChunkDone { findings, .. }) => {
                let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
                let total = self.total;
                (
                    format!("reviewed chunk {done}/{total}: {findings} finding(s)"),
                    false,
                )
            }
            (_, ReviewProgress::Retry { error }) => {
                (format!("retrying: {}", terminal_safe(error)), true)
            }
            (_, ReviewProgress::Reducing) => ("merging findings".to_owned(), false),
            _ => return,
        };
        match &self.bar {
            Some(bar) => bar.set_message(line),
            None if dim => note(&self.style.dim(&line)),
            None => note(&line),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
