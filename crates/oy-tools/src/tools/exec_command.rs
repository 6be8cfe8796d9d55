//! `exec_command`: start `bash -c cmd` on a new pseudo-terminal session and
//! return its id with the output of the first `yield_time_ms`.

use oy_boundary::{BoundaryError, FileKind};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::approval::Preview;
use crate::args::parse_args;
use crate::context::Invocation;
use crate::error::ToolError;
use crate::events::CallStatus;
use crate::output::ToolOutput;
use crate::pty::{self, Collected, Ended, Ending};
use crate::registry::Tool;
use crate::sandbox::Launch;
use crate::session_allow::Subject;
use crate::spec::{Effect, LazySpec, ToolSpec};

/// Arguments of `exec_command`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExecCommandArgs {
    cmd: String,
    /// Inside the workspace; default the root.
    #[serde(default)]
    workdir: Option<String>,
    /// Wait for output; max 30000.
    #[serde(default = "default_yield_ms")]
    yield_time_ms: u64,
    /// About 4 bytes each; max 15000.
    #[serde(default = "default_output_tokens")]
    max_output_tokens: u64,
}

pub(crate) fn default_yield_ms() -> u64 {
    pty::DEFAULT_YIELD_MS
}

pub(crate) fn default_output_tokens() -> u64 {
    pty::DEFAULT_OUTPUT_TOKENS
}

/// The `exec_command` tool.
pub struct ExecCommandTool {
    spec: LazySpec,
}

impl ExecCommandTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<ExecCommandArgs>(
                "exec_command",
                "Start `bash -c CMD` on a new terminal (interactive or long-running programs). Returns its session id for write_stdin and the output so far.",
                Effect::Process,
            ),
        }
    }
}

impl Default for ExecCommandTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for ExecCommandTool {
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
        r#"{"cmd":"python3 -i","yield_time_ms":500}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: ExecCommandArgs = parse_args("exec_command", args, self.example())?;
        if args.cmd.trim().is_empty() {
            return Err(ToolError::InvalidArguments {
                tool: "exec_command".to_owned(),
                problem: "field `cmd`: the command is empty".to_owned(),
                example: self.example().to_owned(),
            });
        }
        let ws = call.workspace();
        let dir = match &args.workdir {
            Some(workdir) => ws.path(workdir)?,
            None => ws.root_path(),
        };
        let meta = ws.metadata(&dir)?;
        if meta.kind != FileKind::Directory {
            return Err(BoundaryError::NotADirectory {
                path: dir.to_text(),
                kind: meta.kind,
            }
            .into());
        }
        let shown_dir = dir.to_text();
        call.authorize_as(
            &Subject::shell(&args.cmd),
            Effect::Process,
            format!(
                "run on a new terminal in {shown_dir}: {} ({})",
                args.cmd,
                call.ctx().sandbox_note()
            ),
            || Preview::Command(args.cmd.clone()),
        )?;
        let ctx = call.ctx();
        let mut env = ctx.child_env().vars().to_vec();
        if !env.iter().any(|(name, _)| name == "TERM") {
            env.push(("TERM".into(), "xterm".into()));
        }
        let launched = ctx
            .launch(Launch {
                program: call.ctx().shell(),
                args: vec!["-c".into(), args.cmd.clone().into()],
                cwd: ws.host_path(&dir),
                env,
                pty: true,
            })
            .map_err(|error| crate::process::spawn_error("bash", &error))?;
        let (session, reaped) = ctx.pty_sessions().start(&args.cmd, &launched)?;
        let claim = session.claim();
        let collected = session.collect(
            pty::yield_time(args.yield_time_ms),
            ctx.cancel_token(),
            pty::output_bytes(args.max_output_tokens),
            Some(call),
        );
        drop(claim);
        if collected.ended.is_some() {
            ctx.pty_sessions().remove(session.id());
        }
        let mut text = String::new();
        if let Some(reaped) = reaped {
            text.push_str(&format!(
                "closed session {} (the oldest idle one; at most {} sessions live at once)\n",
                reaped.id,
                pty::MAX_SESSIONS
            ));
        }
        let cancelled = ctx.cancel_token().is_cancelled();
        Ok(render(
            session.id(),
            collected,
            text,
            session.undo_protected(),
            cancelled,
        ))
    }
}

/// `session N running` or `session N exited with code C`, then the output.
/// A wait the turn's cancellation cut short (`cancelled`) while the
/// process still runs ends the call as `cancelled`; a process that ended
/// gives its exit code.
pub(crate) fn render(
    id: u32,
    collected: Collected,
    mut text: String,
    sandbox_note: Option<String>,
    cancelled: bool,
) -> ToolOutput {
    let (status, exit_code) = match collected.ended {
        None if cancelled => (CallStatus::Cancelled, None),
        None => (CallStatus::Ok, None),
        Some(ended) => (
            CallStatus::Ok,
            match ended.ending {
                Ending::Code(code) => Some(code),
                Ending::Signal(signal) => Some(128 + signal),
                Ending::Unknown => None,
            },
        ),
    };
    match collected.ended {
        None => text.push_str(&format!("session {id} running\n")),
        Some(ended) => text.push_str(&format!("session {id} {}\n", describe(ended))),
    }
    text.push_str(&collected.output.text);
    if let Some(note) = sandbox_note {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&note);
        text.push('\n');
    }
    let output = ToolOutput::ok(text)
        .with_truncated(collected.output.truncated)
        .with_status(status);
    match exit_code {
        Some(code) => output.with_exit_code(code),
        None => output,
    }
}

fn describe(ended: Ended) -> String {
    let mut line = match ended.ending {
        Ending::Code(code) => format!("exited with code {code}"),
        Ending::Signal(signal) => format!(
            "exited with code {} (killed by {})",
            128 + signal,
            signal_name(signal)
        ),
        Ending::Unknown => "exited (status unknown)".to_owned(),
    };
    if ended.killed_after_eof {
        line.push_str("; its terminal closed while it ran, so it was killed");
    }
    line
}

fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return format!("signal {signal}"),
    };
    name.to_owned()
}
