//! `remove`: delete a file, a link (never its target) or a directory.

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
use crate::spec::{Effect, ToolSpec};

/// Arguments of `remove`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RemoveArgs {
    path: String,
    /// Needed for a non-empty directory.
    #[serde(default)]
    recursive: bool,
}

/// The `remove` tool.
pub struct RemoveTool {
    spec: ToolSpec,
}

impl RemoveTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec::new::<RemoveArgs>(
                "remove",
                "Delete a file, symlink (not its target) or directory. Never the root.",
                Effect::WorkspaceWrite,
            ),
        }
    }
}

impl Default for RemoveTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for RemoveTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn example(&self) -> &'static str {
        r#"{"path":"build/tmp.txt"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: RemoveArgs = parse_args("remove", args, self.example())?;
        let ws = call.workspace();
        let path = ws.path(&args.path)?;
        let meta = ws.symlink_metadata(&path)?;
        let (effect, why) = call.effect_of(&[Change::Remove(&path)])?;
        let summary = with_reason(
            format!(
                "remove {} {path}{}",
                meta.kind,
                if args.recursive { " recursively" } else { "" }
            ),
            why.as_deref(),
        );
        call.authorize(effect, summary.clone(), || {
            Preview::Summary(summary.clone())
        })?;
        let kind = ws.remove(&path, args.recursive)?;
        let shown = path.to_text();
        {
            let mut state = call.ctx().state();
            let prefix = format!("{shown}/");
            state
                .reads
                .retain(|read, _| read != &shown && !read.starts_with(&prefix));
        }
        Ok(ToolOutput::changed(
            format!("removed {kind} {shown}"),
            ChangeSummary {
                files: vec![shown],
                bytes_written: 0,
            },
        ))
    }
}
