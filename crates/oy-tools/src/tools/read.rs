//! `read`: numbered lines of one UTF-8 file, as a slice or as the indented
//! block around a line. Records what was seen for `replace`'s read lock: the
//! digest of the very bytes the lines came from, taken in the same read.

use oy_boundary::{BoundaryError, LineWindow, WorkspacePath};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::args::{count, parse_args};
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::registry::Tool;
use crate::spec::{Effect, LazySpec, ToolSpec};
use crate::state::{ContentDigest, content_digest};

/// Lines longer than this many characters are cut with a marker.
const MAX_LINE_CHARS: usize = 400;
/// Output stops before this many bytes and names the offset to continue from.
const MAX_OUTPUT_BYTES: usize = 60 * 1024;
/// Files up to this size get a digest for `replace`; larger ones cannot be replaced in.
pub(crate) const EDITABLE_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum ReadMode {
    #[default]
    Slice,
    Indentation,
}

/// Arguments of `read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    path: String,
    /// 1-based first line.
    #[serde(default = "count::<1>")]
    offset: usize,
    /// Max lines.
    #[serde(default = "count::<2000>")]
    limit: usize,
    /// slice: lines from offset; indentation: the indented block around offset.
    #[serde(default)]
    mode: ReadMode,
}

/// The `read` tool.
pub struct ReadTool {
    spec: LazySpec,
}

impl ReadTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<ReadArgs>(
                "read",
                "Read a UTF-8 file's numbered lines (line<TAB>text). Exact existing path only.",
                Effect::Read,
            ),
        }
    }
}

impl Default for ReadTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for ReadTool {
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
        r#"{"path":"src/main.rs","offset":1,"limit":200}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: ReadArgs = parse_args("read", args, self.example())?;
        let ws = call.workspace();
        let path = ws.path(&args.path)?;
        if args.limit == 0 {
            return Err(ToolError::failed(
                "`limit` must be at least 1",
                "set `limit` to the number of lines you need, e.g. 200",
            ));
        }
        let (text, digest) = match args.mode {
            ReadMode::Slice => read_slice(call, &path, args.offset, args.limit),
            ReadMode::Indentation => read_block(call, &path, args.offset, args.limit),
        }
        .map_err(|error| with_suggestions(call, &path, error))?;
        if let Some(digest) = digest {
            call.ctx().state().remember_digest(&path.to_text(), digest);
        }
        Ok(ToolOutput::ok(text))
    }
}

/// The text of a slice, and the digest of the whole file when it is small
/// enough to be edited and the state records reads (otherwise the file is
/// only streamed up to the window).
fn read_slice(
    call: &Invocation<'_>,
    path: &WorkspacePath,
    offset: usize,
    limit: usize,
) -> Result<(String, Option<String>), ToolError> {
    let window = LineWindow {
        offset: offset.max(1),
        limit,
        max_line_bytes: MAX_LINE_CHARS * 4,
        max_total_bytes: MAX_OUTPUT_BYTES,
    };
    let ws = call.workspace();
    let (slice, digest) = if call.ctx().state().records_reads() {
        let mut digest = ContentDigest::default();
        let (slice, whole) = ws.read_lines_whole(path, window, EDITABLE_BYTES, &mut |piece| {
            digest.update(piece);
        })?;
        (slice, whole.then(|| digest.finish()))
    } else {
        (ws.read_lines(path, window)?, None)
    };
    if slice.lines.is_empty() {
        return Ok((format!("({} is empty)", path), digest));
    }
    let mut out = String::new();
    for line in &slice.lines {
        push_line(&mut out, line.number, &line.text, line.omitted_bytes);
    }
    if let Some(next) = slice.next_offset() {
        let why = if slice.hit_byte_cap {
            "output cap reached"
        } else {
            "line limit reached"
        };
        out.push_str(&format!(
            "[{why}; more lines follow: continue with offset={next}]\n"
        ));
    }
    Ok((out, digest))
}

/// The block of lines at least as indented as the line at `offset`, with
/// the less-indented header above it and a closing line below it, and the
/// digest of the file it was cut from.
fn read_block(
    call: &Invocation<'_>,
    path: &WorkspacePath,
    offset: usize,
    limit: usize,
) -> Result<(String, Option<String>), ToolError> {
    let text = call.workspace().read_text(path, EDITABLE_BYTES)?;
    let lines: Vec<&str> = text.lines().collect();
    if offset == 0 || offset > lines.len() {
        return Err(BoundaryError::OffsetPastEnd {
            path: path.to_text(),
            offset,
            total_lines: lines.len(),
        }
        .into());
    }
    let blank = |i: usize| lines[i].trim().is_empty();
    let mut anchor = offset - 1;
    while anchor + 1 < lines.len() && blank(anchor) {
        anchor += 1;
    }
    let level = indent(lines[anchor]);
    let mut start = anchor;
    while start > 0 && (blank(start - 1) || indent(lines[start - 1]) >= level) {
        start -= 1;
    }
    if start > 0 && level > 0 {
        start -= 1; // the header line
    }
    let mut end = anchor;
    while end + 1 < lines.len() && (blank(end + 1) || indent(lines[end + 1]) >= level) {
        end += 1;
    }
    while end > anchor && blank(end) {
        end -= 1;
    }
    if end + 1 < lines.len() && level > 0 && indent(lines[end + 1]) < level {
        let closing = lines[end + 1].trim_start();
        if closing.starts_with(['}', ')', ']']) || closing.starts_with("end") {
            end += 1;
        }
    }
    let mut out = String::new();
    let last = end.min(start + limit - 1);
    for (index, line) in lines.iter().enumerate().take(last + 1).skip(start) {
        push_line(&mut out, index + 1, line, 0);
    }
    if last < end {
        out.push_str(&format!(
            "[block continues: lines {}-{}; read them with offset={}]\n",
            last + 2,
            end + 1,
            last + 2
        ));
    }
    let digest = call
        .ctx()
        .state()
        .records_reads()
        .then(|| content_digest(text.as_bytes()));
    Ok((out, digest))
}

fn indent(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

fn push_line(out: &mut String, number: usize, text: &str, omitted_bytes: u64) {
    out.push_str(&number.to_string());
    out.push('\t');
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => {
            let dropped = (text.len() - cut) as u64 + omitted_bytes;
            out.push_str(&text[..cut]);
            out.push_str(&format!(" … [line truncated: {dropped} bytes omitted]"));
        }
        None if omitted_bytes > 0 => {
            out.push_str(text);
            out.push_str(&format!(
                " … [line truncated: {omitted_bytes} bytes omitted]"
            ));
        }
        None => out.push_str(text),
    }
    out.push('\n');
}

/// A missing path gets close matches in the recovery line; none is read.
fn with_suggestions(call: &Invocation<'_>, path: &WorkspacePath, error: ToolError) -> ToolError {
    match error {
        ToolError::Boundary(BoundaryError::NotFound { .. }) => {
            let close = call.workspace().suggest(path, 5);
            let recovery = if close.is_empty() {
                "check the name with `list` or `search`, then retry with the exact path".to_owned()
            } else {
                let names: Vec<String> = close.iter().map(|p| p.to_text()).collect();
                format!(
                    "did you mean: {}? Retry with the exact path.",
                    names.join(", ")
                )
            };
            ToolError::failed(format!("{path} does not exist"), recovery)
        }
        other => other,
    }
}
