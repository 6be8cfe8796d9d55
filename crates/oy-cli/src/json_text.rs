//! JSON for stdout (`--json`): serde's text, with every character a
//! terminal would act on written as a `\uXXXX` escape.
//!
//! serde escapes the C0 controls (ESC, BEL) but writes DEL, the C1
//! controls (U+009B is a one-character CSI) and bidi overrides raw, and
//! JSON output is often read on a terminal. Outside strings JSON text is
//! ASCII, so each such character sits inside a string, where its escape
//! means the same character: a parser reads the data unchanged.

use std::fmt::Write as _;

use serde::Serialize;

use crate::render::terminal_safe;

/// `value` as JSON (indented when `pretty`), safe to print on a terminal.
pub(crate) fn json_text<T: Serialize + ?Sized>(
    value: &T,
    pretty: bool,
) -> serde_json::Result<String> {
    let text = if pretty {
        serde_json::to_string_pretty(value)?
    } else {
        serde_json::to_string(value)?
    };
    Ok(escape_for_terminal(&text))
}

/// `json` with what [`terminal_safe`] would replace escaped instead, so
/// the renderer's rule stays the one definition of "unsafe".
fn escape_for_terminal(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut one = [0u8; 4];
    for c in json.chars() {
        // Printable ASCII and the newlines of indented output are safe;
        // a raw tab or control never comes out of serde.
        let safe = (c.is_ascii() && !c.is_ascii_control()) || c == '\n' || {
            let alone: &str = c.encode_utf8(&mut one);
            terminal_safe(alone) == alone
        };
        if safe {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::json_text;

    #[test]
    fn terminal_controls_are_escaped_and_the_data_round_trips() {
        let hostile = "a\x1b]0;t\x07\u{9b}2J\u{7f}\u{202e}b\u{200b}é\n";
        for pretty in [false, true] {
            let text = json_text(&serde_json::json!({ "path": hostile }), pretty).unwrap();
            assert!(
                !text.chars().any(|c| c.is_control() && c != '\n'),
                "{text:?}"
            );
            assert!(!text.contains(['\u{202e}', '\u{200b}']), "{text:?}");
            assert!(text.contains('é'), "{text:?}");
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(back["path"], hostile);
        }
    }
}
