//! `oy audit [FOCUS]`: flags into `oy_audit::AuditOptions`, the plan
//! printed for `--dry-run` (exit 1 when the audit would stop), otherwise
//! the review driven with progress (plain lines off a terminal) and the
//! report written inside the workspace. Ctrl-C stops without writing a
//! half report. What is sent and what the report says are decided in
//! `oy-audit`.

mod plan;
mod progress;

use std::io::Write;

use anyhow::{Context, Result};
use oy_audit::{AuditError, AuditOptions, Inclusion, ReportFormat, ReportTarget};
use oy_boundary::Workspace;
use oy_tools::{CancelToken, ChildKiller};

use self::plan::{advice, print_plan};
use self::progress::{Collecting, Reviewing};
use crate::agent_setup::runtime;
use crate::cli::{AuditArgs, AuditFormat, DEFAULT_MAX_CHUNKS};
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::render::{terminal_line, terminal_safe};
use crate::signals::Interrupts;

/// How long the model server may take to say what window it runs.
const WINDOW_PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

pub(crate) fn run(config: &Config, args: &AuditArgs) -> Result<Exit> {
    let workspace = Workspace::open(&config.root)
        .with_context(|| format!("cannot open workspace {}", config.root.display()))?;
    let format = match args.format {
        AuditFormat::Markdown => ReportFormat::Markdown,
        AuditFormat::Sarif => ReportFormat::Sarif,
    };
    // Checked before any work: the report must land inside the workspace.
    let target = ReportTarget::check(&workspace, args.out.as_deref(), format).map_err(flagged)?;
    if let Some(theirs) = target.beside() {
        note(&format!(
            "oy: {} was not written by oy; the report goes to {} beside it",
            terminal_line(theirs),
            terminal_line(target.name())
        ));
    }
    let runtime = runtime()?;
    // The provider first: its server may say what window it runs the
    // model with. A dry run goes on without one (nothing is sent).
    let connected = match runtime.block_on(crate::provider_setup::connect(config)) {
        Ok(connected) => Some(connected),
        Err(_) if args.dry_run => None,
        Err(error) => return Err(error),
    };
    let server = match (&connected, config.settings.context_window) {
        (Some(connected), None) => runtime.block_on(
            connected
                .provider
                .context_window(&connected.model, WINDOW_PROBE_TIMEOUT),
        ),
        _ => None,
    };
    let model = connected.as_ref().map(|connected| connected.model.as_str());
    let window = config.settings.audit_window(model, server);
    let mut options = AuditOptions::new(target.clone(), window);
    options.collect.scope.clone_from(&args.path);
    options.collect.max_file_bytes = args.max_file_bytes;
    options.collect.exclude.clone_from(&args.exclude);
    options.collect.include_hidden = args.include_hidden;
    options.collect.include_ignored = args.include_ignored;
    options.collect.include_lockfiles = args.include_lockfiles;
    options.focus = (!args.focus.is_empty()).then(|| args.focus.join(" "));
    options.max_chunks = args.max_chunks;
    options.concurrency = args.concurrency;
    let inclusions = Inclusion::of(&options.collect);
    options.command = command_line(args, &inclusions, &[]);
    options.inclusion_option = |inclusion| Some(flag(inclusion));
    options.home.clone_from(&config.home);
    options.root_named = config.root_named;
    let collecting = Collecting::new();
    let prepared = oy_audit::prepare(&workspace, options, &|p| collecting.update(p));
    collecting.finish();
    let prepared = prepared.map_err(flagged)?;
    // To run again as asked, with the same limits and report.
    let rerun = |excludes: &[String]| {
        let mut line = command_line(args, &inclusions, excludes);
        if config.root_named {
            line.push_str(&format!(
                " --root {}",
                oy_tools::tools::quote(&config.root.to_string_lossy())
            ));
        }
        let limits = [
            ("--out", args.out.clone()),
            (
                "--format",
                (args.format == AuditFormat::Sarif).then(|| "sarif".to_owned()),
            ),
            (
                "--max-file-bytes",
                args.max_file_bytes.map(|n| n.to_string()),
            ),
            (
                "--max-chunks",
                (args.max_chunks != DEFAULT_MAX_CHUNKS).then(|| args.max_chunks.to_string()),
            ),
        ];
        for (flag, value) in limits {
            if let Some(value) = value {
                line.push_str(&format!(" {flag} {}", oy_tools::tools::quote(&value)));
            }
        }
        line
    };
    if args.dry_run {
        let _ = print_plan(&prepared, &rerun, &mut std::io::stdout().lock());
        // The exit code says whether the real run would go ahead.
        return Ok(if prepared.plan().stops.is_empty() {
            Exit::Ok
        } else {
            Exit::Failed
        });
    }
    if !prepared.plan().stops.is_empty() {
        for stop in &prepared.plan().stops {
            note(&format!("oy: audit stopped:\n{}", advice(stop, &rerun)));
        }
        return Ok(Exit::Failed);
    }
    let chunks = prepared.plan().chunks.len();
    let Some(connected) = connected else {
        return Ok(Exit::Failed);
    };

    runtime.block_on(async {
        let progress = Reviewing::new(chunks);
        // The one Ctrl-C path (signals.rs): the first signal cancels the
        // review, a second one quits at once.
        let cancel = CancelToken::new();
        let _interrupts = Interrupts::install(cancel.clone(), ChildKiller::default())?;
        let on_progress = |event: oy_audit::ReviewProgress| progress.update(&event);
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
            Err(error) => {
                // Errors name files, and file names come from the repository.
                note(&format!(
                    "oy: audit stopped: {}",
                    terminal_safe(&error.to_string())
                ));
                return Ok(Exit::Failed);
            }
        };
        let out = target.name();
        target.recheck(&workspace).map_err(flagged)?;
        if let Some(parent) = target.parent() {
            workspace
                .create_dir_all(&workspace.path(parent)?)
                .with_context(|| format!("cannot create the directory of {out}"))?;
        }
        workspace
            .write(target.path(), outcome.render().as_bytes())
            .with_context(|| format!("cannot write {out}"))?;
        let summary = outcome.summary();
        writeln!(
            crate::stdout::lock(),
            "wrote {}: {summary}",
            terminal_line(out)
        )?;
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

/// A refused root, scope, pattern or report path is a usage error naming
/// its flag and what to do.
fn flagged(error: AuditError) -> anyhow::Error {
    if !error.is_usage() {
        return error.into();
    }
    UsageError::new(match &error {
        AuditError::Scope { .. } => format!("--path {error}"),
        AuditError::BadExclude { .. } => format!("--exclude {error}"),
        AuditError::BroadRoot { .. } => format!(
            "{error}\nhint: run oy audit inside a project, or name what to audit: --path DIR, or --path . for all of it"
        ),
        AuditError::ReportSymlink { .. } => format!("{error} (remove it, or pass --out)"),
        AuditError::ReportNotFile { .. } => format!("{error}; pass --out with a file path"),
        AuditError::ReportNotOurs { .. } => {
            format!("{error}\nhint: pass --out with another path, or move the file away")
        }
        AuditError::ReportOutside { .. } | AuditError::ReportInVcs { .. } => {
            format!("--out {error}")
        }
        _ => error.to_string(),
    })
    .into()
}

/// The command as typed (with `excludes` added), for the report's
/// transparency line and for hints to run it again.
fn command_line(args: &AuditArgs, inclusions: &[Inclusion], excludes: &[String]) -> String {
    let mut parts = vec!["oy audit".to_owned()];
    if !args.focus.is_empty() {
        parts.push(oy_tools::tools::quote(&args.focus.join(" ")));
    }
    if let Some(path) = &args.path {
        parts.push(format!("--path {}", oy_tools::tools::quote(path)));
    }
    for pattern in args.exclude.iter().chain(excludes) {
        parts.push(format!("--exclude {}", oy_tools::tools::quote(pattern)));
    }
    parts.extend(
        inclusions
            .iter()
            .map(|&inclusion| flag(inclusion).to_owned()),
    );
    parts.join(" ")
}

fn note(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}
