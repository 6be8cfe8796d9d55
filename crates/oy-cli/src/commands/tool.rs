//! `oy tool NAME [ARGS_JSON|-]`: one tool call through the same registry,
//! policy, boundary and limiter the model uses.

use std::io::{Read, Write};
use std::sync::Arc;

use anyhow::{Context, Result};
use oy_tools::{CancelToken, ChangeJournal, Effect, Limit, ToolContext, ToolOutput, ToolState};
use serde_json::json;

use crate::approver::TerminalPrompt;
use crate::cli::ToolArgs;
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::signals::Interrupts;
use crate::state_store::StateStore;

/// The id `oy tool` gives its one call: no model made it, but the ledger
/// and the events name every call by an id.
const CALL_ID: &str = "oy-tool-1";

pub(crate) fn run(config: &Config, args: &ToolArgs) -> Result<Exit> {
    let (registry, workspace) = crate::user_tools::registry_for(config)?;
    let raw = raw_arguments(&registry, args)?;
    let store = match &args.session {
        Some(name) => {
            let data_dir = config.settings.dirs.data_dir.as_deref().ok_or_else(|| {
                UsageError::new("--session needs a data directory: set XDG_DATA_HOME or HOME")
            })?;
            Some(StateStore::open(data_dir, name)?)
        }
        None => None,
    };
    let effect = registry.get(&args.name).map(|tool| tool.effect());
    let cancel = CancelToken::new();
    let mut ctx = ToolContext::new(Arc::new(workspace), config.settings.policy)
        .with_child_env(config.child_env.clone())
        .with_sandbox(Arc::clone(&config.sandbox))
        .with_cancel(cancel.clone());
    // The sandbox confines commands: only a tool that starts them has
    // anything to be warned about (and only it makes the sandbox probe
    // the kernel).
    if effect == Some(Effect::Process) {
        crate::render::announce_sandbox(config);
    }
    if let Some(max) = args.max_output {
        let max = usize::try_from(max).unwrap_or(usize::MAX);
        ctx = ctx.with_output_limit(Limit::bytes(max));
    }
    if config.settings.policy.interactive {
        let prompt = Arc::new(TerminalPrompt);
        ctx = ctx.with_approver(prompt.clone()).with_asker(prompt);
    }
    ctx = match &store {
        Some(store) => ctx.with_state(store.load()?),
        // Dropped after this call: no read record can be consulted.
        None => ctx.with_state(ToolState::one_shot()),
    };
    if let Some(dir) = crate::agent_setup::journal_dir(config) {
        let journal = ChangeJournal::for_workspace(&dir, ctx.workspace().root());
        ctx = ctx.with_journal(Arc::new(journal));
        for change in ctx.recover_interrupted() {
            crate::config::warn(&change.message());
        }
    }
    // Ctrl-C fires the token: a running command's process group is
    // killed, and a change or a question ends cleanly with exit 130. A
    // tool that only reads starts nothing and changes nothing, so the
    // default action (the process ends at once, as `sed` or `rg` would)
    // is the right one, and it needs no listening thread.
    let interrupts = match effect {
        Some(Effect::Read) => None,
        _ => Some(Interrupts::install(cancel, ctx.child_killer())?),
    };
    let output = match registry.invoke_raw_checked(&ctx, CALL_ID, &args.name, &raw) {
        Ok(output) => output,
        Err(error) if error.is_usage() => {
            if args.json {
                print_json(&ToolOutput::error(&error), Some(error.to_string()))?;
            }
            return Err(UsageError::new(format!("{error}\nhint: {}", error.recovery())).into());
        }
        Err(error) => ToolOutput::error(&error),
    };
    if let Some(store) = &store {
        store.save(&ctx.snapshot_state())?;
    }
    if args.json {
        let error = (!output.ok).then(|| first_line(&output.text));
        print_json(&output, error)?;
    } else {
        // Tool output shows file contents, file names and command output
        // from the workspace; `--json` is the byte-exact form.
        let text = crate::render::terminal_safe_text(&output.text);
        let mut stdout = crate::stdout::lock();
        stdout.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            stdout.write_all(b"\n")?;
        }
    }
    Ok(
        if interrupts.as_ref().is_some_and(Interrupts::interrupted) {
            Exit::Interrupted
        } else if output.ok {
            Exit::Ok
        } else {
            Exit::Failed
        },
    )
}

/// The arguments as JSON text. `-` reads stdin; for a tool with a single
/// string argument (`patch`), stdin that is not a JSON object is taken as
/// that argument's raw text.
fn raw_arguments(registry: &oy_tools::Registry, args: &ToolArgs) -> Result<String> {
    match args.args.as_deref() {
        None => Ok("{}".to_owned()),
        Some("-") => {
            let mut text = String::new();
            match std::io::stdin().read_to_string(&mut text) {
                Ok(_) => {}
                Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
                    return Err(UsageError::new(
                        "the arguments on stdin are not valid UTF-8\nhint: tool arguments are JSON text (or a patch's text)",
                    )
                    .into());
                }
                Err(error) => return Err(error).context("cannot read arguments from stdin"),
            }
            if text.trim_start().starts_with('{') {
                return Ok(text);
            }
            let field = registry
                .get(&args.name)
                .and_then(|tool| tool.spec().sole_string_field().map(str::to_owned));
            match field {
                Some(field) => Ok(json!({ field: text }).to_string()),
                None => Ok(text),
            }
        }
        Some(text) => Ok(text.to_owned()),
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
}

fn print_json(output: &ToolOutput, error: Option<String>) -> Result<()> {
    let value = json!({
        "ok": output.ok,
        "output": output.text,
        "truncated": output.truncated,
        "error": error,
    });
    let text = crate::json_text::json_text(&value, false)?;
    let mut stdout = crate::stdout::lock();
    writeln!(stdout, "{text}")?;
    Ok(())
}
