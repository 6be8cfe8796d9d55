//! `write`: create or overwrite a file atomically, or append to it.

use oy_boundary::BoundaryError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::args::parse_args;
use crate::context::Invocation;
use crate::diff::{DiffWriter, LazyDiff};
use crate::error::ToolError;
use crate::output::{ChangeSummary, ToolOutput};
use crate::protected::{Change, shown_with_target, with_reason};
use crate::registry::Tool;
use crate::session_allow::Subject;
use crate::spec::{Effect, LazySpec, ToolSpec};
use crate::tools::read::EDITABLE_BYTES;
use crate::tools::seen::Seen;

/// Arguments of `write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    path: String,
    content: String,
    /// Append instead of replacing.
    #[serde(default)]
    append: bool,
}

/// The `write` tool.
pub struct WriteTool {
    spec: LazySpec,
}

impl WriteTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<WriteArgs>(
                "write",
                "Create or overwrite a file atomically (parent dirs created), or append. Prefer replace/patch for edits.",
                Effect::WorkspaceWrite,
            ),
        }
    }
}

impl Default for WriteTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for WriteTool {
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
        r#"{"path":"notes/todo.txt","content":"hello\n"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: WriteArgs = parse_args("write", args, self.example())?;
        let ws = call.workspace();
        let path = ws.path(&args.path)?;
        let shown = path.to_text();
        let (effect, why) = call.effect_of(&[Change::Write(&path)])?;
        let (old, seen) = match ws.read_bytes(&path, EDITABLE_BYTES) {
            Ok(bytes) => {
                let seen = Seen::of_bytes(&bytes);
                // Binary: still writable, just not previewable as text.
                let text = String::from_utf8(bytes)
                    .ok()
                    .filter(|text| !text.contains('\0'))
                    .unwrap_or_else(|| String::from("(binary file)\n"));
                (Some(text), seen)
            }
            Err(BoundaryError::NotFound { .. }) => (None, Seen::Missing),
            Err(BoundaryError::TooLarge { .. }) => {
                (Some(String::from("(large file)\n")), Seen::now(ws, &path)?)
            }
            Err(other) => return Err(other.into()),
        };
        let new_text = match (&old, args.append) {
            (Some(old), true) => format!("{old}{}", args.content),
            _ => args.content.clone(),
        };
        let verb = match (&old, args.append) {
            (None, _) => "create",
            (Some(_), true) => "append to",
            (Some(_), false) => "overwrite",
        };
        let diff = LazyDiff::new(|diff: &mut DiffWriter| {
            diff.file(&shown, old.as_deref(), Some(&new_text));
        });
        call.authorize_as(
            &Subject::FileChange,
            effect,
            with_reason(
                format!(
                    "{verb} {} ({} bytes)",
                    shown_with_target(ws, &path),
                    args.content.len()
                ),
                why.as_deref(),
            ),
            || diff.preview(),
        )?;
        seen.unchanged(ws, &path)?;
        let outcome = if args.append {
            ws.append(&path, args.content.as_bytes())?
        } else {
            ws.write(&path, args.content.as_bytes())?
        };
        if let Ok(bytes) = ws.read_bytes(&path, EDITABLE_BYTES) {
            call.ctx().state().remember(&shown, &bytes);
        }
        let done = if outcome.created {
            "created"
        } else if args.append {
            "appended to"
        } else {
            "overwrote"
        };
        let diff = call.event_diff(diff);
        Ok(ToolOutput::changed(
            format!("{done} {shown} ({} bytes written)", outcome.bytes_written),
            ChangeSummary {
                files: vec![shown],
                bytes_written: outcome.bytes_written,
            },
        )
        .with_diff(diff))
    }
}
