//! `oy run [PROMPT]` / `oy "PROMPT"`: one task, prompt from the arguments
//! or stdin, events rendered for people, as JSON lines, or only the answer.

use std::io::{IsTerminal, Read, Write};
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::agent_setup::{Resume, build, exit_for, runtime};
use crate::cli::RunArgs;
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::render::{Output, Renderer, Style};
use crate::signals::Interrupts;

pub(crate) fn run(config: Config, args: RunArgs) -> Result<Exit> {
    let (prompt, typed) = prompt(&config, &args)?;
    let output = if args.json {
        Output::Json
    } else if args.quiet {
        Output::Quiet
    } else {
        Output::Human
    };
    let renderer = Arc::new(Renderer::new(output, args.verbose));
    let resume = Resume::from_flags(args.resume.clone(), args.continue_);
    runtime()?.block_on(async {
        let connected = crate::provider_setup::connect(&config).await?;
        let mut built = build(
            &config,
            connected,
            renderer.clone(),
            &resume,
            args.max_turns,
        )?;
        renderer.cancel_when_closed(built.cancel.clone());
        let interrupts = Interrupts::install(
            built.cancel.clone(),
            built.agent.tool_context().child_killer(),
        )?;
        // Mentions are read in a typed prompt only: one piped in is often
        // a document (an issue, a log) whose `@names` are not paths.
        let prompt = if typed {
            let prompt = built
                .agent
                .prepare(&prompt)
                .await
                .map_err(|error| UsageError::new(crate::mentions::refusal(&error)))?;
            if output == Output::Human {
                crate::mentions::say_attached(
                    &prompt,
                    Style::detect(std::io::stderr().is_terminal()),
                );
            }
            prompt
        } else {
            oy_agent::Prompt::new(prompt)
        };
        let outcome = built.agent.turn(prompt).await;
        renderer.finish_text();
        drop(interrupts);
        match outcome {
            Ok(outcome) => {
                if output == Output::Quiet && !outcome.text.is_empty() {
                    let mut stdout = std::io::stdout().lock();
                    let answer = crate::render::terminal_safe(outcome.text.trim_end());
                    let _ = writeln!(stdout, "{answer}");
                }
                Ok(exit_for(outcome.stop))
            }
            // Already reported through the event sink.
            Err(oy_agent::AgentError::Provider(_)) => Ok(Exit::Failed),
            // Refused before any request: the person's input is at fault.
            Err(error @ oy_agent::AgentError::PromptTooLarge { .. }) => Err(UsageError::new(
                format!("{error}\nhint: {}", crate::agent_setup::WINDOW_HINT),
            )
            .into()),
            Err(error) => Err(error.into()),
        }
    })
}

/// The prompt from the arguments (`/init` and `/NAME ARGS` expanded;
/// `true`: typed, its mentions are read), or all of stdin when there are
/// none (or `-`), sent as it is.
fn prompt(config: &Config, args: &RunArgs) -> Result<(String, bool)> {
    let joined = args.prompt.join(" ");
    if !joined.trim().is_empty() && joined != "-" {
        return Ok((
            crate::prompt_commands::expand_for_run(config, joined)?,
            true,
        ));
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(UsageError::new(
            "no prompt: give one as an argument (`oy run \"…\"`) or on stdin, or use `oy chat`",
        )
        .into());
    }
    let mut text = String::new();
    match stdin.lock().read_to_string(&mut text) {
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
            return Err(UsageError::new(
                "the prompt on stdin is not valid UTF-8\nhint: convert it to UTF-8 first (e.g. with iconv)",
            )
            .into());
        }
        Err(error) => return Err(error).context("cannot read the prompt from stdin"),
    }
    if text.trim().is_empty() {
        return Err(UsageError::new("the prompt on stdin is empty").into());
    }
    Ok((text, false))
}
