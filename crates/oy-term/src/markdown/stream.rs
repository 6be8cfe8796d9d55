//! Streaming: a Markdown answer arrives as small deltas, and each block is
//! shown as soon as nothing that follows can change it.
//!
//! The text is cut only where a top-level block starts — after a blank
//! line, before a fenced code block, after a heading or a rule — and each
//! cut is checked by parsing: no top-level block of the text so far may
//! span it (a blank line inside a list or an HTML block is no cut). Block
//! structure depends only on the lines before, so every chunk then parses
//! as it would inside the whole text, and the one [`Renderer`] fed chunk
//! after chunk writes what a single pass writes. A top-level fenced code
//! block is shown line by line as its lines complete.
//!
//! Link reference definitions (`[x]: url`) are carried from chunk to
//! chunk. One difference remains: a definition applies only to links
//! after it, where a whole parse also resolves links before it (model
//! answers hardly ever put definitions last).

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{BrokenLink, CodeBlockKind, CowStr, Event, Parser, Tag};

use super::render::Renderer;
use super::{MarkdownOptions, normalize_newlines, parser_options};

/// A Markdown renderer fed by deltas; see the module doc.
///
/// [`push`](MarkdownStream::push) returns what can be shown now,
/// [`finish`](MarkdownStream::finish) the rest. The concatenated output
/// equals [`render_markdown`](super::render_markdown) of the whole text.
#[derive(Debug)]
pub struct MarkdownStream {
    renderer: Renderer,
    /// Text not yet rendered starts at `base`; lines before `scanned` were
    /// already looked at for cuts.
    buf: String,
    base: usize,
    scanned: usize,
    prev_blank: bool,
    /// Inside a top-level fenced code block.
    fence: Option<Fence>,
    /// The last delta ended in `\r`: it may be the first half of `\r\n`.
    held_cr: bool,
    /// Link reference definitions of the chunks rendered so far, by
    /// normalized label: destination and title.
    defs: HashMap<String, (String, String)>,
    /// The kind of list the last check found open at the end of the text:
    /// an item of that kind, or an indented line, continues it, so no
    /// parse is spent on it.
    open_list: Option<ListKind>,
    /// After a failed check over a long text, the next checks wait until
    /// the text reaches this offset, keeping the cost linear in pathological
    /// blocks (a huge HTML block with blank lines).
    skip_until: usize,
}

/// What an unchecked text may grow to before failed checks back off.
const BACKOFF_FROM: usize = 4 * 1024;

/// A list item's marker kind: the same kind continues a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListKind {
    Bullet(u8),
    Ordered(u8),
}

/// An open fenced code block: its fence character, length and indent.
#[derive(Clone, Copy, Debug)]
struct Fence {
    ch: u8,
    len: usize,
    indent: usize,
}

impl MarkdownStream {
    /// A stream rendering with `options`.
    pub fn new(options: MarkdownOptions) -> MarkdownStream {
        MarkdownStream {
            renderer: Renderer::new(options),
            buf: String::new(),
            base: 0,
            scanned: 0,
            prev_blank: false,
            fence: None,
            held_cr: false,
            defs: HashMap::new(),
            open_list: None,
            skip_until: 0,
        }
    }

    /// Adds the next piece of the answer; returns the rendered lines that
    /// are complete now (possibly none).
    pub fn push(&mut self, delta: &str) -> String {
        let mut text = String::with_capacity(delta.len() + 1);
        if std::mem::take(&mut self.held_cr) {
            text.push('\r');
        }
        text.push_str(delta);
        if text.ends_with('\r') {
            text.pop();
            self.held_cr = true;
        }
        self.buf.push_str(&normalize_newlines(&text));
        self.advance();
        self.renderer.take()
    }

    /// Ends the answer; returns everything not yet shown.
    pub fn finish(&mut self) -> String {
        if std::mem::take(&mut self.held_cr) {
            self.buf.push('\n');
        }
        self.advance();
        let rest = &self.buf[self.base..];
        if let Some(fence) = self.fence.take() {
            // A last line of only blanks, unterminated, is no code line
            // to the parser either.
            let blank = rest.trim_matches([' ', '\t']).is_empty();
            if !blank && !fence.closes(rest) {
                self.renderer.code_text(&fence.strip(rest));
            }
            self.renderer.code_end();
        } else {
            render_into(&mut self.renderer, &mut self.defs, rest);
        }
        self.buf.clear();
        self.base = 0;
        self.scanned = 0;
        self.prev_blank = false;
        self.renderer.take()
    }

    /// Renders every complete block, then drops the rendered text.
    fn advance(&mut self) {
        while if self.fence.is_some() {
            self.fence_line()
        } else {
            self.cut()
        } {}
        self.buf.drain(..self.base);
        self.scanned -= self.base;
        self.skip_until = self.skip_until.saturating_sub(self.base);
        self.base = 0;
    }

    /// Shows the next complete line of the open fenced code block.
    fn fence_line(&mut self) -> bool {
        let Some(fence) = self.fence else {
            return false;
        };
        let Some(nl) = self.buf[self.base..].find('\n') else {
            return false;
        };
        let end = self.base + nl + 1;
        let line = &self.buf[self.base..end - 1];
        if fence.closes(line) {
            self.renderer.code_end();
            self.fence = None;
        } else {
            let mut text = fence.strip(line);
            text.push('\n');
            self.renderer.code_text(&text);
        }
        self.move_base(end);
        true
    }

    /// Looks at the lines not yet scanned for the next cut; renders up to
    /// it and returns true when there is one.
    fn cut(&mut self) -> bool {
        while let Some(nl) = self.buf[self.scanned..].find('\n') {
            let start = self.scanned;
            let end = start + nl + 1;
            let line = &self.buf[start..end - 1];
            let blank = line.trim_matches([' ', '\t']).is_empty();
            let fence = Fence::open(line).map(|(fence, info)| (fence, unescape(info)));
            if let Some((fence, info)) = &fence
                && start == self.base
            {
                self.renderer.code_start(info);
                self.fence = Some(*fence);
                self.move_base(end);
                return true;
            }
            let indented = line.starts_with([' ', '\t']);
            let continues_list = self.open_list.is_some() && self.open_list == list_kind(line);
            let leaf = !blank && is_leaf_line(line);
            // Skipping a check only delays output: the next cut that
            // passes its check renders everything before it.
            let in_list = self.open_list.is_some() && indented;
            if !in_list && end >= self.skip_until {
                let after_blank =
                    self.prev_blank && !blank && start > self.base && !indented && !continues_list;
                if (fence.is_some() || after_blank) && self.verify(start, end, fence.is_some()) {
                    self.render_to(start);
                    return true;
                }
                if leaf && self.ends_with_leaf(start, end) {
                    self.render_to(end);
                    return true;
                }
            }
            self.prev_blank = blank;
            self.scanned = end;
        }
        false
    }

    fn render_to(&mut self, to: usize) {
        render_into(&mut self.renderer, &mut self.defs, &self.buf[self.base..to]);
        self.move_base(to);
    }

    fn move_base(&mut self, to: usize) {
        self.base = to;
        self.scanned = to;
        self.prev_blank = false;
        self.skip_until = 0;
    }

    /// Whether a top-level block starts at `start` when the text runs to
    /// `end` (the end of that block's first line): no top-level block
    /// spans `start`, and with `fenced`, the block there is a fenced code
    /// block.
    fn verify(&mut self, start: usize, end: usize, fenced: bool) -> bool {
        let cut = start - self.base;
        let blocks = self.top_level(end);
        let spanned = blocks
            .iter()
            .any(|(_, range)| range.start < cut && range.end > cut);
        let fence_found = blocks
            .iter()
            .any(|(block, range)| range.start >= cut && *block == TopLevel::Fenced);
        let ok = !spanned && (!fenced || fence_found);
        self.back_off_unless(ok, end);
        ok
    }

    /// Whether the text up to `end` ends with a top-level heading or rule
    /// on the line starting at `start`: nothing after can change it.
    fn ends_with_leaf(&mut self, start: usize, end: usize) -> bool {
        let cut = start - self.base;
        let ok = self
            .top_level(end)
            .last()
            .is_some_and(|(block, range)| *block == TopLevel::Leaf && range.end > cut);
        self.back_off_unless(ok, end);
        ok
    }

    fn back_off_unless(&mut self, ok: bool, end: usize) {
        let len = end - self.base;
        if !ok && len > BACKOFF_FROM {
            self.skip_until = end + len;
        }
    }

    /// The top-level blocks of the text from `base` to `end`; notes
    /// whether the last is a list, and of which kind.
    fn top_level(&mut self, end: usize) -> Vec<(TopLevel, Range<usize>)> {
        let text = &self.buf[self.base..end];
        let blocks = top_level(text);
        self.open_list = blocks.last().and_then(|(block, range)| match block {
            TopLevel::List => list_kind(&text[range.start..]),
            _ => None,
        });
        blocks
    }
}

fn render_into(renderer: &mut Renderer, defs: &mut HashMap<String, (String, String)>, text: &str) {
    let mut found = Vec::new();
    {
        let mut resolve = |link: BrokenLink<'_>| {
            defs.get(&normalize_label(&link.reference))
                .map(|(dest, title)| (CowStr::from(dest.clone()), CowStr::from(title.clone())))
        };
        let parser =
            Parser::new_with_broken_link_callback(text, parser_options(), Some(&mut resolve));
        for (label, def) in parser.reference_definitions().iter() {
            let title = def.title.as_deref().unwrap_or("").to_owned();
            found.push((normalize_label(label), (def.dest.to_string(), title)));
        }
        for event in parser {
            renderer.event(event);
        }
    }
    for (label, def) in found {
        defs.entry(label).or_insert(def);
    }
}

/// A reference label as definitions match it: case-folded, inner
/// whitespace collapsed.
fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[derive(Debug, PartialEq, Eq)]
enum TopLevel {
    Fenced,
    /// A heading or a thematic break.
    Leaf,
    List,
    Other,
}

/// The top-level blocks of `text` with their byte ranges.
fn top_level(text: &str) -> Vec<(TopLevel, Range<usize>)> {
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(text, parser_options()).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match tag {
                        Tag::CodeBlock(CodeBlockKind::Fenced(_)) => TopLevel::Fenced,
                        Tag::Heading { .. } => TopLevel::Leaf,
                        Tag::List(_) => TopLevel::List,
                        _ => TopLevel::Other,
                    };
                    blocks.push((kind, range));
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Rule if depth == 0 => blocks.push((TopLevel::Leaf, range)),
            _ if depth == 0 => blocks.push((TopLevel::Other, range)),
            _ => {}
        }
    }
    blocks
}

/// The kind of list item a line starts, if it starts one: up to three
/// spaces, then `-`, `*`, `+` or up to nine digits and `.` or `)`, then a
/// space, a tab or the line end.
fn list_kind(line: &str) -> Option<ListKind> {
    let line = line.lines().next().unwrap_or("");
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return None;
    }
    let b = rest.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let (kind, len) = match b.first()? {
        c @ (b'-' | b'*' | b'+') => (ListKind::Bullet(*c), 1),
        _ if (1..=9).contains(&digits) => match b.get(digits)? {
            c @ (b'.' | b')') => (ListKind::Ordered(*c), digits + 1),
            _ => return None,
        },
        _ => return None,
    };
    matches!(b.get(len), None | Some(b' ' | b'\t')).then_some(kind)
}

/// Whether a line may be an ATX heading, a thematic break or a setext
/// underline (the parse decides).
fn is_leaf_line(line: &str) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let hashes = rest.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) {
        return rest[hashes..].is_empty() || rest[hashes..].starts_with([' ', '\t']);
    }
    let Some(first) = rest.chars().next().filter(|c| "-*_=".contains(*c)) else {
        return false;
    };
    rest.chars().all(|c| c == first || c == ' ' || c == '\t')
}

impl Fence {
    /// The fence a line opens, with its info string, if it is a fence
    /// line: up to three spaces, then three or more backticks (with no
    /// backtick after them) or tildes.
    fn open(line: &str) -> Option<(Fence, &str)> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            return None;
        }
        let rest = &line[indent..];
        let ch = *rest
            .as_bytes()
            .first()
            .filter(|b| matches!(b, b'`' | b'~'))?;
        let len = rest.bytes().take_while(|&b| b == ch).count();
        let info = &rest[len..];
        if len < 3 || (ch == b'`' && info.contains('`')) {
            return None;
        }
        Some((Fence { ch, len, indent }, info.trim()))
    }

    /// Whether `line` closes this fence.
    fn closes(&self, line: &str) -> bool {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            return false;
        }
        let rest = &line[indent..];
        let len = rest.bytes().take_while(|&b| b == self.ch).count();
        len >= self.len && rest[len..].trim_matches([' ', '\t']).is_empty()
    }

    /// A content line without the fence's indentation (up to that many
    /// columns; a tab counts to the next multiple of four, and what it
    /// spans past the indentation stays as spaces).
    fn strip(&self, line: &str) -> String {
        let mut col = 0;
        for (i, b) in line.bytes().enumerate() {
            if col >= self.indent {
                return line[i..].to_owned();
            }
            match b {
                b' ' => col += 1,
                b'\t' => {
                    let next = (col / 4 + 1) * 4;
                    if next > self.indent {
                        return " ".repeat(next - self.indent) + &line[i + 1..];
                    }
                    col = next;
                }
                _ => return line[i..].to_owned(),
            }
        }
        String::new()
    }
}

/// An info string with its backslash escapes resolved, as the parser
/// reports it.
fn unescape(info: &str) -> String {
    let mut out = String::with_capacity(info.len());
    let mut chars = info.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && next.is_ascii_punctuation()
        {
            out.push(next);
            chars.next();
        } else {
            out.push(c);
        }
    }
    out
}
