//! The Markdown renderer: pulldown-cmark events in, terminal lines out.
//!
//! Blocks are separated by one blank line; containers (block quotes, list
//! items) give each line a prefix (`│ `, a bullet or number with a hanging
//! indent). Output is produced as soon as a block ends, so the stream can
//! feed this one renderer chunk after chunk and get what a single pass over
//! the whole text gives.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Tag, TagEnd};

use super::MarkdownOptions;
use super::inline::{Inline, line_width, paint};
use super::table::Table;
use crate::highlight::{HighlightState, Lang, highlight_line};
use crate::safe::terminal_line;
use crate::style::{Color, Style};
use crate::text::truncate;

/// A container giving lines a prefix.
#[derive(Debug)]
enum Container {
    Quote,
    /// A list item: its marker (`• `, `12. `) until its first line is out,
    /// then as many spaces.
    Item {
        marker: String,
        shown: bool,
    },
}

/// The inline block being collected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    None,
    Paragraph,
    Heading(HeadingLevel),
    Cell,
    /// Text straight inside a list item of a tight list.
    ItemText,
}

/// A code block being shown line by line.
#[derive(Debug)]
struct Code {
    lang: Lang,
    state: HighlightState,
    partial: String,
}

/// An open link or image: where its text starts and where it points.
#[derive(Debug)]
struct Link {
    from: usize,
    url: String,
    image: bool,
}

/// Renders events into lines; see the module doc.
#[derive(Debug)]
pub(super) struct Renderer {
    color: bool,
    width: usize,
    out: String,
    containers: Vec<Container>,
    /// The next number of each open list (`None`: bulleted).
    lists: Vec<Option<u64>>,
    /// A block ended; the next one starts after a blank line.
    pending_blank: bool,
    wrote: bool,
    block: Block,
    inline: Inline,
    styles: Vec<Style>,
    links: Vec<Link>,
    code: Option<Code>,
    table: Option<Table>,
}

/// The narrowest a wrapped line gets, however deep the nesting.
const MIN_WIDTH: usize = 20;

impl Renderer {
    pub(super) fn new(options: MarkdownOptions) -> Renderer {
        Renderer {
            color: options.color,
            width: usize::from(options.width),
            out: String::new(),
            containers: Vec::new(),
            lists: Vec::new(),
            pending_blank: false,
            wrote: false,
            block: Block::None,
            inline: Inline::default(),
            styles: Vec::new(),
            links: Vec::new(),
            code: None,
            table: None,
        }
    }

    /// What has been rendered since the last call.
    pub(super) fn take(&mut self) -> String {
        std::mem::take(&mut self.out)
    }

    pub(super) fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => {
                if self.code.is_some() {
                    self.code_text(&text);
                } else {
                    let style = self.style();
                    self.inline_target().text(&text, style);
                }
            }
            Event::Code(text) => {
                let style = self.style().merge(Style::fg(Color::Yellow));
                let text = if self.color {
                    text.to_string()
                } else {
                    format!("`{text}`")
                };
                self.inline_target().glued(&text, style);
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => {
                let style = self.style();
                self.inline_target().glued(&text, style);
            }
            Event::Html(text) => {
                if self.block == Block::None && self.code.is_none() {
                    for line in text.lines() {
                        let line = terminal_line(line);
                        self.line(&line);
                    }
                } else {
                    let style = self.style();
                    self.inline_target().text(&text, style);
                }
            }
            Event::InlineHtml(text) | Event::FootnoteReference(text) => {
                let style = self.style();
                self.inline_target().text(&text, style);
            }
            Event::SoftBreak => {
                let style = self.style();
                self.inline_target().space(style);
            }
            Event::HardBreak => self.inline_target().hard_break(),
            Event::Rule => {
                self.block_start();
                let len = if self.width == 0 {
                    40
                } else {
                    self.available().min(80)
                };
                let rule = "─".repeat(len);
                let rule = Style::dim().paint(&rule, self.color);
                self.line(&rule);
                self.pending_blank = true;
            }
            Event::TaskListMarker(done) => {
                let (mark, style) = if done {
                    ("[x]", Style::fg(Color::Green))
                } else {
                    ("[ ]", Style::dim())
                };
                let target = self.inline_target();
                target.text(mark, style);
                target.space(Style::PLAIN);
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.open_block(Block::Paragraph),
            Tag::Heading { level, .. } => self.open_block(Block::Heading(level)),
            Tag::BlockQuote(_) => {
                self.block_start();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                let info = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code_start(&info);
            }
            Tag::HtmlBlock => self.block_start(),
            Tag::List(start) => {
                self.block_start();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush_item_text();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let marker = format!("{n}. ");
                        *n = n.saturating_add(1);
                        marker
                    }
                    _ => format!("{} ", ["•", "◦", "▪"][depth % 3]),
                };
                self.containers.push(Container::Item {
                    marker,
                    shown: false,
                });
            }
            Tag::Table(aligns) => {
                self.block_start();
                self.table = Some(Table::new(aligns));
            }
            Tag::TableHead => {
                if let Some(table) = &mut self.table {
                    table.in_header = true;
                }
            }
            Tag::TableRow => {
                if let Some(table) = &mut self.table {
                    table.start_row();
                }
            }
            Tag::TableCell => {
                self.block = Block::Cell;
                self.inline = Inline::default();
            }
            Tag::Emphasis => self.styles.push(Style {
                italic: true,
                ..Style::PLAIN
            }),
            Tag::Strong => self.styles.push(Style::bold()),
            Tag::Strikethrough => {
                self.styles.push(Style {
                    strike: true,
                    ..Style::PLAIN
                });
                if !self.color {
                    self.inline_target().text("~~", Style::PLAIN);
                }
            }
            Tag::Link { dest_url, .. } => {
                let from = self.inline_target().atoms.len();
                self.links.push(Link {
                    from,
                    url: dest_url.to_string(),
                    image: false,
                });
                self.styles.push(Style::fg(Color::Blue));
            }
            Tag::Image { dest_url, .. } => {
                let target = self.inline_target();
                target.text("[image: ", Style::dim());
                let from = target.atoms.len();
                self.links.push(Link {
                    from,
                    url: dest_url.to_string(),
                    image: true,
                });
                self.styles.push(Style::PLAIN);
            }
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.open_block(Block::Paragraph),
            Tag::Superscript | Tag::Subscript => self.styles.push(Style::PLAIN),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph
            | TagEnd::Heading(_)
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => {
                self.flush_block();
                self.pending_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_item_text();
                self.containers.pop();
                self.pending_blank = true;
            }
            TagEnd::CodeBlock => self.code_end(),
            TagEnd::HtmlBlock => self.pending_blank = true,
            TagEnd::List(_) => {
                self.flush_item_text();
                self.lists.pop();
                self.pending_blank = true;
            }
            TagEnd::Item => {
                self.flush_item_text();
                self.containers.pop();
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    let lines = table.render(self.available_or_unlimited(), self.color);
                    for line in lines {
                        self.line(&line);
                    }
                }
                self.pending_blank = true;
            }
            TagEnd::TableHead => {
                if let Some(table) = &mut self.table {
                    table.in_header = false;
                }
            }
            TagEnd::TableRow => {}
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                self.block = Block::None;
                if let Some(table) = &mut self.table {
                    table.push_cell(cell);
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Superscript | TagEnd::Subscript => {
                self.styles.pop();
            }
            TagEnd::Strikethrough => {
                self.styles.pop();
                if !self.color {
                    self.inline_target().text("~~", Style::PLAIN);
                }
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                if let Some(link) = self.links.pop() {
                    self.close_link(link);
                }
            }
        }
    }

    /// After a link's text: its URL in parentheses, unless the text is the
    /// URL already (an autolink).
    fn close_link(&mut self, link: Link) {
        let target = self.inline_target();
        let text = target.plain_text(link.from);
        if link.image {
            target.text("]", Style::dim());
        }
        let url = link.url.trim();
        let shown = text.trim();
        if url.is_empty() || url == shown || url.strip_prefix("mailto:") == Some(shown) {
            return;
        }
        target.space(Style::PLAIN);
        target.glued(&format!("({url})"), Style::dim());
    }

    /// The current inline style.
    fn style(&self) -> Style {
        let base = match self.block {
            Block::Heading(level) => Style {
                underline: level == HeadingLevel::H1,
                ..Style::fg(Color::Cyan).with_bold()
            },
            _ => Style::PLAIN,
        };
        self.styles.iter().fold(base, |acc, s| acc.merge(*s))
    }

    /// Where inline content goes; text straight inside a list item opens
    /// the item's own text block.
    fn inline_target(&mut self) -> &mut Inline {
        if self.block == Block::None {
            self.block = Block::ItemText;
            self.pending_blank = false;
        }
        &mut self.inline
    }

    fn open_block(&mut self, block: Block) {
        self.block_start();
        self.block = block;
        self.inline = Inline::default();
    }

    /// Before a block: its blank line, if one ended before it; a list
    /// item's own text is shown first.
    fn block_start(&mut self) {
        self.flush_item_text();
        if self.pending_blank && self.wrote {
            self.blank_line();
        }
        self.pending_blank = false;
    }

    fn flush_item_text(&mut self) {
        if self.block == Block::ItemText {
            self.flush_block();
        }
    }

    /// Lays out the collected inline block and writes it.
    fn flush_block(&mut self) {
        let block = std::mem::replace(&mut self.block, Block::None);
        let inline = std::mem::take(&mut self.inline);
        if inline.is_empty() {
            return;
        }
        let lines = inline.wrap(self.available_or_unlimited());
        let widest = lines.iter().map(|l| line_width(l)).max().unwrap_or(0);
        for line in &lines {
            let painted = paint(line, self.color);
            self.line(&painted);
        }
        if let (Block::Heading(level), false) = (block, self.color) {
            let under = match level {
                HeadingLevel::H1 => "=",
                HeadingLevel::H2 => "-",
                _ => return,
            };
            self.line(&under.repeat(widest));
        }
    }

    pub(super) fn code_start(&mut self, info: &str) {
        self.block_start();
        let word = info.split_whitespace().next().unwrap_or("");
        if !word.is_empty() {
            let label = truncate(&terminal_line(word), 30);
            let label = format!("  {}", Style::dim().paint(&label, self.color));
            self.line(&label);
        }
        self.code = Some(Code {
            lang: Lang::from_name(word),
            state: HighlightState::default(),
            partial: String::new(),
        });
    }

    /// Code text: complete lines are shown, a partial one waits.
    pub(super) fn code_text(&mut self, text: &str) {
        let Some(mut code) = self.code.take() else {
            return;
        };
        code.partial.push_str(text);
        while let Some(nl) = code.partial.find('\n') {
            let line: String = code.partial.drain(..=nl).collect();
            self.code_line(&mut code, &line[..nl]);
        }
        self.code = Some(code);
    }

    pub(super) fn code_end(&mut self) {
        if let Some(mut code) = self.code.take() {
            let rest = std::mem::take(&mut code.partial);
            if !rest.is_empty() {
                self.code_line(&mut code, &rest);
            }
        }
        self.pending_blank = true;
    }

    fn code_line(&mut self, code: &mut Code, line: &str) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let shown = highlight_line(code.lang, &mut code.state, line, self.color);
        if line.trim().is_empty() {
            self.line("");
        } else {
            self.line(&format!("    {shown}"));
        }
    }

    /// Columns left for content inside the current containers.
    fn available(&self) -> usize {
        let used: usize = self
            .containers
            .iter()
            .map(|c| match c {
                Container::Quote => 2,
                Container::Item { marker, .. } => crate::text::width(marker),
            })
            .sum();
        self.width.saturating_sub(used).max(MIN_WIDTH)
    }

    /// [`Renderer::available`], or 0 (no limit) when no width was given.
    fn available_or_unlimited(&self) -> usize {
        if self.width == 0 { 0 } else { self.available() }
    }

    /// Writes one line of content under the current prefixes; an empty
    /// line gets only the quote bars, and does not use up a list marker.
    fn line(&mut self, content: &str) {
        if content.is_empty() {
            self.blank_line();
            return;
        }
        let mut prefix = String::new();
        for container in &mut self.containers {
            match container {
                Container::Quote => {
                    Style::dim().paint_into(&mut prefix, "│ ", self.color);
                }
                Container::Item { marker, shown } => {
                    if *shown {
                        prefix.push_str(&" ".repeat(crate::text::width(marker)));
                    } else {
                        Style::fg(Color::Yellow).paint_into(&mut prefix, marker, self.color);
                        *shown = true;
                    }
                }
            }
        }
        self.out.push_str(&prefix);
        self.out.push_str(content);
        self.out.push('\n');
        self.wrote = true;
    }

    fn blank_line(&mut self) {
        let mut prefix = String::new();
        let last_quote = self
            .containers
            .iter()
            .rposition(|c| matches!(c, Container::Quote));
        if let Some(last) = last_quote {
            let mut plain = String::new();
            for container in &self.containers[..=last] {
                match container {
                    Container::Quote => plain.push_str("│ "),
                    Container::Item { marker, .. } => {
                        plain.push_str(&" ".repeat(crate::text::width(marker)));
                    }
                }
            }
            Style::dim().paint_into(&mut prefix, plain.trim_end(), self.color);
        }
        self.out.push_str(&prefix);
        self.out.push('\n');
        self.wrote = true;
    }
}
