//! Line shapes of the data formats that a token scanner alone reads badly:
//! YAML and TOML keys and headers, and diff lines, which are coloured
//! whole.

use super::{Class, Painter};

/// Paints a YAML line's document marker or mapping key (after any list
/// dashes); returns where token scanning continues.
pub(super) fn yaml_prefix(line: &str, out: &mut Painter) -> usize {
    let start = line.len() - line.trim_start().len();
    let body = &line[start..];
    for marker in ["---", "..."] {
        if body == marker || body.starts_with(&format!("{marker} ")) {
            out.plain(&line[..start]);
            out.token(marker, Class::Keyword);
            return start + marker.len();
        }
    }
    let mut key = start;
    while line[key..].starts_with("- ") {
        key += 2;
        while line[key..].starts_with(' ') {
            key += 1;
        }
    }
    let Some(end) = yaml_key_end(&line[key..]).map(|n| key + n) else {
        return 0;
    };
    out.plain(&line[..key]);
    out.token(&line[key..end], Class::Key);
    end
}

/// The length of the mapping key `text` starts with, when it is `key:`
/// followed by a space or the line end.
fn yaml_key_end(text: &str) -> Option<usize> {
    let first = text.chars().next()?;
    if "#{[&*!|>%@`\"'-?:,".contains(first) {
        return None;
    }
    let colon = text
        .match_indices(':')
        .map(|(i, _)| i)
        .find(|&i| text[i + 1..].is_empty() || text[i + 1..].starts_with([' ', '\t']))?;
    let key = &text[..colon];
    (!key.contains(" #")).then_some(colon)
}

/// Paints a TOML table header (`[a.b]`, `[[x]]`) or a key before its `=`;
/// returns where token scanning continues.
pub(super) fn toml_prefix(line: &str, out: &mut Painter) -> usize {
    let start = line.len() - line.trim_start().len();
    let body = &line[start..];
    if body.starts_with('[') {
        let end = body.rfind(']').map_or(body.len(), |i| i + 1);
        let header = &body[..end];
        if !header.contains('#') {
            out.plain(&line[..start]);
            out.token(header, Class::Heading);
            return start + end;
        }
    }
    let Some(eq) = body.find('=') else {
        return 0;
    };
    let key = body[..eq].trim_end();
    let bare = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ' | '"');
    if key.is_empty() || !key.chars().all(bare) {
        return 0;
    }
    out.plain(&line[..start]);
    out.token(key, Class::Key);
    start + key.len()
}

/// Paints one diff line whole: file headers bold, hunk headers cyan,
/// additions green, removals red.
pub(super) fn diff_line(line: &str, out: &mut Painter) {
    let class = if line.starts_with("+++ ")
        || line.starts_with("--- ")
        || line.starts_with("diff ")
        || line.starts_with("index ")
    {
        Class::Heading
    } else if line.starts_with("@@") {
        Class::Hunk
    } else if line.starts_with('+') {
        Class::Added
    } else if line.starts_with('-') {
        Class::Removed
    } else {
        Class::Plain
    };
    out.token(line, class);
}
