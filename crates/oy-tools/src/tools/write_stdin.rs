//! `write_stdin`: type characters (control characters included) into a
//! live `exec_command` session and return the output since the last call.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::approval::Preview;
use crate::args::parse_args;
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::pty::{self, SendError};
use crate::registry::Tool;
use crate::spec::{Effect, LazySpec, ToolSpec};
use crate::tools::exec_command::{default_output_tokens, default_yield_ms, render};

/// Arguments of `write_stdin`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteStdinArgs {
    session_id: u32,
    #[serde(default)]
    chars: String,
    /// Wait for output; max 30000.
    #[serde(default = "default_yield_ms")]
    yield_time_ms: u64,
    /// About 4 bytes each; max 15000.
    #[serde(default = "default_output_tokens")]
    max_output_tokens: u64,
}

/// The `write_stdin` tool.
pub struct WriteStdinTool {
    spec: LazySpec,
}

impl WriteStdinTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<WriteStdinArgs>(
                "write_stdin",
                "Type into an exec_command session (\"\\u0003\" Ctrl-C, \"\\u0004\" EOF, \"\" just reads); returns new output. A session closes when its process exits.",
                Effect::Process,
            ),
        }
    }
}

impl Default for WriteStdinTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for WriteStdinTool {
    fn spec(&self) -> &ToolSpec {
        self.spec.get()
    }

    fn name(&self) -> &str {
        self.spec.name()
    }

    fn effect(&self) -> Effect {
        self.spec.effect()
    }

    fn example(&self) -> &'static str {
        r#"{"session_id":1,"chars":"print(1 + 1)\n"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: WriteStdinArgs = parse_args("write_stdin", args, self.example())?;
        let ctx = call.ctx();
        let id = args.session_id;
        let no_session = || {
            ToolError::failed(
                format!("no such session {id}; start one with exec_command"),
                "start one with exec_command; a session closes when its process exits, and its id is not reused",
            )
        };
        let session = ctx.pty_sessions().get(id).ok_or_else(no_session)?;
        if args.chars.len() > pty::MAX_INPUT_BYTES {
            return Err(ToolError::InvalidArguments {
                tool: "write_stdin".to_owned(),
                problem: format!(
                    "field `chars`: {} bytes is more than the {} one call may send",
                    args.chars.len(),
                    pty::MAX_INPUT_BYTES
                ),
                example: self.example().to_owned(),
            });
        }
        let claim = session.claim();
        // Reading output has no side effect; typing into a process does.
        if !args.chars.is_empty() {
            let escaped = args.chars.escape_debug().to_string();
            call.authorize(
                Effect::Process,
                format!(
                    "type into session {id} (`{}`): {escaped}",
                    session.command()
                ),
                || Preview::Command(escaped.clone()),
            )?;
            match session.send(args.chars.into_bytes()) {
                Ok(()) => {}
                Err(SendError::Full) => {
                    return Err(ToolError::failed(
                        format!(
                            "session {id} is not reading its input: earlier input is still waiting"
                        ),
                        format!(
                            "read its output with write_stdin {{\"session_id\":{id},\"chars\":\"\"}}, or interrupt it with \"\\u0003\""
                        ),
                    ));
                }
                // Ended since it was looked up: collecting reports how.
                Err(SendError::Closed) => {}
            }
        }
        let collected = session.collect(
            pty::yield_time(args.yield_time_ms),
            ctx.cancel_token(),
            pty::output_bytes(args.max_output_tokens),
            Some(call),
        );
        drop(claim);
        let note = session.undo_protected();
        if collected.ended.is_some() {
            ctx.pty_sessions().remove(id);
        }
        let cancelled = ctx.cancel_token().is_cancelled();
        Ok(render(id, collected, String::new(), note, cancelled))
    }
}
