//! The one output limiter: keeps the head and the tail, cuts the middle on
//! line boundaries (or character boundaries inside one huge line), and says
//! exactly how much it cut. Nothing is ever dropped silently.

use std::borrow::Cow;

/// Default cap on model-visible tool output.
pub const DEFAULT_OUTPUT_BYTES: usize = 64 * 1024;

/// A cap in bytes and lines; whichever is reached first applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Most bytes kept (the marker line is extra).
    pub max_bytes: usize,
    /// Most lines kept (the marker line is extra).
    pub max_lines: usize,
}

impl Limit {
    /// A byte cap with no line cap.
    pub const fn bytes(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            max_lines: usize::MAX,
        }
    }
}

impl Default for Limit {
    fn default() -> Self {
        Self::bytes(DEFAULT_OUTPUT_BYTES)
    }
}

/// The result of [`limit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited<'a> {
    /// The text to show: unchanged, or head + marker + tail.
    pub text: Cow<'a, str>,
    /// Lines cut from the middle (a partly cut line counts as one).
    pub omitted_lines: usize,
    /// Bytes cut from the middle.
    pub omitted_bytes: usize,
}

impl Limited<'_> {
    /// True when anything was cut.
    pub fn truncated(&self) -> bool {
        self.omitted_bytes > 0
    }
}

/// The marker that replaces the cut middle.
pub fn marker(omitted_lines: usize, omitted_bytes: usize) -> String {
    format!("[truncated: {omitted_lines} lines / {omitted_bytes} bytes omitted]")
}

/// Applies `limit` to `text`, keeping roughly half the budget at each end.
pub fn limit(text: &str, limit: Limit) -> Limited<'_> {
    let line_count = count_lines(text);
    if text.len() <= limit.max_bytes && line_count <= limit.max_lines {
        return Limited {
            text: Cow::Borrowed(text),
            omitted_lines: 0,
            omitted_bytes: 0,
        };
    }
    let head_bytes = limit.max_bytes / 2;
    let tail_bytes = limit.max_bytes - head_bytes;
    let head_lines = limit.max_lines / 2;
    let tail_lines = limit.max_lines.saturating_sub(head_lines);
    let head_end = head_cut(text, head_bytes, head_lines);
    let tail_start = tail_cut(text, tail_bytes, tail_lines).max(head_end);
    if head_end >= tail_start {
        // Head and tail meet: the budget rounds up to the whole text.
        return Limited {
            text: Cow::Borrowed(text),
            omitted_lines: 0,
            omitted_bytes: 0,
        };
    }
    let omitted = &text[head_end..tail_start];
    let omitted_lines = count_lines(omitted).max(usize::from(!omitted.is_empty()));
    let mut out = String::with_capacity(head_end + (text.len() - tail_start) + 64);
    out.push_str(&text[..head_end]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&marker(omitted_lines, omitted.len()));
    out.push('\n');
    out.push_str(&text[tail_start..]);
    Limited {
        text: Cow::Owned(out),
        omitted_lines,
        omitted_bytes: omitted.len(),
    }
}

/// The middle of a stream that was dropped while it was read (only its
/// head and tail were kept), for [`limit_around_gap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gap {
    /// Bytes dropped.
    pub(crate) bytes: usize,
    /// Newlines among them.
    pub(crate) newlines: usize,
    /// True when the last dropped byte was a newline.
    pub(crate) ends_with_newline: bool,
}

/// [`limit`] for a text whose middle is already gone: `head`, then `gap`
/// (never seen), then `tail`. Cuts `head` and `tail` exactly as [`limit`]
/// cuts one text, and the marker counts the gap too.
pub(crate) fn limit_around_gap(head: &str, gap: Gap, tail: &str, limit: Limit) -> String {
    let head_end = head_cut(head, limit.max_bytes / 2, limit.max_lines / 2);
    let tail_start = tail_cut(
        tail,
        limit.max_bytes - limit.max_bytes / 2,
        limit.max_lines.saturating_sub(limit.max_lines / 2),
    );
    let (cut_head, cut_tail) = (&head[head_end..], &tail[..tail_start]);
    let newlines = |text: &str| memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let ends_with_newline = if cut_tail.is_empty() {
        gap.ends_with_newline
    } else {
        cut_tail.ends_with('\n')
    };
    let omitted_lines =
        newlines(cut_head) + gap.newlines + newlines(cut_tail) + usize::from(!ends_with_newline);
    let omitted_bytes = cut_head.len() + gap.bytes + cut_tail.len();
    let mut out = String::with_capacity(head_end + (tail.len() - tail_start) + 64);
    out.push_str(&head[..head_end]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&marker(omitted_lines, omitted_bytes));
    out.push('\n');
    out.push_str(&tail[tail_start..]);
    out
}

fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    memchr::memchr_iter(b'\n', text.as_bytes()).count() + usize::from(!text.ends_with('\n'))
}

/// End of the head: at most `max_bytes` and `max_lines`, ending after a
/// newline when one is in reach, else on a character boundary.
fn head_cut(text: &str, max_bytes: usize, max_lines: usize) -> usize {
    let mut end = floor_char_boundary(text, max_bytes.min(text.len()));
    if let Some(nth) = memchr::memchr_iter(b'\n', text.as_bytes()).nth(max_lines.saturating_sub(1))
        && max_lines > 0
    {
        end = end.min(nth + 1);
    } else if max_lines == 0 {
        end = 0;
    }
    match text[..end].rfind('\n') {
        Some(newline) if end < text.len() && newline + 1 < end => newline + 1,
        // A head that stops right before a newline takes it, so a cut
        // mid-line is the only case where the marker line adds one.
        _ if text.as_bytes().get(end) == Some(&b'\n') => end + 1,
        _ => end,
    }
}

/// Start of the tail: the last `max_bytes`/`max_lines`, starting after a
/// newline when one is in reach, else on a character boundary.
fn tail_cut(text: &str, max_bytes: usize, max_lines: usize) -> usize {
    let mut start = ceil_char_boundary(text, text.len().saturating_sub(max_bytes));
    let body = text.strip_suffix('\n').unwrap_or(text);
    if max_lines == 0 {
        return text.len();
    }
    if let Some(nth) = memchr::memrchr_iter(b'\n', body.as_bytes()).nth(max_lines - 1) {
        start = start.max(nth + 1);
    }
    if start == 0 || text.as_bytes()[start - 1] == b'\n' {
        return start;
    }
    match text[start..].find('\n') {
        Some(offset) if start + offset + 1 < text.len() => start + offset + 1,
        _ => start,
    }
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while index > 0 && !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    while index < text.len() && !text.is_char_boundary(index) {
        index += 1;
    }
    index
}
