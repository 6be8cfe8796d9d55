//! `bash`: run one shell command (`bash -c`) in the workspace, in its own
//! process group, with a timeout, and return its exit code and capped output.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::approval::Preview;
use crate::args::parse_args;
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::process::{self, Ending, Finished, Spawn};
use crate::process::{spawn_error, working_dir};
use crate::registry::Tool;
use crate::sandbox::Launch;
use crate::session_allow::Subject;
use crate::spec::{Effect, LazySpec, ToolSpec};

/// Default and largest timeout.
const DEFAULT_TIMEOUT_MS: u64 = 60_000;
const MAX_TIMEOUT_MS: u64 = 600_000;

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct BashArgs {
    command: String,
    /// At most 600000.
    #[serde(default = "default_timeout_ms")]
    timeout_ms: u64,
    /// Inside the workspace; default the root.
    #[serde(default)]
    workdir: Option<String>,
}

fn default_timeout_ms() -> u64 {
    DEFAULT_TIMEOUT_MS
}

/// The `bash` tool.
pub struct BashTool {
    spec: LazySpec,
}

impl BashTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<BashArgs>(
                "bash",
                "Run `bash -c COMMAND` in the workspace, stdin closed. Returns the exit code, then stdout and stderr (each capped head+tail); a timeout kills the process group (exit 124).",
                Effect::Process,
            ),
        }
    }
}

impl Default for BashTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for BashTool {
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
        r#"{"command":"cargo test 2>&1 | tail -n 20"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: BashArgs = parse_args("bash", args, self.example())?;
        if args.timeout_ms == 0 || args.timeout_ms > MAX_TIMEOUT_MS {
            return Err(ToolError::InvalidArguments {
                tool: "bash".to_owned(),
                problem: format!(
                    "`timeout_ms` must be between 1 and {MAX_TIMEOUT_MS}, got {}",
                    args.timeout_ms
                ),
                example: self.example().to_owned(),
            });
        }
        if args.command.trim().is_empty() || args.command.contains('\0') {
            return Err(ToolError::InvalidArguments {
                tool: "bash".to_owned(),
                problem: "`command` must be a non-empty command line without NUL bytes".to_owned(),
                example: self.example().to_owned(),
            });
        }
        let (dir, shown_dir) = working_dir(call, args.workdir.as_deref(), "workdir")?;
        call.authorize_as(
            &Subject::shell(&args.command),
            Effect::Process,
            format!(
                "run a shell command in {shown_dir} (timeout {} ms; {})",
                args.timeout_ms,
                call.ctx().sandbox_note()
            ),
            || Preview::Command(args.command.clone()),
        )?;
        let launched = call
            .ctx()
            .launch(Launch {
                program: call.ctx().shell(),
                args: vec!["-c".into(), args.command.clone().into()],
                cwd: dir,
                env: call.ctx().child_env().vars().to_vec(),
                pty: false,
            })
            .map_err(|error| spawn_failure(&error))?;
        let finished = process::run(Spawn {
            command: launched.command(),
            stdin: None,
            timeout: Duration::from_millis(args.timeout_ms),
            cancel: call.ctx().cancel_token(),
            supervised: launched.supervised,
            live: Some(call),
        })
        .map_err(|error| spawn_failure(&error))?;
        let truncated = finished.stdout.truncated || finished.stderr.truncated;
        let mut text = render(&finished, args.timeout_ms);
        let notes = [
            call.explain_refusal(&finished.stderr.text, &launched.cwd),
            launched.undo_protected(),
        ];
        for note in notes.into_iter().flatten() {
            text.push_str(&note);
            text.push('\n');
        }
        Ok(ToolOutput::ok(text)
            .with_truncated(truncated)
            .with_status(finished.ending.status())
            .with_exit_code(finished.ending.exit_code()))
    }
}

fn spawn_failure(error: &std::io::Error) -> ToolError {
    match error.kind() {
        std::io::ErrorKind::NotFound => ToolError::failed(
            "`bash` was not found on the PATH of the command environment",
            "install bash, or run the program without a shell through `exec`",
        ),
        _ => spawn_error("bash", error),
    }
}

/// `exit: N`, a line saying why when oy stopped it, then each non-empty
/// stream under its own header (or `(no output)`).
fn render(finished: &Finished, timeout_ms: u64) -> String {
    let mut text = format!("exit: {}\n", finished.ending.exit_code());
    match finished.ending {
        Ending::TimedOut => {
            text.push_str(&format!(
                "timed out after {timeout_ms} ms; process group killed\n"
            ));
        }
        Ending::Cancelled => text.push_str("cancelled; process group killed\n"),
        Ending::Signaled(signal) => text.push_str(&format!("killed by signal {signal}\n")),
        Ending::Exited(_) => {}
    }
    let streams = [
        ("[stdout]", &finished.stdout.text),
        ("[stderr]", &finished.stderr.text),
    ];
    if streams.iter().all(|(_, body)| body.is_empty()) {
        text.push_str("(no output)\n");
    }
    for (header, body) in streams {
        if body.is_empty() {
            continue;
        }
        text.push_str(header);
        text.push('\n');
        text.push_str(body);
        if !body.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}
