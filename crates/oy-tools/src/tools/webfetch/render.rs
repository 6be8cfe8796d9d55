//! What the model sees of a body: HTML as Markdown (`htmd`) or plain
//! text, with scripts, styles and other non-content elements dropped and
//! the page's links collected; other text as it is; binary bodies named,
//! not shown.
//!
//! No page can hang or crash the tool: a linear pass ([`strip`]) runs
//! first, and pages nested too deeply for the parser (whose cost grows
//! with depth times tags) are shown from it as text; the parser and the
//! recursive Markdown converter run on their own thread with a large stack
//! and a time budget, after which the linear pass's text is shown.

use std::rc::Rc;
use std::sync::mpsc;
use std::time::Duration;

use htmd::HtmlToMarkdown;
use htmd::options::{BulletListMarker, Options};
use markup5ever_rcdom::{Node, NodeData};
use url::Url;

use super::ReturnFormat;
use super::strip::{Stripped, strip};

/// Elements whose content is never shown.
const SKIPPED: [&str; 12] = [
    "script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object", "embed",
    "canvas", "select",
];
/// Elements that start a new line in the tree walk: the linear pass's
/// block elements plus the ones it handles on its own (list items, table
/// cells) or never meets (`body`, `summary`).
const EXTRA_BLOCKS: [&str; 5] = ["body", "li", "summary", "td", "th"];

fn is_block(tag: &str) -> bool {
    super::strip::BLOCKS.contains(&tag) || EXTRA_BLOCKS.contains(&tag)
}
/// Deeper pages are not parsed, and are shown as text even when Markdown
/// was asked for (the Markdown converter recurses).
const MAX_DEPTH: usize = 256;
/// Deeper trees (the parser may nest deeper than the estimate) are not
/// given to the recursive Markdown converter.
const MAX_MARKDOWN_DEPTH: usize = 1024;
/// Pages whose estimated parser work (depth summed over tags) exceeds this
/// are not parsed; ordinary pages need well under a tenth of it.
const MAX_PARSE_WORK: u64 = 8_000_000;
/// Only this much HTML is parsed; the content is cut far shorter anyway.
const MAX_PARSE_BYTES: usize = 2 * 1024 * 1024;
/// Stack for the rendering thread.
const RENDER_STACK_BYTES: usize = 64 * 1024 * 1024;
/// Links listed at most.
pub(crate) const MAX_LINKS: usize = 100;
/// Longer links are left out of the list.
const MAX_LINK_BYTES: usize = 2048;

/// The model-visible content and the page's links.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Rendered {
    /// The content, not yet cut to `max_length`.
    pub(crate) content: String,
    /// Absolute http(s) links, in page order, without duplicates.
    pub(crate) links: Vec<String>,
}

/// Renders `body` in `format`. `base` resolves relative links.
pub(crate) fn render(
    body: Vec<u8>,
    content_type: Option<&str>,
    base: &Url,
    format: ReturnFormat,
    budget: Duration,
) -> Rendered {
    let mime = content_type
        .and_then(|value| value.split(';').next())
        .map(|mime| mime.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let head = &body[..body.len().min(8192)];
    if !is_textual(&mime) || head.contains(&0) {
        let kind = if mime.is_empty() {
            "unknown type"
        } else {
            &mime
        };
        return Rendered {
            content: format!("[binary content ({kind}), {} bytes: not shown]", body.len()),
            links: Vec::new(),
        };
    }
    let text = match String::from_utf8(body) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    };
    let text = text
        .strip_prefix('\u{feff}')
        .map(str::to_owned)
        .unwrap_or(text);
    if !is_html(&mime, &text) {
        return Rendered {
            content: text,
            links: Vec::new(),
        };
    }
    // One linear pass first: the parser's cost grows with nesting depth
    // times tags, so deep pages and `raw` never reach it.
    let stripped = strip(&text);
    let linked = |hrefs: Vec<String>| {
        let mut links = Links::new(base.clone());
        for href in hrefs {
            if let Some(url) = links.absolute(&href) {
                links.add(url);
            }
        }
        links.finish()
    };
    let as_text = |why: &str, stripped: Stripped| Rendered {
        content: format!("[{why}; shown as text]\n{}", stripped.text),
        links: linked(stripped.hrefs),
    };
    if format == ReturnFormat::Raw {
        return Rendered {
            content: text,
            links: linked(stripped.hrefs),
        };
    }
    if stripped.depth > MAX_DEPTH || stripped.work > MAX_PARSE_WORK {
        return as_text("the page nests too deeply to convert", stripped);
    }
    let mut text = text;
    let mut cut_note = "";
    if text.len() > MAX_PARSE_BYTES {
        text.truncate(text.floor_char_boundary(MAX_PARSE_BYTES));
        cut_note = "\n[page cut: only the first 2 MiB of HTML were converted]";
    }
    let (send, receive) = mpsc::channel();
    let page = base.clone();
    let worker = std::thread::Builder::new()
        .name("oy-webfetch-render".to_owned())
        .stack_size(RENDER_STACK_BYTES)
        .spawn(move || {
            // The receiver is gone after a timeout; nothing to do then.
            let _ = send.send(render_html(&text, &page, format));
        });
    match worker.map(|_| receive.recv_timeout(budget)) {
        Ok(Ok(mut rendered)) => {
            rendered.content.push_str(cut_note);
            rendered
        }
        // Too slow, or the converter failed on this page: the linear pass
        // still has the text.
        _ => as_text("the page could not be converted in time", stripped),
    }
}

fn is_textual(mime: &str) -> bool {
    mime.is_empty()
        || mime.starts_with("text/")
        || [
            "json",
            "xml",
            "javascript",
            "ecmascript",
            "html",
            "yaml",
            "toml",
            "csv",
        ]
        .iter()
        .any(|kind| mime.contains(kind))
}

fn is_html(mime: &str, text: &str) -> bool {
    if !mime.is_empty() {
        return mime.contains("html");
    }
    let start: String = text.trim_start().chars().take(15).collect();
    let start = start.to_ascii_lowercase();
    start.starts_with("<!doctype html") || start.starts_with("<html")
}

fn render_html(html: &str, base: &Url, format: ReturnFormat) -> Rendered {
    let options = Options {
        bullet_list_marker: BulletListMarker::Dash,
        ul_bullet_spacing: 1,
        ol_number_spacing: 1,
        ..Options::default()
    };
    let converter = HtmlToMarkdown::builder()
        .options(options)
        .skip_tags(SKIPPED.to_vec())
        .build();
    let Ok(dom) = converter.html_to_tree(html) else {
        return Rendered {
            content: html.to_owned(),
            links: Vec::new(),
        };
    };
    let walked = walk(&dom, base);
    let content = match format {
        ReturnFormat::Raw => html.to_owned(),
        ReturnFormat::Text => walked.text,
        ReturnFormat::Markdown if walked.depth > MAX_MARKDOWN_DEPTH => format!(
            "[the page nests too deeply to convert; shown as text]\n{}",
            walked.text
        ),
        ReturnFormat::Markdown => converter.tree_to_markdown(&dom),
    };
    Rendered {
        content,
        links: walked.links,
    }
}

/// What one pass over the tree collects.
struct Walked {
    text: String,
    links: Vec<String>,
    depth: usize,
}

/// Where a node sits: its depth, inside `pre`, inside a skipped element.
#[derive(Clone, Copy, Default)]
struct Place {
    level: usize,
    pre: bool,
    hidden: bool,
}

enum Step {
    Enter(Rc<Node>, Place),
    Leave { block: bool },
}

/// One iterative pass: plain text, links (a `<base>` in `<head>` counts),
/// and the deepest nesting.
fn walk(dom: &Rc<Node>, page: &Url) -> Walked {
    let mut text = TextOut::default();
    let mut links = Links::new(page.clone());
    let mut depth = 0;
    let mut stack = vec![Step::Enter(Rc::clone(dom), Place::default())];
    while let Some(step) = stack.pop() {
        let (node, mut place) = match step {
            Step::Enter(node, place) => (node, place),
            Step::Leave { block } => {
                if block {
                    text.end_line();
                }
                continue;
            }
        };
        depth = depth.max(place.level);
        match &node.data {
            NodeData::Text { contents } if !place.hidden => {
                text.push(&contents.borrow(), place.pre);
            }
            NodeData::Element { name, attrs, .. } => {
                let tag: &str = &name.local;
                let wanted = match tag {
                    "a" | "area" | "base" => "href",
                    "img" => "src",
                    _ => "",
                };
                let mut attrs = attrs.borrow_mut();
                let attr = attrs
                    .iter_mut()
                    .find(|attr| !wanted.is_empty() && &*attr.name.local == wanted);
                if let Some(attr) = attr {
                    match (tag, links.absolute(&attr.value)) {
                        ("base", Some(url)) => links.rebase(url),
                        (_, Some(url)) => {
                            // Absolute in the Markdown too, so links work out of context.
                            attr.value = url.as_str().into();
                            if tag != "img" {
                                links.add(url);
                            }
                        }
                        _ => {}
                    }
                }
                place.hidden |= SKIPPED.contains(&tag);
                let block = !place.hidden && is_block(tag);
                match tag {
                    _ if place.hidden => {}
                    "br" => text.line_break(),
                    "li" => {
                        text.end_line();
                        text.push("- ", true);
                    }
                    "pre" => {
                        text.end_line();
                        place.pre = true;
                    }
                    _ if block => text.end_line(),
                    _ => {}
                }
                stack.push(Step::Leave { block });
            }
            _ => {}
        }
        place.level += 1;
        let children = node.children.borrow();
        for child in children.iter().rev() {
            stack.push(Step::Enter(Rc::clone(child), place));
        }
    }
    Walked {
        text: text.finish(),
        links: links.finish(),
        depth,
    }
}

/// Plain text with collapsed whitespace and at most one blank line.
#[derive(Default)]
struct TextOut {
    out: String,
    space: bool,
}

impl TextOut {
    fn push(&mut self, text: &str, verbatim: bool) {
        if verbatim {
            self.flush_space();
            self.out.push_str(text);
            return;
        }
        for c in text.chars() {
            if c.is_whitespace() {
                self.space = true;
            } else {
                self.flush_space();
                self.out.push(c);
            }
        }
    }

    fn flush_space(&mut self) {
        if self.space && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
        self.space = false;
    }

    fn line_break(&mut self) {
        self.space = false;
        self.out.push('\n');
    }

    fn end_line(&mut self) {
        self.space = false;
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    fn finish(self) -> String {
        let mut out = String::with_capacity(self.out.len());
        let mut blank_run = 0;
        for line in self.out.lines().map(str::trim_end) {
            blank_run = if line.is_empty() { blank_run + 1 } else { 0 };
            if blank_run < 2 {
                out.push_str(line);
                out.push('\n');
            }
        }
        out.trim_matches('\n').to_owned()
    }
}

/// Absolute http(s) links without fragments, first occurrence kept.
struct Links {
    base: Url,
    seen: std::collections::HashSet<String>,
    links: Vec<String>,
    omitted: usize,
}

impl Links {
    fn new(base: Url) -> Self {
        Self {
            base,
            seen: std::collections::HashSet::new(),
            links: Vec::new(),
            omitted: 0,
        }
    }

    /// `href` resolved against the page (or its `<base>`), if http(s).
    fn absolute(&self, href: &str) -> Option<Url> {
        let url = self.base.join(href.trim()).ok()?;
        matches!(url.scheme(), "http" | "https").then_some(url)
    }

    fn rebase(&mut self, base: Url) {
        self.base = base;
    }

    fn add(&mut self, mut url: Url) {
        url.set_fragment(None);
        let url = url.to_string();
        if url.len() > MAX_LINK_BYTES || !self.seen.insert(url.clone()) {
            return;
        }
        if self.links.len() < MAX_LINKS {
            self.links.push(url);
        } else {
            self.omitted += 1;
        }
    }

    fn finish(mut self) -> Vec<String> {
        if self.omitted > 0 {
            self.links
                .push(format!("[truncated: {} more links omitted]", self.omitted));
        }
        self.links
    }
}
