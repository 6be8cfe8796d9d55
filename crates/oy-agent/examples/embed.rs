//! Embedding `oy-agent` in your own program: one read-only task against an
//! OpenAI-compatible server, with the agent's events printed as they come.
//!
//! ```text
//! OY_EXAMPLE_BASE_URL=http://127.0.0.1:11434/v1 OY_EXAMPLE_MODEL=qwen2.5-coder \
//!     cargo run -p oy-agent --example embed -- path/to/workspace "What does this project do?"
//! ```
//!
//! - `OY_EXAMPLE_BASE_URL`: the API root (`/chat/completions` is appended).
//! - `OY_EXAMPLE_MODEL`: the model id.
//! - `OPENAI_API_KEY`: optional; local servers need none.
//!
//! The agent runs in `plan` mode: it may list, read and search, but not
//! change files or run commands. The answer streams to stdout; tool calls
//! and the end of the turn are reported on stderr. The exit code is 0 when
//! the model finished its answer, 1 otherwise.

// The library never reads the environment or prints (only a frontend
// does); this program is such a frontend.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program talks to its user on stdout and stderr"
)]

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use oy_agent::{AgentBuilder, AgentEvent, AgentEventSink, TurnStop};
use oy_boundary::Workspace;
use oy_provider::{OpenAiChatProvider, OpenAiConfig, Secret};
use oy_tools::{Mode, Policy};

/// Prints each event as it arrives. The sink runs on the agent's task, so
/// it only writes and returns.
struct PrintEvents;

impl AgentEventSink for PrintEvents {
    fn emit(&self, event: &AgentEvent) {
        match event {
            AgentEvent::SessionStarted {
                session_id, model, ..
            } => eprintln!("[session {session_id}, model {model}]"),
            AgentEvent::TextDelta { text } => {
                // Deltas are fragments of a line: flush so they show at once.
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(text.as_bytes());
                let _ = stdout.flush();
            }
            AgentEvent::ToolCallStarted(started) => {
                eprintln!("[tool {} {}]", started.tool, started.arguments);
            }
            AgentEvent::ToolCallFinished(finished) => eprintln!(
                "[tool {} {} ({} bytes)]",
                finished.tool,
                if finished.ok { "ok" } else { "failed" },
                finished.output_bytes
            ),
            AgentEvent::Retry {
                attempt, delay_ms, ..
            } => eprintln!("[retrying: attempt {attempt} failed, waiting {delay_ms} ms]"),
            AgentEvent::Error { message } => eprintln!("[error: {message}]"),
            AgentEvent::TurnFinished { stop, usage, .. } => eprintln!(
                "\n[turn finished: {stop:?}, {} tokens in, {} out]",
                usage.input_tokens, usage.output_tokens
            ),
            // Approvals cannot happen in plan mode; compaction is quiet.
            _ => {}
        }
    }
}

/// What the program needs from its environment and arguments.
struct Setup {
    base_url: String,
    model: String,
    api_key: Option<String>,
    workspace: String,
    prompt: String,
}

fn setup() -> Result<Setup, String> {
    let var = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let mut args = std::env::args().skip(1);
    let usage = "usage: embed WORKSPACE PROMPT (with OY_EXAMPLE_BASE_URL and OY_EXAMPLE_MODEL set)";
    Ok(Setup {
        base_url: var("OY_EXAMPLE_BASE_URL").ok_or(usage)?,
        model: var("OY_EXAMPLE_MODEL").ok_or(usage)?,
        api_key: var("OPENAI_API_KEY"),
        workspace: args.next().ok_or(usage)?,
        prompt: args.next().ok_or(usage)?,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let setup = match setup() {
        Ok(setup) => setup,
        Err(usage) => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    match run(setup).await {
        Ok(TurnStop::Done) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(setup: Setup) -> Result<TurnStop, Box<dyn std::error::Error>> {
    // 1. The provider: any OpenAI-compatible server, over Chat Completions.
    let mut config = OpenAiConfig::new(setup.base_url);
    config.api_key = setup.api_key.map(Secret::new);
    config.api_key_name = Some("OPENAI_API_KEY".to_owned());
    let provider = Arc::new(OpenAiChatProvider::new(config)?);

    // 2. The workspace: every path the tools touch stays inside it.
    let workspace = Arc::new(Workspace::open(&setup.workspace)?);

    // 3. The agent: plan mode (read-only) and no one to ask for approvals,
    //    so nothing in the workspace can change.
    let mut agent = AgentBuilder::new(provider, setup.model)
        .workspace(workspace)
        .policy(Policy::new(Mode::Plan, false))
        .events(Arc::new(PrintEvents))
        .build()?;

    // 4. One turn: the loop runs tools until the model answers without
    //    asking for one, or a guard stops it. An `Err` is a provider failure
    //    (after retries); anything else is reported by `stop`.
    let outcome = agent.turn(&setup.prompt).await?;
    if let Some(reason) = &outcome.reason {
        eprintln!("stopped: {reason}");
    }
    Ok(outcome.stop)
}
