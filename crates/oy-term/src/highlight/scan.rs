//! The generic line scanner: walks one line of code, carrying an open
//! block comment or multi-line string over from the line before, and
//! hands each token to the painter with its class.

use super::langs::Spec;
use super::{Class, Mode, Painter};

/// Scans `line[from..]` (what comes before is already painted) in the
/// language `spec`, starting in `mode` and leaving in `mode` what is still
/// open at the end of the line.
pub(super) fn scan(spec: &Spec, mode: &mut Mode, line: &str, from: usize, out: &mut Painter) {
    let b = line.as_bytes();
    let mut i = resume(spec, mode, line, from, out);
    let mut plain = i;
    while i < b.len() {
        let Some((end, class)) = token_at(spec, mode, line, i) else {
            i += char_len(b[i]);
            continue;
        };
        out.plain(&line[plain..i]);
        let class = if class == Class::Str && spec.string_keys && followed_by_colon(b, end) {
            Class::Key
        } else {
            class
        };
        out.token(&line[i..end], class);
        i = end;
        plain = end;
    }
    out.plain(&line[plain..]);
}

/// Finishes what the previous line left open; returns where normal
/// scanning resumes.
fn resume(spec: &Spec, mode: &mut Mode, line: &str, from: usize, out: &mut Painter) -> usize {
    let (end, class) = match *mode {
        Mode::Normal => return from,
        Mode::Comment { depth } => {
            let (end, left) = block_comment_end(spec, line, from, depth);
            *mode = if left == 0 {
                Mode::Normal
            } else {
                Mode::Comment { depth: left }
            };
            (end, Class::Comment)
        }
        Mode::Str { delim } => {
            // A state from another language's table: start afresh.
            let Some(d) = spec.strings.get(usize::from(delim)) else {
                *mode = Mode::Normal;
                return from;
            };
            let close = string_end(line, from, d.close, d.escapes);
            if close.is_some() {
                *mode = Mode::Normal;
            }
            (close.unwrap_or(line.len()), Class::Str)
        }
        Mode::RawStr { hashes } => {
            let close = raw_end(line, from, hashes);
            if close.is_some() {
                *mode = Mode::Normal;
            }
            (close.unwrap_or(line.len()), Class::Str)
        }
    };
    out.token(&line[from..end], class);
    end
}

/// The token starting at `i`, if one does: its end and class. May open a
/// multi-line mode in `mode`.
fn token_at(spec: &Spec, mode: &mut Mode, line: &str, i: usize) -> Option<(usize, Class)> {
    let b = line.as_bytes();
    let rest = &line[i..];
    let c = b[i];
    let after_ident = i > 0 && is_ident_byte(spec, b[i - 1]);
    for marker in spec.line_comments {
        if rest.starts_with(marker)
            && (!spec.hash_needs_space || i == 0 || b[i - 1].is_ascii_whitespace())
        {
            return Some((line.len(), Class::Comment));
        }
    }
    if let Some((open, _, _)) = spec.block_comment
        && rest.starts_with(open)
    {
        let (end, left) = block_comment_end(spec, line, i + open.len(), 1);
        if left > 0 {
            *mode = Mode::Comment { depth: left };
        }
        return Some((end, Class::Comment));
    }
    if spec.rust_quotes
        && !after_ident
        && let Some(end) = rust_raw_string(mode, line, i)
    {
        return Some((end, Class::Str));
    }
    if spec.rust_quotes && c == b'\'' {
        return rust_quote(line, i);
    }
    for (n, d) in spec.strings.iter().enumerate() {
        if rest.starts_with(d.open) {
            let from = i + d.open.len();
            return Some(match string_end(line, from, d.close, d.escapes) {
                Some(end) => (end, Class::Str),
                None => {
                    if d.multiline {
                        *mode = Mode::Str {
                            delim: u8::try_from(n).unwrap_or(0),
                        };
                    }
                    (line.len(), Class::Str)
                }
            });
        }
    }
    if c.is_ascii_digit() && !after_ident {
        return Some((number_end(b, i), Class::Number));
    }
    if (c.is_ascii_alphabetic() || c == b'_') && !after_ident {
        let end = ident_end(spec, b, i);
        return Some((end, classify(spec, &line[i..end])));
    }
    if spec.at_attrs && c == b'@' && b.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic()) {
        return Some((ident_end(spec, b, i + 1), Class::Attr));
    }
    if spec.dollar_vars && c == b'$' {
        return dollar_var(b, i).map(|end| (end, Class::Variable));
    }
    if spec.preprocessor && c == b'#' && line[..i].trim().is_empty() {
        let mut end = i + 1;
        while b.get(end) == Some(&b' ') {
            end += 1;
        }
        let end = ident_end(spec, b, end);
        return Some((end, Class::Keyword));
    }
    None
}

/// Where a block comment whose body starts at `from`, `depth` deep, ends
/// on this line, and how deep it still is there (0: closed).
fn block_comment_end(spec: &Spec, line: &str, from: usize, depth: u32) -> (usize, u32) {
    let Some((open, close, nests)) = spec.block_comment else {
        return (from, 0);
    };
    let b = line.as_bytes();
    let mut depth = depth;
    let mut i = from;
    while i < b.len() {
        if line[i..].starts_with(close) {
            depth = depth.saturating_sub(1);
            i += close.len();
            if depth == 0 {
                return (i, 0);
            }
        } else if nests && line[i..].starts_with(open) {
            depth = depth.saturating_add(1);
            i += open.len();
        } else {
            i += char_len(b[i]);
        }
    }
    (line.len(), depth)
}

/// Where a string whose body starts at `from` ends (after `close`), or
/// `None` when it runs past the line.
fn string_end(line: &str, from: usize, close: &str, escapes: bool) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = from;
    while i < b.len() {
        if escapes && b[i] == b'\\' {
            i += 1 + b.get(i + 1).map_or(0, |&n| char_len(n));
        } else if line[i..].starts_with(close) {
            return Some(i + close.len());
        } else {
            i += char_len(b[i]);
        }
    }
    None
}

/// A Rust raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i`.
fn rust_raw_string(mode: &mut Mode, line: &str, i: usize) -> Option<usize> {
    let b = line.as_bytes();
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0u8;
    while b.get(j) == Some(&b'#') {
        hashes = hashes.saturating_add(1);
        j += 1;
    }
    if b.get(j) != Some(&b'"') {
        return None;
    }
    match raw_end(line, j + 1, hashes) {
        Some(end) => Some(end),
        None => {
            *mode = Mode::RawStr { hashes };
            Some(line.len())
        }
    }
}

/// Where a raw string closed by `"` and `hashes` `#`s ends.
fn raw_end(line: &str, from: usize, hashes: u8) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = from;
    while i < b.len() {
        if b[i] == b'"' {
            let tail = &b[i + 1..];
            let n = usize::from(hashes);
            if tail.len() >= n && tail[..n].iter().all(|&h| h == b'#') {
                return Some(i + 1 + n);
            }
        }
        i += 1;
    }
    None
}

/// A Rust `'`: a char literal (`'a'`, `'\n'`, `'\u{1F600}'`) is a string
/// token; a lifetime or label (`'a`) is left plain.
fn rust_quote(line: &str, i: usize) -> Option<(usize, Class)> {
    let rest = &line[i + 1..];
    if let Some(escaped) = rest.strip_prefix('\\') {
        // The escaped character itself may be a quote: `'\''`.
        let skip = escaped.chars().next()?.len_utf8();
        let close = escaped[skip..].find('\'')?;
        return Some((i + 2 + skip + close + 1, Class::Str));
    }
    let ch = rest.chars().next()?;
    if rest[ch.len_utf8()..].starts_with('\'') {
        return Some((i + 1 + ch.len_utf8() + 1, Class::Str));
    }
    None
}

fn number_end(b: &[u8], i: usize) -> usize {
    let hex = b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X'));
    let mut j = i + 1;
    while j < b.len() {
        let c = b[j];
        let part = c.is_ascii_alphanumeric()
            || c == b'_'
            || (c == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit))
            || ((c == b'+' || c == b'-') && !hex && matches!(b[j - 1], b'e' | b'E'));
        if !part {
            break;
        }
        j += 1;
    }
    j
}

fn ident_end(spec: &Spec, b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len() && is_ident_byte(spec, b[j]) {
        j += 1;
    }
    j
}

fn is_ident_byte(spec: &Spec, c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 || spec.ident_extra.contains(&c)
}

fn classify(spec: &Spec, word: &str) -> Class {
    if spec.keywords.contains(&word) {
        Class::Keyword
    } else if spec.constants.contains(&word) {
        Class::Constant
    } else if spec.types.contains(&word)
        || (spec.caps_are_types
            && word.starts_with(|c: char| c.is_ascii_uppercase())
            && word.bytes().any(|c| c.is_ascii_lowercase()))
    {
        Class::Type
    } else {
        Class::Plain
    }
}

/// `$name`, `${…}`, `$1`, `$@` and the like.
fn dollar_var(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i + 1)? {
        b'{' => Some(
            b[i..]
                .iter()
                .position(|&c| c == b'}')
                .map_or(b.len(), |p| i + p + 1),
        ),
        c if c.is_ascii_alphabetic() || *c == b'_' => {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            Some(j)
        }
        c if c.is_ascii_digit() || b"@*#?$!-".contains(c) => Some(i + 2),
        _ => None,
    }
}

fn followed_by_colon(b: &[u8], end: usize) -> bool {
    b[end..]
        .iter()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|&c| c == b':')
}

/// Length of the UTF-8 sequence a leading byte starts (1 for a stray
/// continuation byte, which cannot occur in a `&str` position we visit).
pub(super) fn char_len(b: u8) -> usize {
    match b {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}
