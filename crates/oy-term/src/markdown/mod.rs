//! Markdown answers rendered for a terminal: headings, emphasis, lists,
//! block quotes, tables, links and highlighted code, soft-wrapped to the
//! screen width, from a whole text ([`render_markdown`]) or from the
//! deltas of a streamed answer ([`MarkdownStream`]).
//!
//! Parsing is pulldown-cmark's (CommonMark with tables, strikethrough and
//! task lists). HTML is shown as the text it is, never interpreted.
//!
//! The look, with colour on: headings bold cyan (level 1 also underlined)
//! without their `#`; emphasis italic, strong bold, strikethrough struck;
//! inline code yellow; links blue with the URL dimmed in parentheses after
//! them (just the URL when the text is the URL); bullets `•`, `◦`, `▪` by
//! depth and numbers with a hanging indent; task items `[x]`/`[ ]`; block
//! quotes behind a dim `│ `; rules a dim `─` line; code blocks indented
//! four spaces under a dim language label, highlighted; tables in aligned
//! columns under a bold header and a `─` rule, or one `header: value`
//! record per row when too wide.
//!
//! With colour off the text is plain and reads on its own: the same
//! layout without escapes, emphasis markers dropped, strikethrough kept as
//! `~~text~~` and inline code as `` `code` `` (their meaning would be lost
//! otherwise), level 1 and 2 headings underlined with `=` and `-` (other
//! levels as their text), code blocks indented.

mod inline;
mod render;
mod stream;
mod table;

pub use stream::MarkdownStream;

use pulldown_cmark::{Options, Parser};

use render::Renderer;

/// How to render Markdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkdownOptions {
    /// Whether to style with colours and attributes (SGR sequences).
    pub color: bool,
    /// The screen width in columns that paragraphs wrap to; 0 for no
    /// wrapping.
    pub width: u16,
}

/// The Markdown extensions parsed: GitHub's tables, strikethrough and task
/// lists, which model answers use.
fn parser_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Renders a whole Markdown text; the same as pushing it to a
/// [`MarkdownStream`] in any pieces and finishing.
pub fn render_markdown(text: &str, options: MarkdownOptions) -> String {
    let text = normalize_newlines(text);
    let mut renderer = Renderer::new(options);
    for event in Parser::new_ext(&text, parser_options()) {
        renderer.event(event);
    }
    renderer.take()
}

/// Line endings as `\n` only: `\r\n` and a lone `\r` (both line endings
/// to CommonMark) become `\n`, so line scanning and parsing agree.
fn normalize_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests;
