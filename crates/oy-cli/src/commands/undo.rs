//! `oy undo` and `oy diff`: a saved session's checkpoints (this
//! workspace's latest session unless `--session` names one), without a
//! model. The library plans and applies; this file picks the session,
//! prints the report and chooses the exit code.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Context, Result};
use oy_boundary::Workspace;
use oy_checkpoint::{CheckpointError, Checkpoints};

use crate::agent_setup::{checkpoints_dir, session_store};
use crate::cli::{DiffArgs, UndoArgs};
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::json_text::json_text;
use crate::render::{Style, undo::report_lines};

pub(crate) fn run(config: &Config, args: &UndoArgs) -> Result<Exit> {
    let (workspace, checkpoints) = open(config, args.session.as_deref())?;
    let turns = usize::try_from(args.turns).unwrap_or(usize::MAX);
    let result = if args.redo {
        checkpoints.redo(&workspace, args.dry_run)
    } else {
        checkpoints.undo(&workspace, turns, args.dry_run)
    };
    let report = match result {
        Ok(report) => report,
        Err(CheckpointError::Nothing(message)) => {
            crate::report::hint(&message);
            return Ok(Exit::Failed);
        }
        Err(error) => return Err(error.into()),
    };
    let mut stdout = crate::stdout::lock();
    if args.json {
        writeln!(stdout, "{}", json_text(&report, false)?)?;
    } else {
        let style = Style::detect(std::io::stderr().is_terminal());
        if args.dry_run && !report.diff.is_empty() {
            write!(stdout, "{}", shown_diff(&report.diff))?;
        }
        let mut stderr = std::io::stderr().lock();
        for line in report_lines(&report, style) {
            writeln!(stderr, "{line}")?;
        }
    }
    Ok(if report.conflicts.is_empty() {
        Exit::Ok
    } else {
        Exit::Failed
    })
}

pub(crate) fn diff(config: &Config, args: &DiffArgs) -> Result<Exit> {
    let (workspace, checkpoints) = open(config, args.session.as_deref())?;
    let diff = checkpoints.diff(&workspace)?;
    for line in diff_notes(&checkpoints, diff.is_empty()) {
        crate::report::hint(&line);
    }
    if diff.is_empty() {
        return Ok(Exit::Ok);
    }
    write!(crate::stdout::lock(), "{}", shown_diff(&diff))?;
    Ok(Exit::Ok)
}

/// The diff as a terminal shows it (coloured, control characters made
/// visible), or as it is for a pipe.
pub(crate) fn shown_diff(diff: &str) -> String {
    let stdout = std::io::stdout();
    let style = Style::detect(stdout.is_terminal());
    if !stdout.is_terminal() {
        return crate::render::terminal_safe(diff);
    }
    oy_term::render_diff(
        diff,
        oy_term::DiffOptions {
            color: style.enabled,
            width: 0,
            max_lines: None,
        },
    )
}

/// The workspace and the checkpoints of session `id` (or the latest of
/// this workspace).
fn open(config: &Config, id: Option<&str>) -> Result<(Arc<Workspace>, Arc<Checkpoints>)> {
    let workspace = Arc::new(
        Workspace::open(&config.root)
            .with_context(|| format!("cannot open workspace {}", config.root.display()))?,
    );
    let root = workspace.root().display().to_string();
    let store = session_store(config)?;
    let id = match id {
        Some(id) => {
            let header = store
                .load(id)
                .map_err(|error| UsageError::new(error.to_string()))?
                .header;
            if header.workspace != root {
                return Err(UsageError::new(format!(
                    "session {id} belongs to workspace {}, not {root}; run oy undo there (or pass --root)",
                    header.workspace
                ))
                .into());
            }
            id.to_owned()
        }
        None => {
            store
                .latest_for(&root)?
                .ok_or_else(|| {
                    UsageError::new(format!(
                        "no saved session for {root}: nothing to undo (`oy sessions --all` lists the others)"
                    ))
                })?
                .id
        }
    };
    // The same protections and git as a run's tools: an undo is refused
    // wherever a file tool would be.
    let tools = oy_tools::ToolContext::new(Arc::clone(&workspace), config.settings.policy)
        .with_child_env(config.child_env.clone())
        .with_sandbox(Arc::clone(&config.sandbox));
    let checkpoints = oy_agent::session_checkpoints(&tools, &checkpoints_dir(config)?, &id)?;
    Ok((workspace, Arc::new(checkpoints)))
}

/// `/undo [N]`, `/redo` and `/diff` in a chat.
pub(crate) async fn chat_command(
    agent: &mut oy_agent::Agent,
    input: crate::commands::chat::ChatInput,
    style: Style,
) {
    use crate::commands::chat::ChatInput;
    let say = |line: &str| {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    };
    let result = match input {
        ChatInput::Undo(count) => {
            let Some(count) = count
                .as_deref()
                .map_or(Some(1), |text| text.trim().parse::<usize>().ok())
                .filter(|count| *count > 0)
            else {
                say(&style.yellow("/undo takes a number of turns, e.g. /undo 2"));
                return;
            };
            agent.undo(count, false).await
        }
        ChatInput::Redo => agent.redo(false).await,
        _ => {
            let result = agent.session_diff().await;
            if let (Some(checkpoints), Ok(diff)) = (agent.tool_context().checkpoints(), &result) {
                for line in diff_notes(checkpoints, diff.is_empty()) {
                    say(&style.yellow(&crate::render::terminal_line(&line)));
                }
            }
            match result {
                Ok(diff) if diff.is_empty() => {}
                Ok(diff) => {
                    let _ = write!(crate::stdout::lock(), "{}", shown_diff(&diff));
                }
                Err(error) => say(&style.red(&format!("oy: {error}"))),
            }
            return;
        }
    };
    match result {
        Ok(report) => {
            for line in report_lines(&report, style) {
                say(&line);
            }
        }
        Err(oy_agent::AgentError::Checkpoint(CheckpointError::Nothing(message))) => say(&message),
        Err(error) => say(&style.red(&format!("oy: {error}"))),
    }
}

/// What a session diff cannot show, for `oy diff` and `/diff`: each
/// unrecorded change, and when the diff is `empty`, why (nothing changed,
/// or commands outside git are not tracked).
fn diff_notes(checkpoints: &Checkpoints, empty: bool) -> Vec<String> {
    let mut notes: Vec<String> = checkpoints
        .unrecorded()
        .into_iter()
        .map(|line| format!("not in this diff: {line}"))
        .collect();
    if checkpoints.outside_git() {
        notes.push(
            "not in this diff: what commands changed (the workspace is not in a git repository)"
                .to_owned(),
        );
    } else if empty && notes.is_empty() {
        notes.push("the session changed nothing that is still in the workspace".to_owned());
    }
    notes
}
