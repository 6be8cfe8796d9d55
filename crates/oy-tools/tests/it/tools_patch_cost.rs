//! `patch` on inputs that would make a naive hunk matcher run for minutes:
//! the tool answers at once, and when placing the hunks would cost more
//! than its work budget it says so with a way out instead of searching on.

use oy_tools::{Mode, ToolOutput};
use serde_json::json;

use crate::support::{Env, assert_tool_error};

fn patch(env: &Env, text: &str) -> ToolOutput {
    env.call("patch", json!({ "patch": text }))
}

/// Lines of the two-letter file.
const LINES: usize = 200_000;
/// Lines of each hunk: long enough that its window is unique in the file.
const HUNK: usize = 32;
/// Hunks in the patch, one every [`SPACING`] lines of the first half.
const HUNKS: usize = 120;
const SPACING: usize = 800;

/// `a` and `b` in a fixed pseudo-random order: each letter is common, but
/// every window of [`HUNK`] lines occurs about once.
fn two_letter_lines() -> Vec<&'static str> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..LINES)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if state & 1 == 0 { "a" } else { "b" }
        })
        .collect()
}

/// A diff with one hunk per window at `k * SPACING`, each replacing the
/// window's last line, claiming the window starts at `line_of(k)` (1-based).
fn diff(lines: &[&str], line_of: impl Fn(usize) -> usize) -> String {
    let mut text = "--- a/ab.txt\n+++ b/ab.txt\n".to_owned();
    for k in 0..HUNKS {
        let at = k * SPACING;
        let line = line_of(k);
        text.push_str(&format!("@@ -{line},{HUNK} +{line},{HUNK} @@\n"));
        for letter in &lines[at..at + HUNK - 1] {
            text.push_str(&format!(" {letter}\n"));
        }
        text.push_str(&format!("-{}\n+changed {k}\n", lines[at + HUNK - 1]));
    }
    text
}

fn file_text(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[test]
fn hunks_of_common_lines_with_wrong_line_numbers_exceed_the_work_budget() {
    let env = Env::new(Mode::AcceptEdits);
    let lines = two_letter_lines();
    let text = file_text(&lines);
    env.file("ab.txt", &text);
    // Every hunk claims the end of the file: each search walks back over
    // half the file's lines before it meets the window.
    let out = patch(&env, &diff(&lines, |_| LINES));
    assert_tool_error(&out, "of ab.txt is too ambiguous to place cheaply");
    assert!(out.text.contains("nothing was changed"), "{}", out.text);
    assert!(
        out.text.contains(
            "RECOVERY: give the hunk a place of its own: add ' ' context lines that occur once in ab.txt, or an `@@ line` anchor"
        ),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("or use `replace` for a small edit or `write`"),
        "{}",
        out.text
    );
    assert_eq!(env.read("ab.txt"), text);
}

#[test]
fn the_same_hunks_with_their_line_numbers_apply() {
    let env = Env::new(Mode::AcceptEdits);
    let lines = two_letter_lines();
    env.file("ab.txt", &file_text(&lines));
    let out = patch(&env, &diff(&lines, |k| k * SPACING + 1));
    assert!(out.ok, "{}", out.text);
    let patched = env.read("ab.txt");
    let patched: Vec<&str> = patched.lines().collect();
    assert_eq!(patched.len(), LINES);
    for k in 0..HUNKS {
        assert_eq!(patched[k * SPACING + HUNK - 1], format!("changed {k}"));
    }
}

#[test]
fn a_hunk_of_blank_lines_on_a_file_of_blank_lines_answers_at_once() {
    let env = Env::new(Mode::AcceptEdits);
    let blank = "\n".repeat(LINES);
    env.file("blank.txt", &blank);
    let context = " \n".repeat(2_000);
    let missing = patch(
        &env,
        &format!("--- a/blank.txt\n+++ b/blank.txt\n@@ -5,2001 +5,2001 @@\n{context}-gone\n+x\n"),
    );
    assert_tool_error(&missing, "nearest lines in blank.txt");
    assert_eq!(env.read("blank.txt"), blank);
    let placed = patch(
        &env,
        &format!("--- a/blank.txt\n+++ b/blank.txt\n@@ -5,2001 +5,2001 @@\n{context}-\n+x\n"),
    );
    assert!(placed.ok, "{}", placed.text);
    assert_eq!(env.read("blank.txt").find('x'), Some(4 + 2_000));
}

/// The first `hunks` of [`diff`] for `path`, all claiming the file's end.
fn wrong_hunks(lines: &[&str], path: &str, hunks: usize) -> String {
    let whole = diff(lines, |_| LINES).replace("ab.txt", path);
    let mut sections = whole.split("@@ -").collect::<Vec<_>>();
    sections.truncate(hunks + 1);
    sections.join("@@ -")
}

#[test]
fn the_work_budget_is_the_whole_patch_s_not_each_file_s() {
    // 25 such hunks fit one file's worth of budget; three files of them
    // must not get three budgets.
    let env = Env::new(Mode::AcceptEdits);
    let lines = two_letter_lines();
    let text = file_text(&lines);
    env.file("zero.txt", &text)
        .file("one.txt", &text)
        .file("two.txt", &text)
        .file("three.txt", &text);
    let alone = patch(&env, &wrong_hunks(&lines, "zero.txt", 25));
    assert!(alone.ok, "{}", alone.text);
    let together = patch(
        &env,
        &format!(
            "{}{}{}",
            wrong_hunks(&lines, "one.txt", 25),
            wrong_hunks(&lines, "two.txt", 25),
            wrong_hunks(&lines, "three.txt", 25)
        ),
    );
    assert_tool_error(&together, "is too ambiguous to place cheaply");
    for name in ["one.txt", "two.txt", "three.txt"] {
        assert_eq!(env.read(name), text, "{name}");
    }
}
