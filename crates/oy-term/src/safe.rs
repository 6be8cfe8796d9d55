//! Terminal-safe text: the one rule every character this crate outputs
//! from its input passes through.
//!
//! Text a model, a file or a command wrote may hold escape sequences (a
//! colour, a hyperlink, a cursor move, a title change) or characters that
//! reorder or hide what follows (bidi overrides, zero-width marks). Shown
//! as they are, they let that text forge what the screen says. Here each
//! such character becomes U+FFFD, so it is visible and harmless; the only
//! escape sequences that reach the output are this crate's own SGR
//! colours (`style.rs`).

/// The replacement shown for an unsafe character.
pub(crate) const REPLACEMENT: char = '\u{fffd}';

/// Whether `c` must not reach a terminal as it is: a control character
/// (C0, DEL, C1) other than `\n` and `\t`, or an invisible or bidi
/// formatting character.
pub fn is_unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_invisible(c)
}

/// Characters that change how text is laid out, or carry text, without
/// being seen: soft hyphen, the combining grapheme joiner, bidi marks,
/// embeddings, overrides and isolates, zero-width spaces and joiners, line
/// and paragraph separators, invisible operators, the byte-order mark,
/// interlinear annotation marks, blank fillers (Hangul, Khmer, Mongolian
/// selectors), tag characters and the variation selectors of the
/// supplement (both can spell hidden text). The emoji variation selectors
/// U+FE00–U+FE0F stay: ordinary emoji use them.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{3164}' | '\u{feff}'
        | '\u{ffa0}' | '\u{fff9}'..='\u{fffb}' | '\u{e0000}'..='\u{e007f}'
        | '\u{e0100}'..='\u{e01ef}')
}

/// `text` with every unsafe character (see [`is_unsafe_char`]) replaced
/// by U+FFFD; newlines and tabs are kept.
pub fn terminal_safe(text: &str) -> String {
    text.chars()
        .map(|c| if is_unsafe_char(c) { REPLACEMENT } else { c })
        .collect()
}

/// [`terminal_safe`] for text that must stay on one line: a newline or a
/// tab also becomes U+FFFD, so the text cannot forge further lines or
/// columns.
pub fn terminal_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c == '\n' || c == '\t' || is_unsafe_char(c) {
                REPLACEMENT
            } else {
                c
            }
        })
        .collect()
}

/// One line for display: unsafe characters and newlines become U+FFFD
/// (as in [`terminal_line`]) and tabs are expanded to four-column stops,
/// counted after the replacement so columns stay aligned.
pub(crate) fn display_line(text: &str) -> String {
    let safe: String = text
        .chars()
        .map(|c| {
            if c == '\n' || is_unsafe_char(c) {
                REPLACEMENT
            } else {
                c
            }
        })
        .collect();
    crate::text::expand_tabs(&safe, 4)
}

/// `text` with ANSI escape sequences (CSI such as colours and cursor
/// moves, OSC such as titles and hyperlinks, and other two-character
/// escapes) removed rather than replaced, then made [`terminal_safe`]:
/// for a command's own coloured output, where the sequences carry no text
/// worth showing. A sequence cut off at the end is removed too.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates, then one final byte.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC, DCS, SOS, PM, APC: a string ended by BEL or ST.
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                // nF escapes (charset choices): intermediates, then a final
                // byte; any other escape is two characters long.
                Some(' '..='/') => {
                    for c in chars.by_ref() {
                        if !(' '..='/').contains(&c) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\u{9b}' => {
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if is_unsafe_char(c) => out.push(REPLACEMENT),
            c => out.push(c),
        }
    }
    out
}

/// Skips a control string up to and including its terminator (BEL, ST as
/// ESC `\`, or the C1 ST).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_invisibles_become_replacement() {
        let hostile = "a\u{1b}[31mb\u{7}c\u{9b}d\u{202e}e\u{200b}f\u{feff}g\u{2066}h\rk\u{7f}";
        assert_eq!(
            terminal_safe(hostile),
            "a\u{fffd}[31mb\u{fffd}c\u{fffd}d\u{fffd}e\u{fffd}f\u{fffd}g\u{fffd}h\u{fffd}k\u{fffd}"
        );
    }

    #[test]
    fn hidden_text_carriers_become_replacement_but_emoji_stay() {
        // "hi" spelled in tag characters, a supplement variation selector,
        // a Hangul filler: text a reader cannot see.
        let hidden = "a\u{e0068}\u{e0069}b\u{e0100}c\u{3164}d\u{034f}e";
        assert_eq!(
            terminal_safe(hidden),
            "a\u{fffd}\u{fffd}b\u{fffd}c\u{fffd}d\u{fffd}e"
        );
        assert_eq!(terminal_safe("\u{2764}\u{fe0f}"), "\u{2764}\u{fe0f}");
    }

    #[test]
    fn safe_keeps_newline_and_tab_line_does_not() {
        assert_eq!(terminal_safe("a\nb\tc"), "a\nb\tc");
        assert_eq!(terminal_line("a\nb\tc"), "a\u{fffd}b\u{fffd}c");
    }

    #[test]
    fn ordinary_text_is_unchanged() {
        let text = "héllo — 世界 🦀 ∑ x²";
        assert_eq!(terminal_safe(text), text);
        assert_eq!(terminal_line(text), text);
    }

    #[test]
    fn strip_ansi_removes_sequences_and_replaces_the_rest() {
        assert_eq!(strip_ansi("\u{1b}[1;31merror\u{1b}[0m: x"), "error: x");
        assert_eq!(
            strip_ansi("\u{1b}]8;;https://evil\u{1b}\\link\u{1b}]8;;\u{7}!"),
            "link!"
        );
        assert_eq!(strip_ansi("\u{1b}]0;title\u{7}ok"), "ok");
        assert_eq!(strip_ansi("a\u{1b}(Bb"), "ab");
        assert_eq!(strip_ansi("cut \u{1b}[3"), "cut ");
        assert_eq!(strip_ansi("bidi\u{202e}x\u{8}"), "bidi\u{fffd}x\u{fffd}");
        assert_eq!(strip_ansi("\u{9b}31mred"), "red");
    }
}
