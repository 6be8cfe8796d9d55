//! `list`: workspace paths, breadth-first and sorted, optionally filtered by a glob.

use globset::{GlobBuilder, GlobMatcher};
use std::sync::Mutex;

use oy_boundary::{FileKind, WalkControl, WalkOptions};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::args::{count, dot, parse_args};
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::registry::Tool;
use crate::spec::{Effect, ToolSpec};

/// A listing never walks more entries than this.
const MAX_WALKED: usize = 200_000;

/// Arguments of `list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default = "dot")]
    path: String,
    /// Glob on paths below `path`, e.g. "**/*.rs".
    #[serde(default)]
    pattern: Option<String>,
    /// Levels below `path` (default 2; unlimited with a pattern).
    #[serde(default)]
    depth: Option<usize>,
    #[serde(default)]
    offset: usize,
    #[serde(default = "count::<200>")]
    limit: usize,
}

/// The `list` tool.
pub struct ListTool {
    spec: ToolSpec,
}

impl ListTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec::new::<ListArgs>(
                "list",
                "List paths breadth-first, sorted; dirs end in /, symlinks @, executables *. Honours .gitignore. Use first.",
                Effect::Read,
            ),
        }
    }
}

impl Default for ListTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for ListTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn example(&self) -> &'static str {
        r#"{"path":"src","depth":2}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: ListArgs = parse_args("list", args, self.example())?;
        let ws = call.workspace();
        let start = ws.path(&args.path)?;
        let matcher = args.pattern.as_deref().map(glob).transpose()?;
        let depth = match (args.depth, &matcher) {
            (Some(depth), _) => Some(depth.max(1)),
            (None, Some(_)) => None,
            (None, None) => Some(2),
        };
        let mut options = WalkOptions::new(start.clone());
        options.max_depth = depth;
        options.max_entries = Some(MAX_WALKED);
        let below: &std::path::Path = if start.is_root() {
            std::path::Path::new("")
        } else {
            start.as_path()
        };
        // Rows are built and filtered on the walker's threads; one sort
        // after. The glob is matched on the path as it is; only a kept
        // entry becomes text, and only a kept file costs the `fstatat`
        // (relative to its directory handle) that finds its execute bit.
        let rows = Mutex::new(Vec::new());
        let walk = ws.walk_parallel(&options, |entry| {
            let keep = matcher.as_ref().is_none_or(|matcher| {
                let path = entry.path.as_path();
                matcher.is_match(path.strip_prefix(below).unwrap_or(path))
            });
            if keep {
                let marker = match entry.kind {
                    FileKind::Directory => "/",
                    FileKind::Symlink => "@",
                    FileKind::File if ws.walked_is_executable(&entry) => "*",
                    _ => "",
                };
                let text = entry.path.to_text();
                if let Ok(mut rows) = rows.lock() {
                    rows.push((entry.depth, text, marker));
                }
            }
            WalkControl::Continue
        })?;
        let mut entries = rows.into_inner().unwrap_or_default();
        // Breadth-first: shallow entries first, each level in path order.
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let total = entries.len();
        let mut out = String::new();
        for (_, text, marker) in entries.iter().skip(args.offset).take(args.limit) {
            out.push_str(text);
            out.push_str(marker);
            out.push('\n');
        }
        let shown = total.saturating_sub(args.offset).min(args.limit);
        if out.is_empty() {
            out.push_str(if total == 0 {
                "(no entries)\n"
            } else {
                "(offset is past the last entry)\n"
            });
        }
        let next = args.offset + shown;
        if next < total {
            out.push_str(&format!(
                "[limit reached: {} more entries; continue with offset={next}]\n",
                total - next
            ));
        }
        if walk.truncated {
            out.push_str(&format!(
                "[walk stopped after {MAX_WALKED} entries; narrow `path` or `pattern`]\n"
            ));
        }
        Ok(ToolOutput::ok(out).with_truncated(next < total || walk.truncated))
    }
}

fn glob(pattern: &str) -> Result<GlobMatcher, ToolError> {
    // A bare name pattern ("*.rs") matches at any depth, as users expect.
    let pattern = if pattern.contains('/') {
        pattern.to_owned()
    } else {
        format!("**/{pattern}")
    };
    GlobBuilder::new(&pattern)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| {
            ToolError::failed(
                format!("invalid glob `{pattern}`: {e}"),
                "use a glob such as \"*.rs\" or \"src/**/*.toml\"",
            )
        })
}
