//! `replace`: exact string replacement in a file read earlier in the session.

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
use crate::state::content_digest;
use crate::tools::read::EDITABLE_BYTES;
use crate::tools::seen::Seen;

/// How many match lines an ambiguity error lists.
const MAX_LISTED: usize = 20;

/// Arguments of `replace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReplaceArgs {
    path: String,
    /// Exact text to find.
    old: String,
    new: String,
    /// Replace every occurrence instead of exactly one.
    #[serde(default)]
    replace_all: bool,
}

/// The `replace` tool.
pub struct ReplaceTool {
    spec: LazySpec,
}

impl ReplaceTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<ReplaceArgs>(
                "replace",
                "Replace exact text in a file you have read this session. `old` must match once unless replace_all.",
                Effect::WorkspaceWrite,
            ),
        }
    }
}

impl Default for ReplaceTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for ReplaceTool {
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
        r#"{"path":"src/lib.rs","old":"fn old_name(","new":"fn new_name("}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: ReplaceArgs = parse_args("replace", args, self.example())?;
        let ws = call.workspace();
        let path = ws.path(&args.path)?;
        let shown = path.to_text();
        if args.old.is_empty() {
            return Err(ToolError::failed(
                "`old` is empty",
                "copy the exact text to replace from a `read` of the file",
            ));
        }
        // Boundary errors (escapes, missing files) and protected paths come
        // before the read lock.
        let bytes = ws.read_bytes(&path, EDITABLE_BYTES)?;
        let (effect, why) = call.effect_of(&[Change::Write(&path)])?;
        let seen_now = Seen::of_bytes(&bytes);
        let Some(seen) = call.ctx().state().seen(&shown).map(str::to_owned) else {
            return Err(ToolError::failed(
                format!("{shown} has not been read in this session"),
                format!("read {shown} first, then retry the replace with text copied from it"),
            ));
        };
        if content_digest(&bytes) != seen {
            return Err(ToolError::failed(
                format!("{shown} changed since it was last read"),
                format!("read {shown} again and base the replace on its current text"),
            ));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            ToolError::Boundary(oy_boundary::BoundaryError::NotUtf8 {
                path: shown.clone(),
                byte_offset: e.utf8_error().valid_up_to() as u64,
            })
        })?;
        let (old, new) = match_line_endings(&text, &args.old, &args.new);
        let starts: Vec<usize> = text.match_indices(old.as_str()).map(|(at, _)| at).collect();
        if starts.is_empty() {
            return Err(not_found(&shown, &text, &args.old));
        }
        if starts.len() > 1 && !args.replace_all {
            let lines: Vec<String> = starts
                .iter()
                .take(MAX_LISTED)
                .map(|&at| line_of(&text, at).to_string())
                .collect();
            return Err(ToolError::failed(
                format!(
                    "`old` occurs {} times in {shown} (lines {})",
                    starts.len(),
                    lines.join(", ")
                ),
                "add surrounding lines to `old` so it matches once, or set replace_all to true",
            ));
        }
        let updated = text.replace(old.as_str(), &new);
        let first_line = line_of(&text, starts[0]);
        let diff = LazyDiff::new(|diff: &mut DiffWriter| {
            diff.file(&shown, Some(&text), Some(&updated));
        });
        call.authorize_as(
            &Subject::FileChange,
            effect,
            with_reason(
                format!(
                    "replace {} occurrence(s) in {}",
                    starts.len(),
                    shown_with_target(ws, &path)
                ),
                why.as_deref(),
            ),
            || diff.preview(),
        )?;
        seen_now.unchanged(ws, &path)?;
        let outcome = ws.write(&path, updated.as_bytes())?;
        call.ctx().state().remember(&shown, updated.as_bytes());
        let diff = call.event_diff(diff);
        Ok(ToolOutput::changed(
            format!(
                "replaced {} occurrence(s) in {shown} (first at line {first_line})",
                starts.len()
            ),
            ChangeSummary {
                files: vec![shown],
                bytes_written: outcome.bytes_written,
            },
        )
        .with_diff(diff))
    }
}

/// Models usually send `\n`; a CRLF file keeps its CRLF.
fn match_line_endings(text: &str, old: &str, new: &str) -> (String, String) {
    let file_is_crlf = text.contains("\r\n");
    if file_is_crlf && old.contains('\n') && !old.contains("\r\n") && !text.contains(old) {
        (old.replace('\n', "\r\n"), new.replace('\n', "\r\n"))
    } else {
        (old.to_owned(), new.to_owned())
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..byte]).count() + 1
}

/// Zero matches: point at lines that match the first line of `old` loosely.
fn not_found(shown: &str, text: &str, old: &str) -> ToolError {
    let first = old
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or(old)
        .trim();
    let near: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !first.is_empty() && line.trim() == first)
        .take(5)
        .map(|(index, _)| (index + 1).to_string())
        .collect();
    let recovery = if near.is_empty() {
        format!("`old` must be copied exactly from {shown}; read the relevant lines again")
    } else {
        format!(
            "the first line of `old` appears (ignoring indentation) at line(s) {}; read them and copy `old` exactly, whitespace included",
            near.join(", ")
        )
    };
    ToolError::failed(
        format!("`old` was not found in {shown} (0 matches)"),
        recovery,
    )
}
