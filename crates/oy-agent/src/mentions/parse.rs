//! Finding `@path` mentions in a prompt, by the rules people know from
//! other coding agents: an `@` starts a mention only at the start of the
//! text or after whitespace (so `me@example.com` is none); the path runs to
//! the next whitespace, or is quoted (`@"a b.txt"`); an `@` with nothing
//! after it is just an `@`; `@@` is a literal `@` (`@@param` sends
//! `@param`). Which trailing punctuation belongs to the path is decided
//! later, against the workspace.

use std::ops::Range;

use super::MentionError;

/// One mention, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// Where it is in the prompt, from the `@` to the path's end (the
    /// closing quote included).
    pub range: Range<usize>,
    /// The path as written: without its quotes; an unquoted one still with
    /// any trailing punctuation.
    pub path: String,
    /// True for `@"…"`.
    pub quoted: bool,
}

/// What the scanner found at one `@`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// A mention.
    Mention(Mention),
    /// `@@`: the first `@`, at this byte, is dropped from the message.
    Escape(usize),
}

/// The mentions and escapes of `text`, in order.
pub(crate) fn scan(text: &str) -> Result<Vec<Found>, MentionError> {
    let mut found = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut at_boundary = true;
    while let Some((index, c)) = chars.next() {
        if c != '@' || !at_boundary {
            at_boundary = c.is_whitespace();
            continue;
        }
        at_boundary = false;
        match chars.peek().map(|&(_, next)| next) {
            None => {}
            Some(next) if next.is_whitespace() => {}
            Some('@') => {
                found.push(Found::Escape(index));
                chars.next();
            }
            Some('"') => {
                let open = index + 2;
                let rest = &text[open..];
                let line = rest.split('\n').next().unwrap_or(rest);
                let Some(close) = line.find('"') else {
                    return Err(malformed(
                        text,
                        index,
                        "the quoted path has no closing `\"`",
                    ));
                };
                if close == 0 {
                    return Err(malformed(text, index, "the quoted path is empty"));
                }
                let end = open + close + 1;
                found.push(Found::Mention(Mention {
                    range: index..end,
                    path: text[open..open + close].to_owned(),
                    quoted: true,
                }));
                while chars.peek().is_some_and(|&(next, _)| next < end) {
                    chars.next();
                }
            }
            Some(_) => {
                let start = index + 1;
                let end = text[start..]
                    .find(char::is_whitespace)
                    .map_or(text.len(), |offset| start + offset);
                found.push(Found::Mention(Mention {
                    range: index..end,
                    path: text[start..end].to_owned(),
                    quoted: false,
                }));
                while chars.peek().is_some_and(|&(next, _)| next < end) {
                    chars.next();
                }
            }
        }
    }
    Ok(found)
}

/// The mentions of `text`, in order, or why one cannot be read (an
/// unclosed or empty quote).
pub fn find_mentions(text: &str) -> Result<Vec<Mention>, MentionError> {
    Ok(scan(text)?
        .into_iter()
        .filter_map(|found| match found {
            Found::Mention(mention) => Some(mention),
            Found::Escape(_) => None,
        })
        .collect())
}

/// `text` with the first `@` of each `@@` removed.
pub(crate) fn unescape(text: &str, found: &[Found]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for escape in found.iter().filter_map(|found| match found {
        Found::Escape(at) => Some(*at),
        Found::Mention(_) => None,
    }) {
        out.push_str(&text[from..escape]);
        from = escape + 1;
    }
    out.push_str(&text[from..]);
    out
}

fn malformed(text: &str, at: usize, problem: &'static str) -> MentionError {
    let shown: String = text[at..]
        .split('\n')
        .next()
        .unwrap_or_default()
        .chars()
        .take(60)
        .collect();
    MentionError::Malformed {
        mention: shown,
        problem,
    }
}
