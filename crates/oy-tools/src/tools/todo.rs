//! `todo`: the session's plan, in memory; `persist` also writes `TODO.md`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::args::parse_args;
use crate::context::Invocation;
use crate::diff::{DiffWriter, LazyDiff};
use crate::error::ToolError;
use crate::output::{ChangeSummary, ToolOutput};
use crate::protected::{Change, with_reason};
use crate::registry::Tool;
use crate::session_allow::Subject;
use crate::spec::{Effect, LazySpec, ToolSpec};
use crate::state::{TodoItem, TodoStatus};
use crate::tools::seen::Seen;

/// Arguments of `todo`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TodoArgs {
    /// New plan (replaces the old); omit to read it.
    #[serde(default)]
    items: Option<Vec<TodoItem>>,
    /// Also write TODO.md (a file change).
    #[serde(default)]
    persist: bool,
}

/// The `todo` tool.
pub struct TodoTool {
    spec: LazySpec,
}

impl TodoTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<TodoArgs>(
                "todo",
                "Set (items) or show the session plan. persist=true also writes TODO.md.",
                Effect::Read,
            ),
        }
    }
}

impl Default for TodoTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for TodoTool {
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
        r#"{"items":[{"text":"write the test","status":"in_progress"}]}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: TodoArgs = parse_args("todo", args, self.example())?;
        let plan = {
            let mut state = call.ctx().state();
            if let Some(mut items) = args.items {
                for (index, item) in items.iter_mut().enumerate() {
                    if item.id.is_none() {
                        item.id = Some((index + 1).to_string());
                    }
                }
                state.todos = items;
            }
            render(&state.todos)
        };
        if !args.persist {
            return Ok(ToolOutput::ok(plan));
        }
        let ws = call.workspace();
        let path = ws.path("TODO.md")?;
        let content = format!("# TODO\n\n{plan}");
        let (effect, why) = call.effect_of(&[Change::Write(&path)])?;
        let seen = Seen::now(ws, &path)?;
        let old = ws.read_text(&path, 1024 * 1024).ok();
        let summary = with_reason("write the plan to TODO.md".to_owned(), why.as_deref());
        let diff = LazyDiff::new(|diff: &mut DiffWriter| {
            diff.file("TODO.md", old.as_deref(), Some(&content));
        });
        call.authorize_as(&Subject::FileChange, effect, summary, || diff.preview())?;
        seen.unchanged(ws, &path)?;
        let outcome = ws.write(&path, content.as_bytes())?;
        let diff = call.event_diff(diff);
        Ok(ToolOutput::changed(
            format!("{plan}(saved to TODO.md)\n"),
            ChangeSummary {
                files: vec!["TODO.md".to_owned()],
                bytes_written: outcome.bytes_written,
            },
        )
        .with_diff(diff))
    }
}

fn render(items: &[TodoItem]) -> String {
    if items.is_empty() {
        return "(no plan yet)\n".to_owned();
    }
    let mut out = String::new();
    for item in items {
        let mark = match item.status {
            TodoStatus::Pending => "[ ]",
            TodoStatus::InProgress => "[~]",
            TodoStatus::Done => "[x]",
        };
        let id = item.id.as_deref().unwrap_or("-");
        out.push_str(&format!("- {mark} {id}. {}\n", item.text.trim()));
    }
    out
}
