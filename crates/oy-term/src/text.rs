//! Display width: measuring, expanding tabs and cutting text to a number
//! of terminal columns, Unicode-width aware (wide CJK characters take two
//! columns, combining marks none).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Columns `text` takes on a terminal (`text` is terminal-safe).
pub(crate) fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// Columns one character takes.
pub(crate) fn char_width(c: char) -> usize {
    UnicodeWidthChar::width(c).unwrap_or(0)
}

/// `text` with each tab replaced by spaces up to the next multiple of
/// `stop` columns, counted from the start of `text`.
pub(crate) fn expand_tabs(text: &str, stop: usize) -> String {
    if !text.contains('\t') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut col = 0;
    for c in text.chars() {
        if c == '\t' {
            let next = (col / stop + 1) * stop;
            out.extend(std::iter::repeat_n(' ', next - col));
            col = next;
        } else {
            out.push(c);
            col += char_width(c);
        }
    }
    out
}

/// The longest prefix of `text` that fits in `max` columns, and its width.
pub(crate) fn take_width(text: &str, max: usize) -> (&str, usize) {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        let w = char_width(c);
        if used + w > max {
            return (&text[..i], used);
        }
        used += w;
    }
    (text, used)
}

/// `text` cut to `max` columns, ending in `…` when something was cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if width(text) <= max {
        return text.to_owned();
    }
    let (head, _) = take_width(text, max.saturating_sub(1));
    let mut out = head.to_owned();
    if max > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_wide_characters_twice() {
        assert_eq!(width("ab"), 2);
        assert_eq!(width("世界"), 4);
        assert_eq!(width("e\u{301}"), 1);
    }

    #[test]
    fn tabs_expand_to_the_next_stop() {
        assert_eq!(expand_tabs("\tx", 4), "    x");
        assert_eq!(expand_tabs("ab\tx", 4), "ab  x");
        assert_eq!(expand_tabs("abcd\tx", 4), "abcd    x");
    }

    #[test]
    fn truncate_keeps_width_and_marks_the_cut() {
        assert_eq!(truncate("hello", 5), "hello");
        assert_eq!(truncate("hello world", 8), "hello w…");
        assert_eq!(truncate("世界世界", 5), "世界…");
        assert_eq!(truncate("abc", 0), "");
    }
}
