//! The shared output limiter: head and tail kept, an exact marker, UTF-8
//! safe, never a silent drop — and the registry applying it to every tool.

use oy_tools::limit::{Limit, limit, marker};
use oy_tools::{Limit as ReexportedLimit, Mode};
use proptest::prelude::*;
use serde_json::json;

use crate::support::Env;

#[test]
fn short_text_is_untouched() {
    let out = limit("a\nb\n", Limit::bytes(100));
    assert_eq!(out.text, "a\nb\n");
    assert!(!out.truncated());
}

#[test]
fn long_text_keeps_head_and_tail_on_line_boundaries() {
    let text: String = (1..=100).map(|n| format!("line {n:03}\n")).collect();
    let out = limit(&text, Limit::bytes(108));
    assert_eq!(
        out.text,
        "line 001\nline 002\nline 003\nline 004\nline 005\nline 006\n[truncated: 88 lines / 792 bytes omitted]\nline 095\nline 096\nline 097\nline 098\nline 099\nline 100\n"
    );
    assert_eq!((out.omitted_lines, out.omitted_bytes), (88, 792));
}

#[test]
fn line_cap_applies_when_lines_are_short() {
    let text: String = (1..=50).map(|n| format!("{n}\n")).collect();
    let out = limit(
        &text,
        Limit {
            max_bytes: 1 << 20,
            max_lines: 4,
        },
    );
    assert_eq!(
        out.text,
        "1\n2\n[truncated: 46 lines / 131 bytes omitted]\n49\n50\n"
    );
}

#[test]
fn one_huge_line_is_cut_on_character_boundaries() {
    let text = "é".repeat(1000); // 2 bytes each
    let out = limit(&text, Limit::bytes(101));
    assert!(out.truncated());
    assert!(out.text.contains("[truncated: 1 lines / "), "{}", out.text);
}

#[test]
fn registry_caps_every_tool_output_and_keeps_the_full_text() {
    let env = Env::new(Mode::Plan);
    let _ = ReexportedLimit::default();
    let items: Vec<serde_json::Value> = (0..3000)
        .map(|n| json!({"text": format!("step {n} {}", "z".repeat(30)), "status": "pending"}))
        .collect();
    let out = env.call("todo", json!({ "items": items }));
    assert!(out.ok);
    assert!(out.truncated);
    assert!(out.text.len() <= 64 * 1024 + 100, "{}", out.text.len());
    assert!(out.text.contains("[truncated: "), "marker missing");
    let full = out.full_text.expect("full text kept");
    assert!(full.contains("step 1500 "));
    assert!(full.len() > out.text.len());
}

proptest! {
    #[test]
    fn limit_is_head_marker_tail_and_accounts_for_every_byte(
        text in "(?s)[a-zé\n]{0,400}",
        max_bytes in 0usize..200,
        max_lines in 0usize..20,
    ) {
        let out = limit(&text, Limit { max_bytes, max_lines });
        if !out.truncated() {
            prop_assert_eq!(out.text.as_ref(), text.as_str());
        } else {
            let mark = marker(out.omitted_lines, out.omitted_bytes);
            let shown = out.text.as_ref();
            let at = shown.find(&mark).expect("marker present");
            let head = shown[..at].strip_suffix('\n').map_or(&shown[..at], |h| if text.starts_with(&shown[..at]) { &shown[..at] } else { h });
            let tail = &shown[at + mark.len() + 1..];
            prop_assert!(text.starts_with(head), "head is a prefix");
            prop_assert!(text.ends_with(tail), "tail is a suffix");
            prop_assert_eq!(head.len() + out.omitted_bytes + tail.len(), text.len());
            prop_assert!(head.len() + tail.len() <= max_bytes.max(1) + 4, "kept {} of {}", head.len() + tail.len(), max_bytes);
        }
    }
}
