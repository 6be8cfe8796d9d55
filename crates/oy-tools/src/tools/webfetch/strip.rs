//! A single linear pass over HTML, no tree: an estimate of how deep the
//! page nests and of the parser's work (its cost grows with depth times
//! tags, so a hostile page of nested or unclosed tags would keep it busy
//! for hours and fill memory), and plain text plus `href`s for the pages it
//! must not parse, or for `raw`.

use memchr::memchr;

/// Elements that never have content (no end tag).
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];
/// Elements whose end tag may be left out (a sibling closes them).
const OPTIONAL_END: [&str; 22] = [
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "tbody", "thead", "tfoot",
    "colgroup", "caption", "rb", "rt", "rp", "rtc", "html", "head", "body", "menuitem",
];
/// Elements whose content is skipped whole (raw text or not content).
const SKIPPED: [&str; 10] = [
    "script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object",
    "textarea",
];
/// Elements that start and end a line.
pub(super) const BLOCKS: [&str; 31] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tr",
    "ul",
];

/// What the pass found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Stripped {
    /// The text, whitespace collapsed, one line per block.
    pub(crate) text: String,
    /// `href`s of `a` and `area` elements, as written.
    pub(crate) hrefs: Vec<String>,
    /// The deepest nesting of elements that need an end tag.
    pub(crate) depth: usize,
    /// The parser's work, estimated: the nesting depth summed over tags.
    pub(crate) work: u64,
}

/// One pass over `html`.
pub(crate) fn strip(html: &str) -> Stripped {
    let bytes = html.as_bytes();
    let mut out = Stripped::default();
    let mut text = Text::default();
    let (mut pos, mut depth) = (0, 0_usize);
    while let Some(offset) = memchr(b'<', &bytes[pos..]) {
        let start = pos + offset;
        text.push(&html[pos..start]);
        let rest = &html[start..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            pos = comment
                .find("-->")
                .map_or(html.len(), |end| start + 4 + end + 3);
            continue;
        }
        let Some(tag) = Tag::parse(rest) else {
            text.push("<");
            pos = start + 1;
            continue;
        };
        pos = start + tag.len;
        let name = tag.name.as_str();
        if name == "!" {
            continue;
        }
        let counted = !VOID.contains(&name) && !OPTIONAL_END.contains(&name);
        out.work += depth as u64 + 1;
        if tag.closing {
            depth = depth.saturating_sub(usize::from(counted));
            if BLOCKS.contains(&name) || name == "li" {
                text.end_line();
            }
            continue;
        }
        if counted {
            depth += 1;
            out.depth = out.depth.max(depth);
        }
        if SKIPPED.contains(&name) {
            pos = skip_to_end_tag(html, pos, name);
            depth = depth.saturating_sub(usize::from(counted));
            continue;
        }
        match name {
            "a" | "area" => out.hrefs.extend(tag.attribute("href")),
            "br" => text.line_break(),
            "li" => {
                text.end_line();
                text.out.push_str("- ");
            }
            _ if BLOCKS.contains(&name) => text.end_line(),
            _ => {}
        }
    }
    text.push(&html[pos..]);
    out.text = text.finish();
    out
}

/// A start or end tag at the start of `text`.
struct Tag<'a> {
    name: String,
    closing: bool,
    attributes: &'a str,
    /// Bytes up to and including the closing `>` (or to the end).
    len: usize,
}

impl<'a> Tag<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        let after = text.strip_prefix('<')?;
        let (closing, after) = match after.strip_prefix('/') {
            Some(after) => (true, after),
            None => (false, after),
        };
        if after.starts_with(['!', '?']) {
            // A doctype or processing instruction: skip it like a void tag.
            let len = after
                .find('>')
                .map_or(text.len(), |end| text.len() - after.len() + end + 1);
            return Some(Self {
                name: "!".to_owned(),
                closing: false,
                attributes: "",
                len,
            });
        }
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == ':'))
            .unwrap_or(after.len());
        if name_len == 0 || !after.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        let name = after[..name_len].to_ascii_lowercase();
        let rest = &after[name_len..];
        let mut quote = None;
        let mut end = rest.len();
        for (index, c) in rest.char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '>') => {
                    end = index;
                    break;
                }
                (None, _) => {}
            }
        }
        let consumed = text.len() - rest.len() + end;
        Some(Self {
            name,
            closing,
            attributes: &rest[..end],
            len: (consumed + 1).min(text.len()),
        })
    }

    /// The value of attribute `wanted`, entities decoded.
    fn attribute(&self, wanted: &str) -> Option<String> {
        let mut rest = self.attributes;
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
            if rest.is_empty() {
                return None;
            }
            let name_end = rest
                .find(|c: char| c.is_whitespace() || c == '=' || c == '/')
                .unwrap_or(rest.len());
            let name = &rest[..name_end];
            rest = rest[name_end..].trim_start();
            let mut value = "";
            if let Some(after) = rest.strip_prefix('=') {
                let after = after.trim_start();
                let (found, remaining) = match after.chars().next() {
                    Some(q @ ('"' | '\'')) => {
                        let body = &after[1..];
                        let end = body.find(q).unwrap_or(body.len());
                        (&body[..end], body.get(end + 1..).unwrap_or(""))
                    }
                    _ => {
                        let end = after.find(char::is_whitespace).unwrap_or(after.len());
                        (&after[..end], &after[end..])
                    }
                };
                value = found;
                rest = remaining;
            }
            if name.eq_ignore_ascii_case(wanted) {
                return Some(decode_entities(value));
            }
        }
    }
}

/// Where the content of raw element `name` opened at `from` ends: after
/// its end tag, or at the end of the page. Scans forward only, so the
/// whole pass stays linear however many such elements a page has.
fn skip_to_end_tag(html: &str, from: usize, name: &str) -> usize {
    let bytes = html.as_bytes();
    let mut pos = from;
    while let Some(offset) = memchr::memmem::find(&bytes[pos..], b"</") {
        let at = pos + offset;
        let candidate = &bytes[at + 2..];
        if candidate.len() >= name.len()
            && candidate[..name.len()].eq_ignore_ascii_case(name.as_bytes())
        {
            return memchr(b'>', &bytes[at..]).map_or(html.len(), |close| at + close + 1);
        }
        pos = at + 2;
    }
    html.len()
}

/// The common named entities and numeric references; others stay as written.
fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        // Look for the `;` only within an entity's longest length: searching
        // the whole rest for every `&` made a page of `&`s quadratic.
        let window = rest
            .char_indices()
            .take_while(|(at, _)| *at <= 10)
            .last()
            .map_or(0, |(at, c)| at + c.len_utf8());
        let end = rest[..window].find(';');
        let decoded = end.and_then(|end| match &rest[1..end] {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" | "#39" => Some('\''),
            "nbsp" => Some(' '),
            numeric => numeric
                .strip_prefix("#x")
                .or_else(|| numeric.strip_prefix("#X"))
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .or_else(|| numeric.strip_prefix('#').and_then(|dec| dec.parse().ok()))
                .and_then(char::from_u32),
        });
        match (decoded, end) {
            (Some(c), Some(end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text with collapsed whitespace and at most one blank line.
#[derive(Default)]
struct Text {
    out: String,
}

impl Text {
    fn push(&mut self, raw: &str) {
        let decoded = decode_entities(raw);
        for c in decoded.chars() {
            if c.is_whitespace() {
                if !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
                    self.out.push(' ');
                }
            } else {
                self.out.push(c);
            }
        }
    }

    fn line_break(&mut self) {
        self.out.truncate(self.out.trim_end_matches(' ').len());
        self.out.push('\n');
    }

    fn end_line(&mut self) {
        self.out.truncate(self.out.trim_end_matches(' ').len());
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    fn finish(self) -> String {
        self.out.trim().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_tags_scripts_and_comments_and_keeps_hrefs() {
        let page = "<!doctype html><html><head><title>T</title><script>var a = '<div>';</script></head>\
            <body><!-- c <div> --><h1>Head &amp; line</h1><p>One <a href=\"/x?a=1&amp;b=2\">link</a> \
            <A HREF='y'>two</A></p><ul><li>a<li>b</ul><style>p{}</style>end</body></html>";
        let stripped = strip(page);
        assert_eq!(stripped.text, "Head & line\nOne link two\n- a\n- b\nend");
        assert_eq!(stripped.hrefs, ["/x?a=1&b=2", "y"]);
        assert_eq!(stripped.depth, 1);
    }

    #[test]
    fn estimates_nesting_without_counting_void_or_self_closing_siblings() {
        assert_eq!(strip(&"<div>".repeat(1000)).depth, 1000);
        assert_eq!(strip(&"<div></div>".repeat(1000)).depth, 1);
        assert_eq!(strip(&"<div></div>".repeat(1000)).work, 3000);
        assert_eq!(strip(&"<div>".repeat(1000)).work, 1000 * 1001 / 2);
        assert_eq!(strip(&"<p>x<br><img src=a>".repeat(1000)).depth, 0);
        assert_eq!(strip(&"<li>".repeat(1000)).depth, 0);
    }

    #[test]
    fn survives_broken_markup() {
        for page in [
            "<",
            "<a href=\"unterminated",
            "<!--",
            "a < b > c",
            "</",
            "<1>",
            "&#xFFFFFFFF;",
            "&",
        ] {
            let _ = strip(page);
        }
        assert_eq!(strip("a < b").text, "a < b");
        assert_eq!(decode_entities("&#x41;&#66;&bogus;&"), "AB&bogus;&");
    }
}

#[cfg(test)]
mod entity_tests {
    use super::decode_entities;

    #[test]
    fn a_page_of_ampersands_decodes_whole() {
        // The old quadratic scan took minutes on this; it stays in the
        // suite as a size that makes such a regression impossible to miss.
        let text = "&".repeat(400_000);
        assert_eq!(decode_entities(&text), text);
    }

    #[test]
    fn entities_still_decode() {
        assert_eq!(
            decode_entities("a &amp; b &#x41;&#66; &nbsp;&unknown; &"),
            "a & b AB  &unknown; &"
        );
    }
}
