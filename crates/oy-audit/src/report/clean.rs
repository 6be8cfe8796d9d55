//! Terminal control sequences out of report text.
//!
//! A report is read in terminals (`cat ISSUES.md`, a pager, `git diff`)
//! and its text comes from the model and from the repository's file
//! names, both untrusted. An escape sequence there could set the
//! clipboard (OSC 52), disguise a link (OSC 8), rewrite what the screen
//! shows (CSI cursor movement, colours) or reorder the text it sits in
//! (bidirectional overrides). Every string of a report passes through
//! [`without_controls`] before it is rendered.

/// `text` without escape sequences (ESC followed by a CSI, OSC, DCS, SOS,
/// PM, APC or a single character), C1 controls (and the CSI and OSC
/// sequences they open), other C0 controls but newline and tab, DEL, and
/// bidirectional formatting characters.
pub(crate) fn without_controls(text: &str) -> String {
    if !text.chars().any(is_dropped) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                // `ESC c`, `ESC 7`, `ESC (B`…: one more character at most
                // matters, and it is dropped with the ESC.
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if is_dropped(c) => {}
            c => out.push(c),
        }
    }
    out
}

fn is_dropped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// A CSI's parameters and intermediates, then its final byte.
fn skip_csi(chars: &mut impl Iterator<Item = char>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            return;
        }
    }
}

/// A control string up to its terminator: BEL, ST (`ESC \` or U+009C),
/// or the end of the text.
fn skip_string(chars: &mut std::iter::Peekable<impl Iterator<Item = char>>) {
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
    use super::without_controls;

    #[test]
    fn sequences_and_controls_go_and_text_stays() {
        for (input, expected) in [
            ("plain\ttext\nline", "plain\ttext\nline"),
            ("a\u{1b}]52;c;ZXZpbA==\u{7}b", "ab"),
            ("a\u{1b}]52;c;ZXZpbA==\u{1b}\\b", "ab"),
            (
                "\u{1b}]8;;https://evil.example\u{1b}\\click\u{1b}]8;;\u{1b}\\",
                "click",
            ),
            ("red \u{1b}[31mtext\u{1b}[0m", "red text"),
            ("up\u{1b}[2Aover", "upover"),
            ("c1 \u{9b}31mcsi", "c1 csi"),
            ("c1 \u{9d}52;c;x\u{9c}osc", "c1 osc"),
            ("bell\u{7} back\u{8}space\r", "bell backspace"),
            ("rtl \u{202e}evil\u{202c} \u{2067}x\u{2069}", "rtl evil x"),
            ("dcs \u{1b}Pq#0;2;0;0;0\u{1b}\\ end", "dcs  end"),
            ("reset \u{1b}c done", "reset  done"),
            ("unterminated \u{1b}]52;c;AAAA", "unterminated "),
            ("ümlaut → ✓", "ümlaut → ✓"),
        ] {
            assert_eq!(without_controls(input), expected, "{input:?}");
        }
    }
}
