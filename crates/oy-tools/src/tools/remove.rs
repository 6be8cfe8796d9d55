//! `remove`: delete a file, a link (never its target) or a directory.

use oy_boundary::{FileKind, Workspace, WorkspacePath};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::approval::Preview;
use crate::args::parse_args;
use crate::context::Invocation;
use crate::diff::event_file_diff;
use crate::error::ToolError;
use crate::output::{ChangeSummary, ToolOutput};
use crate::protected::{Change, with_reason};
use crate::registry::Tool;
use crate::spec::{Effect, LazySpec, ToolSpec};
use crate::tools::read::EDITABLE_BYTES;

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
    spec: LazySpec,
}

impl RemoveTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<RemoveArgs>(
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
        self.spec.get()
    }

    fn name(&self) -> &str {
        self.spec.name()
    }

    fn effect(&self) -> Effect {
        self.spec.effect()
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
        let shown = path.to_text();
        // Read now, while it is there: the event shows what was deleted
        // (when a sink would show it).
        let diff = call
            .ctx()
            .wants_diffs()
            .then(|| deletion_diff(ws, &path, &shown, meta.kind, args.recursive));
        let kind = ws.remove(&path, args.recursive)?;
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
        )
        .with_diff(diff))
    }
}

/// The diff of a removal: every line of a text file as deleted, else the
/// file header and one line naming what went.
fn deletion_diff(
    ws: &Workspace,
    path: &WorkspacePath,
    shown: &str,
    kind: FileKind,
    recursive: bool,
) -> String {
    let text = (kind == FileKind::File)
        .then(|| ws.read_bytes(path, EDITABLE_BYTES).ok())
        .flatten()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .filter(|text| !text.contains('\0'));
    match text {
        Some(text) => event_file_diff(shown, Some(&text), None),
        None => {
            let what = match kind {
                FileKind::Directory if recursive => {
                    "directory removed with its contents".to_owned()
                }
                FileKind::File => "file removed (binary or too large to show)".to_owned(),
                other => format!("{other} removed"),
            };
            format!("--- a/{shown}\n+++ /dev/null\n({what})\n")
        }
    }
}
