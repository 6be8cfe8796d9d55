//! `search`: lines matching a regex (or literal) across the workspace, as
//! `file:line:text`, found with ripgrep's searcher over the boundary's
//! parallel, gitignore-aware walker.
//!
//! Output is deterministic although the walk is parallel and unordered: the
//! result is always the `limit` smallest matches by (path, line) — never
//! "whichever files a thread reached first". Work is still bounded: once
//! `limit + 1` matches are held, a file whose path sorts after the largest
//! held match cannot contribute and is skipped unopened, and no file is
//! searched past `limit + 1` matches. Holding one extra match is what lets
//! the output say "limit reached" exactly when more matches exist.
//!
//! Each file is opened with `Workspace::open_walked`, relative to the
//! directory handle the walker already holds (one `openat2` and an
//! `fstat`), with the same refusals as any boundary read: no FIFO, device
//! or link out of the root, and never a blocking open.

use std::cell::RefCell;
use std::collections::BinaryHeap;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkFinish, SinkMatch};
use oy_boundary::{
    BoundaryError, FileKind, WalkControl, WalkEntry, WalkOptions, Workspace, WorkspacePath,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::args::{count, dot, parse_args, yes};
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::registry::Tool;
use crate::spec::{Effect, LazySpec, ToolSpec};

/// Lines longer than this many characters are cut with a marker.
const MAX_LINE_CHARS: usize = 300;
/// When a long line's first match starts past the cut, the shown window
/// starts this many characters before the match.
const WINDOW_LEAD_CHARS: usize = 60;
/// `limit` is clamped to this (the output cap would cut more anyway).
const MAX_LIMIT: usize = 10_000;
/// A search never walks more entries than this.
const MAX_WALKED: usize = 1_000_000;
/// A file with a single line longer than this is not searched (bounds memory).
const MAX_LINE_BUFFER: usize = 16 * 1024 * 1024;

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Regex (Rust syntax), or plain text with `literal`.
    pattern: String,
    #[serde(default = "dot")]
    path: String,
    /// Globs on paths below `path`, e.g. ["*.rs"].
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    literal: bool,
    #[serde(default = "yes")]
    case_sensitive: bool,
    #[serde(default = "count::<200>")]
    limit: usize,
    /// Count matching lines per file (`path:N`, as `rg -c`) instead of
    /// printing them; `limit` then counts files. Left out of the schema,
    /// so it costs the model no bytes: it is for `oy tool` and benchmarks
    /// (docs/tools.md, "Arguments left out of the schemas").
    #[serde(default)]
    #[schemars(skip)]
    count: bool,
}

/// The `search` tool.
pub struct SearchTool {
    spec: LazySpec,
}

impl SearchTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<SearchArgs>(
                "search",
                "Search file contents with a regex (or literal); prints file:line:text. Honours .gitignore.",
                Effect::Read,
            ),
        }
    }
}

impl Default for SearchTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for SearchTool {
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
        r#"{"pattern":"fn main","path":"src","include":["*.rs"]}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: SearchArgs = parse_args("search", args, self.example())?;
        if args.limit == 0 {
            return Err(ToolError::failed(
                "`limit` must be at least 1",
                "set `limit` to the number of matches you need, e.g. 200",
            ));
        }
        let limit = args.limit.min(MAX_LIMIT);
        let matcher = build_matcher(&args)?;
        let include = (!args.include.is_empty())
            .then(|| globs(&args.include))
            .transpose()?;
        let ws = call.workspace();
        let start = ws.path(&args.path)?;
        let mut options = WalkOptions::new(start.clone());
        options.max_entries = Some(MAX_WALKED);
        let hits = Hits::new(limit);
        let failed = AtomicUsize::new(0);
        // Set when `path` itself names a FIFO, socket or device.
        let special_start = Mutex::new(None);
        let walk = ws.walk_parallel(&options, |entry| {
            if entry.kind == FileKind::File {
                if included(include.as_ref(), &start, &entry) {
                    search_entry(ws, &matcher, &hits, &failed, args.count, entry);
                }
            } else if entry.depth == 0 {
                *special_start.lock().unwrap_or_else(PoisonError::into_inner) = Some(entry.kind);
            }
            WalkControl::Continue
        })?;
        let special_start = special_start
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(kind) = special_start {
            return Err(BoundaryError::NotAFile {
                path: start.to_text(),
                kind,
            }
            .into());
        }
        let (hits, more) = hits.into_sorted();
        let mut out = String::new();
        for hit in &hits {
            out.push_str(&crate::shown::shown_name(&hit.path.to_text()));
            out.push(':');
            // In count mode a file's one hit carries its count as its line.
            out.push_str(&hit.line.to_string());
            if !args.count {
                out.push(':');
                out.push_str(&hit.text);
            }
            out.push('\n');
        }
        if out.is_empty() {
            out.push_str("(no matches)\n");
        }
        if more {
            let what = if args.count { "files" } else { "matches" };
            out.push_str(&format!(
                "[limit of {limit} {what} reached; narrow the pattern or path]\n"
            ));
        }
        let failed = failed.load(Ordering::Relaxed) + walk.unreadable;
        if failed > 0 {
            out.push_str(&format!(
                "[{failed} files or directories could not be read]\n"
            ));
        }
        if walk.truncated {
            out.push_str(&format!(
                "[walk stopped after {MAX_WALKED} entries; narrow `path` or `include`]\n"
            ));
        }
        Ok(ToolOutput::ok(out).with_truncated(more || walk.truncated))
    }
}

fn build_matcher(args: &SearchArgs) -> Result<RegexMatcher, ToolError> {
    RegexMatcherBuilder::new()
        .case_insensitive(!args.case_sensitive)
        .fixed_strings(args.literal)
        // A line-oriented matcher lets the searcher scan whole buffers
        // instead of line by line; a NUL could never match (binary quits).
        .line_terminator(Some(b'\n'))
        .ban_byte(Some(b'\0'))
        .build(&args.pattern)
        .map_err(|e| {
            let recovery = if args.literal {
                "remove newline and NUL characters from the pattern"
            } else {
                "fix the regex (escape metacharacters like ( [ { . * + ? with \\), or set `literal: true` to search for the text as written"
            };
            ToolError::failed(format!("invalid pattern `{}`: {e}", args.pattern), recovery)
        })
}

fn globs(patterns: &[String]) -> Result<GlobSet, ToolError> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        // A bare name pattern ("*.rs") matches at any depth, as users expect.
        let full = if pattern.contains('/') {
            pattern.clone()
        } else {
            format!("**/{pattern}")
        };
        let glob = GlobBuilder::new(&full)
            .literal_separator(true)
            .build()
            .map_err(|e| {
                ToolError::failed(
                    format!("invalid include glob `{pattern}`: {e}"),
                    "use globs such as [\"*.rs\"] or [\"src/**/*.toml\"]",
                )
            })?;
        set.add(glob);
    }
    set.build().map_err(|e| {
        ToolError::failed(
            format!("invalid include globs: {e}"),
            "use globs such as [\"*.rs\"] or [\"src/**/*.toml\"]",
        )
    })
}

/// True when `entry` passes the include globs, matched against its path
/// below `start` (its name when `start` is the file itself).
fn included(include: Option<&GlobSet>, start: &WorkspacePath, entry: &WalkEntry) -> bool {
    let Some(include) = include else {
        return true;
    };
    let path = entry.path.as_path();
    let below = if start.is_root() {
        path
    } else {
        path.strip_prefix(start.as_path()).unwrap_or(path)
    };
    if below.as_os_str().is_empty() {
        return entry
            .path
            .file_name()
            .is_some_and(|name| include.is_match(Path::new(name)));
    }
    include.is_match(below)
}

thread_local! {
    /// One searcher (and its line buffer) per walker thread, reused across
    /// files. The buffer grows to the longest line seen, at most
    /// [`MAX_LINE_BUFFER`], and is kept for the thread's life.
    static SEARCHER: RefCell<Searcher> = RefCell::new(new_searcher());
}

fn new_searcher() -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(b'\0'))
        .heap_limit(Some(MAX_LINE_BUFFER))
        .build()
}

/// Searches one walked file and merges its matches into `hits` (with
/// `count`, one hit for the file whose line is its number of matching
/// lines).
fn search_entry(
    ws: &Workspace,
    matcher: &RegexMatcher,
    hits: &Hits,
    failed: &AtomicUsize,
    count: bool,
    entry: WalkEntry,
) {
    if !hits.could_contribute(&entry.path) {
        return;
    }
    // The boundary refuses FIFOs, devices and escapes without blocking.
    let Ok(file) = ws.open_walked(&entry) else {
        failed.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let mut sink = FileSink {
        matcher,
        max: hits.keep,
        lines: Vec::new(),
        counted: count.then_some(0),
        binary: false,
    };
    let result = SEARCHER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut searcher) => searcher.search_file(matcher, &file, &mut sink),
        Err(_) => new_searcher().search_file(matcher, &file, &mut sink),
    });
    if result.is_err() {
        failed.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let lines = match sink.counted {
        Some(0) => return,
        Some(counted) => vec![(counted, String::new())],
        None => sink.lines,
    };
    if sink.binary || lines.is_empty() {
        return;
    }
    hits.merge(Arc::new(entry.path), lines);
}

/// Collects one file's matching lines, already cut for display.
struct FileSink<'a> {
    matcher: &'a RegexMatcher,
    max: usize,
    lines: Vec<(u64, String)>,
    /// In count mode, the matching lines so far (nothing is kept).
    counted: Option<u64>,
    binary: bool,
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        if let Some(counted) = &mut self.counted {
            *counted += 1;
            return Ok(true);
        }
        let number = mat.line_number().unwrap_or(0);
        let text = display_line(self.matcher, mat.bytes());
        self.lines.push((number, text));
        Ok(self.lines.len() < self.max)
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        // Matches seen before the first NUL are dropped too: binary files are skipped.
        self.binary = true;
        Ok(false)
    }

    fn finish(&mut self, _searcher: &Searcher, finish: &SinkFinish) -> Result<(), io::Error> {
        self.binary |= finish.binary_byte_offset().is_some();
        Ok(())
    }
}

/// A matching line as the model sees it: lossy UTF-8, no line terminator,
/// at most [`MAX_LINE_CHARS`] characters, windowed around the first match
/// when that starts past the cut.
fn display_line(matcher: &RegexMatcher, bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    let Some((cut, _)) = text.char_indices().nth(MAX_LINE_CHARS) else {
        return text.into_owned();
    };
    let match_start = matcher
        .find(text.as_bytes())
        .ok()
        .flatten()
        .map_or(0, |m| floor_boundary(&text, m.start()));
    let omitted = |shown: usize| text.len() - shown;
    if text[..match_start].chars().count() + WINDOW_LEAD_CHARS <= MAX_LINE_CHARS {
        let head = &text[..cut];
        return format!(
            "{head} … [line truncated: {} bytes omitted]",
            omitted(head.len())
        );
    }
    let from = text[..match_start]
        .char_indices()
        .rev()
        .nth(WINDOW_LEAD_CHARS - 1)
        .map_or(0, |(i, _)| i);
    let to = text[from..]
        .char_indices()
        .nth(MAX_LINE_CHARS)
        .map_or(text.len(), |(i, _)| from + i);
    let window = &text[from..to];
    format!(
        "… {window} … [line truncated: {} bytes omitted]",
        omitted(window.len())
    )
}

fn floor_boundary(text: &str, mut index: usize) -> usize {
    while index > 0 && !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// One matching line.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Hit {
    path: Arc<WorkspacePath>,
    line: u64,
    text: String,
}

/// The `keep` smallest matches seen so far (a max-heap, so the largest is
/// evicted first), shared by the walker threads.
struct Hits {
    keep: usize,
    heap: Mutex<BinaryHeap<Hit>>,
    /// Set once `keep` matches are held; before that nothing can be pruned.
    full: AtomicBool,
}

impl Hits {
    /// Holds `limit + 1` matches so that "more exist" is known exactly.
    fn new(limit: usize) -> Self {
        Self {
            keep: limit.saturating_add(1),
            heap: Mutex::new(BinaryHeap::new()),
            full: AtomicBool::new(false),
        }
    }

    /// False when every match `path` could hold sorts after the ones kept.
    fn could_contribute(&self, path: &WorkspacePath) -> bool {
        if !self.full.load(Ordering::Acquire) {
            return true;
        }
        let heap = self.heap.lock().unwrap_or_else(PoisonError::into_inner);
        heap.peek().is_none_or(|largest| *path < *largest.path)
    }

    /// Adds one file's matches (in line order), evicting the largest beyond `keep`.
    fn merge(&self, path: Arc<WorkspacePath>, lines: Vec<(u64, String)>) {
        let mut heap = self.heap.lock().unwrap_or_else(PoisonError::into_inner);
        for (line, text) in lines {
            let hit = Hit {
                path: Arc::clone(&path),
                line,
                text,
            };
            if heap.len() >= self.keep {
                if heap.peek().is_some_and(|largest| hit >= *largest) {
                    // This file's later lines sort after this one too.
                    break;
                }
                heap.pop();
            }
            heap.push(hit);
        }
        if heap.len() >= self.keep {
            self.full.store(true, Ordering::Release);
        }
    }

    /// The kept matches in (path, line) order, cut to the limit, and
    /// whether more matches exist.
    fn into_sorted(self) -> (Vec<Hit>, bool) {
        let heap = self
            .heap
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let mut hits = heap.into_sorted_vec();
        let more = hits.len() >= self.keep;
        hits.truncate(self.keep - 1);
        (hits, more)
    }
}
