//! Hostile input never yields an escape sequence oy-term did not write
//! itself, nor any other unsafe character: escape sequences, OSC 8
//! hyperlinks, C1 controls and bidi overrides in prose, code blocks, link
//! URLs, headings, table cells, diff lines and command output.

mod common;

use common::{HOSTILE, SAMPLES, only_own_sgr};
use oy_term::{
    DiffOptions, HighlightState, Lang, MarkdownOptions, MarkdownStream, Tail, highlight_line,
    render_diff, render_markdown, strip_ansi, terminal_line, terminal_safe,
};
use proptest::prelude::*;

const LANGS: &[&str] = &[
    "rust", "python", "js", "go", "c", "java", "sh", "json", "toml", "yaml", "diff", "other",
];

fn check(out: &str) {
    if let Err(problem) = only_own_sgr(out) {
        panic!("{problem}\nin {out:?}");
    }
}

#[test]
fn the_checker_catches_foreign_sequences() {
    assert!(only_own_sgr("\u{1b}[1;36mok\u{1b}[0m").is_ok());
    assert!(only_own_sgr("\u{1b}]8;;x\u{7}").is_err());
    assert!(only_own_sgr("\u{1b}[2J").is_err());
    assert!(only_own_sgr("\u{1b}[38;5;1m").is_err());
    assert!(only_own_sgr("\u{1b}[1").is_err());
    assert!(only_own_sgr("a\u{202e}b").is_err());
    assert!(only_own_sgr("a\u{9b}b").is_err());
}

#[test]
fn markdown_whole_and_streamed_stays_safe() {
    for text in SAMPLES {
        for color in [true, false] {
            for width in [0, 20, 80] {
                let options = MarkdownOptions { color, width };
                check(&render_markdown(text, options));
                let mut stream = MarkdownStream::new(options);
                let mut out = String::new();
                for c in text.chars() {
                    out.push_str(&stream.push(&c.to_string()));
                }
                out.push_str(&stream.finish());
                check(&out);
            }
        }
    }
}

#[test]
fn every_hostile_sequence_is_visibly_replaced() {
    let out = render_markdown(
        HOSTILE,
        MarkdownOptions {
            color: false,
            width: 80,
        },
    );
    assert!(!out.contains('\u{1b}'));
    assert!(out.contains("\u{fffd}]8;;https://evil.example"), "{out}");
    assert!(out.contains("\u{fffd}override\u{fffd}"));
}

#[test]
fn highlighted_code_stays_safe_in_every_language() {
    for lang in LANGS {
        let lang = Lang::from_name(lang);
        let mut state = HighlightState::default();
        for line in HOSTILE.lines() {
            check(&highlight_line(lang, &mut state, line, true));
        }
        check(&highlight_line(lang, &mut state, "a\nb\r\u{1b}[2J", true));
    }
}

#[test]
fn diffs_and_tails_stay_safe() {
    let diff = format!(
        "diff --git a/\u{1b}[31mx b/x\n--- a/x\u{202e}\n+++ b/x\n@@ -1,2 +1,2 @@\n-{HOSTILE}\n+\u{1b}]8;;u\u{7}new\n"
    );
    for max_lines in [None, Some(2)] {
        for width in [0, 10] {
            check(&render_diff(
                &diff,
                DiffOptions {
                    color: true,
                    width,
                    max_lines,
                },
            ));
        }
    }
    let mut tail = Tail::new(5);
    tail.push(HOSTILE.as_bytes());
    tail.push(b"\xff\xfe\x1b[2K\x1b]0;t\x07\r\x9b31m done");
    for line in tail.lines(40) {
        check(&line);
        assert!(!line.contains('\n'));
    }
}

#[test]
fn safety_functions_leave_nothing_unsafe() {
    check(&terminal_safe(HOSTILE));
    check(&terminal_line(HOSTILE));
    check(&strip_ansi(HOSTILE));
    assert!(!terminal_line(HOSTILE).contains(['\n', '\t']));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random text over Markdown punctuation and hostile characters.
    #[test]
    fn random_hostile_markdown_stays_safe(
        text in proptest::collection::vec(prop_oneof![
            Just("\u{1b}"), Just("["), Just("]"), Just("("), Just(")"), Just("`"), Just("```"),
            Just("\n"), Just("\n\n"), Just("|"), Just("-"), Just("#"), Just(">"), Just("*"),
            Just("<"), Just(">"), Just("\u{9b}"), Just("\u{202e}"), Just("\u{7}"), Just("\t"),
            Just("\r"), Just("8;;"), Just("a"), Just(" "), Just("\u{200b}"), Just("~~~"),
            Just("1. "), Just("\\"), Just("\u{85}"), Just("\u{0}"),
        ], 0..80),
        color in any::<bool>(),
        width in 0u16..60,
    ) {
        let text = text.concat();
        let out = render_markdown(&text, MarkdownOptions { color, width });
        prop_assert!(only_own_sgr(&out).is_ok(), "{:?} -> {:?}", text, out);
        let mut state = HighlightState::default();
        for lang in LANGS {
            let line = highlight_line(Lang::from_name(lang), &mut state, &text, color);
            prop_assert!(only_own_sgr(&line).is_ok(), "{:?}", line);
        }
        let diff = render_diff(&text, DiffOptions { color, width, max_lines: Some(5) });
        prop_assert!(only_own_sgr(&diff).is_ok(), "{:?}", diff);
    }
}
