//! `list`: workspace paths, breadth-first and sorted, optionally filtered by a glob.

use globset::{GlobBuilder, GlobMatcher};
use std::sync::Mutex;

use oy_boundary::{FileKind, WalkControl, WalkOptions, WorkspacePath};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::args::{count, dot, parse_args};
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::registry::Tool;
use crate::spec::{Effect, LazySpec, ToolSpec};

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
    spec: LazySpec,
}

impl ListTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<ListArgs>(
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
        self.spec.get()
    }

    fn name(&self) -> &str {
        self.spec.name()
    }

    fn effect(&self) -> Effect {
        self.spec.effect()
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
        // Rows are filtered on the walker's threads; one sort after. The
        // glob is matched on the path as it is, and only a kept entry
        // becomes text. Only the files in the window shown cost the
        // `fstatat` that finds their execute bit: after the sort, or, when
        // the window holds every row the walk can give, on the walker's
        // threads as the files are found (relative to their directory's
        // handle), where the stats share the walk's threads.
        let every_row_shown = args.offset == 0 && args.limit >= MAX_WALKED;
        // Rows stay small for the sort; a row's path (needed only to find
        // its execute bit later) waits in a side table, by index.
        let rows = Mutex::new((Vec::new(), Vec::new()));
        let walk = ws.walk_parallel(&options, |entry| {
            let keep = matcher.as_ref().is_none_or(|matcher| {
                let path = entry.path.as_path();
                matcher.is_match(path.strip_prefix(below).unwrap_or(path))
            });
            if keep {
                let text = entry.path.to_text();
                let executable = (every_row_shown && entry.kind == FileKind::File)
                    .then(|| ws.walked_is_executable(&entry));
                if let Ok(mut rows) = rows.lock() {
                    let (rows, paths) = &mut *rows;
                    let path = (entry.kind == FileKind::File && executable.is_none()).then(|| {
                        paths.push(entry.path);
                        paths.len() - 1
                    });
                    rows.push(Row {
                        depth: entry.depth,
                        text,
                        kind: entry.kind,
                        executable,
                        path,
                    });
                }
            }
            WalkControl::Continue
        })?;
        let (mut entries, paths) = rows.into_inner().unwrap_or_default();
        let total = entries.len();
        // Breadth-first: shallow entries first, each level in path order.
        // Only the rows up to the window's end need to be in order.
        let order = |a: &Row, b: &Row| a.depth.cmp(&b.depth).then_with(|| a.text.cmp(&b.text));
        let end = args.offset.saturating_add(args.limit).min(total);
        if end < total {
            if let Some(last) = end.checked_sub(1) {
                entries.select_nth_unstable_by(last, order);
            }
            entries.truncate(end);
        }
        entries.sort_unstable_by(order);
        let window = entries
            .get(args.offset.min(entries.len())..)
            .unwrap_or_default();
        let unknown = |row: &&Row| row.kind == FileKind::File && row.executable.is_none();
        let files: Vec<&WorkspacePath> = window
            .iter()
            .filter(unknown)
            .filter_map(|row| row.path.and_then(|at| paths.get(at)))
            .collect();
        let mut found = ws.are_executable(&files).into_iter();
        let mut out = String::new();
        for row in window {
            let executable = match row.executable {
                Some(known) => known,
                None if row.kind == FileKind::File => found.next().unwrap_or(false),
                None => false,
            };
            out.push_str(&crate::shown::shown_name(&row.text));
            out.push_str(match row.kind {
                FileKind::Directory => "/",
                FileKind::Symlink => "@",
                FileKind::File if executable => "*",
                _ => "",
            });
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

/// One kept entry of the listing.
struct Row {
    depth: usize,
    text: String,
    kind: FileKind,
    /// A file's execute bit, when it was found during the walk.
    executable: Option<bool>,
    /// Where the path is kept, when the execute bit is still to be found.
    path: Option<usize>,
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
