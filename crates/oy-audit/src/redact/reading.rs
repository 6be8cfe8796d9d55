//! Another reading of a line: code inside a string (a notebook's
//! `"source"`, a `package.json` script, JSON in JSON) with its escaped
//! quotes undone, and string literals joined where code concatenates them
//! (`"q7Vd9xKp" + "2LmZ4rTw"`, Python's `"a" "b"`, PHP's `.`, Lua's `..`,
//! SQL's `||`, VB's `&`). The reading is only judged, never written out.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::regex;

/// The closing quote of one literal, an operator (or only space), the
/// opening quote of the next, the same quote character on both sides.
static CONCATENATION: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r#""[ \t]*(?:\+|\.\.?|&|\|\|)[ \t]*"|"[ \t]+"|"#,
        r#"'[ \t]*(?:\+|\.\.?|&|\|\|)[ \t]*'|'[ \t]+'"#
    ))
});

/// `= (` before a literal: a group of literals, as Python writes a long
/// string on several lines (a tuple or a list, with commas, is no string).
static GROUP: LazyLock<Regex> = LazyLock::new(|| regex(r#"=\s*\(\s*(["'])"#));

/// `text` read another way, when that differs from `text`: escapes undone
/// (`\"` is `"`, `\n` a line break), adjacent string literals joined, and
/// a group of literals opened as a plain value.
pub(super) fn of_text(text: &str) -> Option<String> {
    let unescaped = unescape(text);
    let joined = match CONCATENATION.replace_all(&unescaped, "") {
        Cow::Borrowed(_) => unescaped,
        Cow::Owned(joined) => Cow::Owned(joined),
    };
    let tuple = joined.contains("\",") || joined.contains("',");
    let joined = match GROUP.replace_all(&joined, "= $1") {
        Cow::Owned(opened) if !tuple => Cow::Owned(opened),
        _ => joined,
    };
    match joined {
        Cow::Borrowed(_) => None,
        Cow::Owned(read) => Some(read),
    }
}

/// As [`of_text`] for one line, skipping the regex for the many lines
/// that hold neither an escape nor two string literals.
pub(super) fn of_line(content: &str) -> Option<String> {
    let escaped = content.contains('\\');
    let quotes = content
        .bytes()
        .filter(|b| matches!(b, b'"' | b'\''))
        .count();
    (escaped || quotes >= 4).then(|| of_text(content)).flatten()
}

/// `\"` → `"`, `\'` → `'`, `\\` → `\`, `\n` and `\r` → a line break, `\t` →
/// a tab.
fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    let mut changed = false;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(quote @ ('"' | '\'' | '\\')) => {
                out.push(quote);
                changed = true;
            }
            // A line break ends the line it is in: the code inside the
            // string had lines of its own.
            Some('n' | 'r') => {
                out.push('\n');
                changed = true;
            }
            Some('t') => {
                out.push('\t');
                changed = true;
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}
