//! `move`: rename a file or directory, both ends inside the root.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::approval::Preview;
use crate::args::parse_args;
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::{ChangeSummary, ToolOutput};
use crate::protected::{Change, with_reason};
use crate::registry::Tool;
use crate::session_allow::Subject;
use crate::spec::{Effect, LazySpec, ToolSpec};

/// Arguments of `move`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MoveArgs {
    from: String,
    to: String,
    /// Replace an existing destination.
    #[serde(default)]
    overwrite: bool,
}

/// The `move` tool.
pub struct MoveTool {
    spec: LazySpec,
}

impl MoveTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<MoveArgs>(
                "move",
                "Move or rename a file or directory (missing parent dirs are created).",
                Effect::WorkspaceWrite,
            ),
        }
    }
}

impl Default for MoveTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for MoveTool {
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
        r#"{"from":"src/old.rs","to":"src/new.rs"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: MoveArgs = parse_args("move", args, self.example())?;
        let ws = call.workspace();
        let from = ws.path(&args.from)?;
        let to = ws.path(&args.to)?;
        // Fail before asking when the source is missing.
        ws.symlink_metadata(&from)?;
        let (effect, why) = call.effect_of(&[Change::Move {
            from: &from,
            to: &to,
        }])?;
        let summary = with_reason(
            format!(
                "move {from} -> {to}{}",
                if args.overwrite { " (overwrite)" } else { "" }
            ),
            why.as_deref(),
        );
        call.authorize_as(&Subject::FileChange, effect, summary.clone(), || {
            Preview::Summary(summary.clone())
        })?;
        ws.rename(&from, &to, args.overwrite)?;
        let (from_text, to_text) = (from.to_text(), to.to_text());
        {
            let mut state = call.ctx().state();
            if let Some(digest) = state.reads.remove(&from_text) {
                state.reads.insert(to_text.clone(), digest);
            }
        }
        // What a diff says of a rename (git's header lines).
        let diff = format!("rename from {from_text}\nrename to {to_text}\n");
        Ok(ToolOutput::changed(
            format!("moved {from_text} -> {to_text}"),
            ChangeSummary {
                files: vec![from_text, to_text],
                bytes_written: 0,
            },
        )
        .with_diff(diff))
    }
}
