//! `exec`: run one program argv-only (no shell) in the workspace and return
//! exactly one JSON line `{"exitCode","stdout","stderr","durationMs"}`
//! (see docs/tools.md).

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::Preview;
use crate::args::parse_args;
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::process::{self, Ending, Spawn, spawn_error, working_dir};
use crate::registry::Tool;
use crate::sandbox::Launch;
use crate::session_allow::Subject;
use crate::spec::{Effect, LazySpec, ToolSpec};

/// Default and largest timeout.
const DEFAULT_TIMEOUT_SEC: u64 = 60;
const MAX_TIMEOUT_SEC: u64 = 600;

/// Arguments of `exec`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExecArgs {
    cmd: String,
    /// Passed verbatim.
    #[serde(default)]
    args: Vec<String>,
    /// Inside the workspace; default the root.
    #[serde(default)]
    cwd: Option<String>,
    /// Added to the environment as given.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Written to stdin, then closed.
    #[serde(default)]
    stdin: Option<String>,
    /// At most 600.
    #[serde(default = "default_timeout_sec", rename = "timeoutSec")]
    timeout_sec: u64,
}

fn default_timeout_sec() -> u64 {
    DEFAULT_TIMEOUT_SEC
}

/// The one line `exec` returns.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ExecResult<'a> {
    exit_code: i32,
    stdout: &'a str,
    stderr: &'a str,
    duration_ms: u64,
}

/// The `exec` tool.
pub struct ExecTool {
    spec: LazySpec,
}

impl ExecTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<ExecArgs>(
                "exec",
                "Run a program argv-only (no shell) in the workspace. Returns one JSON line {exitCode,stdout,stderr,durationMs}, streams capped head+tail; a timeout kills the process group (exitCode 124).",
                Effect::Process,
            ),
        }
    }
}

impl Default for ExecTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for ExecTool {
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
        r#"{"cmd":"git","args":["status","--short"]}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: ExecArgs = parse_args("exec", args, self.example())?;
        self.check(&args)?;
        let (dir, shown_dir) = working_dir(call, args.cwd.as_deref(), "cwd")?;
        let stdin_note = match &args.stdin {
            Some(input) => format!(", {} bytes on stdin", input.len()),
            None => String::new(),
        };
        let env_or_stdin = !args.env.is_empty() || args.stdin.is_some();
        call.authorize_as(
            &Subject::argv(&args.cmd, &args.args, env_or_stdin),
            Effect::Process,
            format!(
                "run `{}` in {shown_dir} (timeout {} s{stdin_note}; {})",
                args.cmd,
                args.timeout_sec,
                call.ctx().sandbox_note()
            ),
            || Preview::Command(command_line(&args)),
        )?;
        let mut env = call.ctx().child_env().vars().to_vec();
        env.extend(
            args.env
                .iter()
                .map(|(name, value)| (name.into(), value.into())),
        );
        let launched = call
            .ctx()
            .launch(Launch {
                program: args.cmd.clone().into(),
                args: args.args.iter().map(Into::into).collect(),
                cwd: dir,
                env,
                pty: false,
            })
            .map_err(|error| spawn_error(&args.cmd, &error))?;
        let finished = process::run(Spawn {
            command: launched.command(),
            stdin: args.stdin.map(String::into_bytes),
            timeout: Duration::from_secs(args.timeout_sec),
            cancel: call.ctx().cancel_token(),
            supervised: launched.supervised,
            live: Some(call),
        })
        .map_err(|error| spawn_error(&args.cmd, &error))?;
        let mut stderr = finished.stderr.text;
        let notes = [
            call.explain_refusal(&stderr, &launched.cwd),
            launched.undo_protected(),
        ];
        for note in notes.into_iter().flatten() {
            if !stderr.is_empty() && !stderr.ends_with('\n') {
                stderr.push('\n');
            }
            stderr.push_str(&note);
        }
        let note = match finished.ending {
            Ending::TimedOut => Some(format!(
                "oy: timed out after {} s; process group killed",
                args.timeout_sec
            )),
            Ending::Cancelled => Some("oy: cancelled; process group killed".to_owned()),
            Ending::Signaled(signal) => Some(format!("oy: killed by signal {signal}")),
            Ending::Exited(_) => None,
        };
        if let Some(note) = note {
            if !stderr.is_empty() && !stderr.ends_with('\n') {
                stderr.push('\n');
            }
            stderr.push_str(&note);
        }
        let line = serde_json::to_string(&ExecResult {
            exit_code: finished.ending.exit_code(),
            stdout: &finished.stdout.text,
            stderr: &stderr,
            duration_ms: u64::try_from(finished.duration.as_millis()).unwrap_or(u64::MAX),
        })
        .map_err(|error| {
            ToolError::failed(format!("cannot encode the result: {error}"), "retry")
        })?;
        let truncated = finished.stdout.truncated || finished.stderr.truncated;
        Ok(ToolOutput::ok(line)
            .with_truncated(truncated)
            .with_status(finished.ending.status())
            .with_exit_code(finished.ending.exit_code()))
    }
}

impl ExecTool {
    fn check(&self, args: &ExecArgs) -> Result<(), ToolError> {
        let invalid = |problem: String| ToolError::InvalidArguments {
            tool: "exec".to_owned(),
            problem,
            example: self.example().to_owned(),
        };
        if args.cmd.is_empty() {
            return Err(invalid("`cmd` must name a program".to_owned()));
        }
        if args.timeout_sec == 0 || args.timeout_sec > MAX_TIMEOUT_SEC {
            return Err(invalid(format!(
                "`timeoutSec` must be between 1 and {MAX_TIMEOUT_SEC}, got {}",
                args.timeout_sec
            )));
        }
        if let Some(name) = args
            .env
            .keys()
            .find(|name| name.is_empty() || name.contains(['=', '\0']))
        {
            return Err(invalid(format!(
                "`env` name {name:?} is not a variable name (empty, or holds `=` or NUL)"
            )));
        }
        let mut strings = std::iter::once(&args.cmd)
            .chain(&args.args)
            .chain(args.env.values());
        if strings.any(|text| text.contains('\0')) {
            return Err(invalid(
                "`cmd`, `args` and `env` values cannot hold NUL bytes".to_owned(),
            ));
        }
        Ok(())
    }
}

/// The call as one shell-quoted line (what a person would type to do the
/// same): `env K=V …` first when variables are added.
fn command_line(args: &ExecArgs) -> String {
    let mut words = Vec::new();
    if !args.env.is_empty() {
        words.push("env".to_owned());
        words.extend(
            args.env
                .iter()
                .map(|(name, value)| quote(&format!("{name}={value}"))),
        );
    }
    // The program word must never read as an assignment (`A=1 ls` would
    // look like "run ls"), so a `=` in it is always quoted.
    words.push(if args.cmd.contains('=') {
        format!("'{}'", args.cmd.replace('\'', r"'\''"))
    } else {
        quote(&args.cmd)
    });
    words.extend(args.args.iter().map(|arg| quote(arg)));
    let mut line = words.join(" ");
    // What goes to stdin is part of what runs (`sh` reading a script).
    if let Some(input) = &args.stdin {
        line.push_str(" <<'OY_STDIN'\n");
        line.push_str(input);
        if !input.ends_with('\n') {
            line.push('\n');
        }
        line.push_str("OY_STDIN");
    }
    line
}

/// POSIX single-quoting, only where a shell would otherwise read the word
/// differently.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
