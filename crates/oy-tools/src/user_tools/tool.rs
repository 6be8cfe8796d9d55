//! `UserTool`: one `tools.json` entry as a tool. Runs its argv (no shell)
//! with the call's arguments as JSON on stdin, in the workspace root, with
//! the filtered environment, under its timeout, and returns the one JSON
//! value it prints.

use crate::sandbox::Launch;
use std::time::Duration;

use serde_json::Value;

use crate::approval::Preview;
use crate::context::Invocation;
use crate::error::ToolError;
use crate::events::CallStatus;
use crate::output::ToolOutput;
use crate::process::{self, Ending, Finished, Spawn, spawn_error, working_dir};
use crate::registry::Tool;
use crate::spec::{Effect, ToolSpec};
use crate::user_tools::UserToolDef;

/// A tool defined in a `tools.json` manifest.
pub struct UserTool {
    spec: ToolSpec,
    def: UserToolDef,
    example: String,
}

impl UserTool {
    /// Wraps a validated definition (see [`crate::parse_manifest`]).
    pub fn new(def: UserToolDef) -> Self {
        let example = example_arguments(&def.parameters);
        Self {
            spec: ToolSpec {
                name: def.name.clone().into(),
                description: def.description.clone().into(),
                parameters: def.parameters.clone(),
                effect: Effect::Process,
            },
            def,
            example,
        }
    }
}

impl Tool for UserTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn example(&self) -> &str {
        &self.example
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let name = &*self.spec.name;
        check_required(name, &self.def.parameters, args, &self.example)?;
        let input = args.to_string();
        let (dir, _) = working_dir(call, None, "cwd")?;
        let argv: Vec<String> = self
            .def
            .command
            .iter()
            .map(|word| crate::tools::quote(word))
            .collect();
        let argv = argv.join(" ");
        call.authorize(
            Effect::Process,
            format!(
                "run user tool `{name}`: {argv} ({})",
                call.ctx().sandbox_note()
            ),
            || Preview::Command(format!("{argv} <<< {}", crate::tools::quote(&input))),
        )?;
        let launched = call
            .ctx()
            .launch(Launch {
                program: self.def.command[0].clone().into(),
                args: self.def.command[1..].iter().map(Into::into).collect(),
                cwd: dir,
                env: call.ctx().child_env().vars().to_vec(),
                pty: false,
            })
            .map_err(|error| spawn_error(&self.def.command[0], &error))?;
        let timeout = self.def.timeout_sec();
        let finished = process::run(Spawn {
            command: launched.command(),
            stdin: Some(input.into_bytes()),
            timeout: Duration::from_secs(timeout),
            cancel: call.ctx().cancel_token(),
            supervised: launched.supervised,
            live: Some(call),
        })
        .map_err(|error| spawn_error(&self.def.command[0], &error))?;
        // A user tool's output is JSON for the model; what it created is
        // removed all the same.
        let _ = launched.undo_protected();
        let code = finished.ending.exit_code();
        Ok(match read_result(name, timeout, &finished) {
            Ok(output) => output.with_exit_code(code),
            Err(error) => {
                let status = match finished.ending.status() {
                    CallStatus::Ok => CallStatus::Failed,
                    stopped => stopped,
                };
                ToolOutput::error(&error)
                    .with_status(status)
                    .with_exit_code(code)
            }
        })
    }
}

/// The one JSON value a user tool printed, or why there is none.
fn read_result(name: &str, timeout: u64, finished: &Finished) -> Result<ToolOutput, ToolError> {
    let stderr_hint = || {
        let text = finished.stderr.text.trim();
        if text.is_empty() {
            String::new()
        } else {
            format!("; stderr: {text}")
        }
    };
    match finished.ending {
        Ending::Exited(0) => {}
        Ending::TimedOut => {
            return Err(ToolError::failed(
                format!("user tool `{name}` timed out after {timeout} s and was killed"),
                "try smaller input, or ask the user to raise timeoutSec in tools.json",
            ));
        }
        other => {
            return Err(ToolError::failed(
                format!(
                    "user tool `{name}` failed with exit code {}{}",
                    other.exit_code(),
                    stderr_hint()
                ),
                "check the arguments against the tool's schema, or report the failure to the user",
            ));
        }
    }
    if finished.stdout.truncated {
        return Err(ToolError::failed(
            format!(
                "user tool `{name}` printed more output than oy keeps ({} bytes)",
                process::STREAM_LIMIT.max_bytes
            ),
            "ask for less data, or ask the user to make the tool's output smaller",
        ));
    }
    let value: Value = serde_json::from_str(finished.stdout.text.trim()).map_err(|error| {
        ToolError::failed(
            format!(
                "user tool `{name}` did not print one JSON value on stdout ({error}){}",
                stderr_hint()
            ),
            "report this to the user: the tool in tools.json must print JSON",
        )
    })?;
    Ok(ToolOutput::ok(value.to_string()))
}

/// The arguments must be an object holding every required field.
fn check_required(
    tool: &str,
    schema: &Value,
    args: &Value,
    example: &str,
) -> Result<(), ToolError> {
    let invalid = |problem: String| ToolError::InvalidArguments {
        tool: tool.to_owned(),
        problem,
        example: example.to_owned(),
    };
    let Some(object) = args.as_object() else {
        return Err(invalid("expected a JSON object".to_owned()));
    };
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    if let Some(missing) = required.iter().find(|field| !object.contains_key(**field)) {
        return Err(invalid(format!("missing required field `{missing}`")));
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    let known = schema.get("properties").and_then(Value::as_object);
    if closed
        && let Some(unknown) = object
            .keys()
            .find(|key| !known.is_some_and(|known| known.contains_key(*key)))
    {
        return Err(invalid(format!("unknown field `{unknown}`")));
    }
    Ok(())
}

/// `{"field": <placeholder>}` for each required field of `schema`: the
/// example a tool error shows for arguments that do not parse (user tools
/// and MCP tools, whose schemas are not oy's own).
pub fn example_arguments(schema: &Value) -> String {
    let mut example = serde_json::Map::new();
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for field in required.iter().filter_map(Value::as_str) {
            let kind = schema
                .get("properties")
                .and_then(|p| p.get(field))
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("string");
            let placeholder = match kind {
                "integer" | "number" => Value::from(1),
                "boolean" => Value::Bool(true),
                "array" => Value::Array(Vec::new()),
                "object" => Value::Object(serde_json::Map::new()),
                _ => Value::from("..."),
            };
            example.insert(field.to_owned(), placeholder);
        }
    }
    Value::Object(example).to_string()
}
