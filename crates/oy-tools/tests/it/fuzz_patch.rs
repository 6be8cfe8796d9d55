//! Fuzz target `patch`: the `patch` tool, parser and applier together, on
//! patches in both formats built from a grammar (envelope sections, unified
//! diffs with arbitrary hunk headers, hostile paths, lines of the fixture's
//! own files so hunks often match) and on mutated valid patches. Each case
//! runs in a fresh workspace; the properties: no panic, a well-formed
//! error, a refused patch changes nothing (all-or-nothing), and nothing
//! outside the root is ever touched.

use oy_tools::Mode;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::json;

use crate::fuzz::{fuzz, mutated_text};
use crate::fuzz_tools::{Bench, well_formed};

/// Paths a header may name: the fixture's files and links, new names, and
/// every way out.
const PATHS: &[&str] = &[
    "a.txt",
    "src/lib.rs",
    "crlf.txt",
    "noeol.txt",
    "empty.txt",
    "bin.dat",
    "dir/deep/f.md",
    "new.txt",
    "src/new/deeper.rs",
    "dir",
    "dir/",
    "a.txt/",
    "a.txt/x",
    "./a.txt",
    "src/../a.txt",
    "../outside/secret.txt",
    "../outside/new.txt",
    "/etc/passwd",
    "/",
    "",
    " ",
    "out",
    "outdir/secret.txt",
    "outdir/new.txt",
    "dir/up/outside/secret.txt",
    ".git/config",
    ".oy/tools.json",
    "a b.txt",
    "tab\there",
    "esc\u{1b}[31m",
    "\u{202e}txt.exe",
    "nul\0byte",
];

/// Lines hunks are made of: most appear in the fixture, so hunks match.
const LINES: &[&str] = &[
    "one",
    "two",
    "three",
    "fn one() {",
    "    1",
    "}",
    "fn two() {",
    "    2",
    "",
    "fn three() {",
    "    3",
    "x\r",
    "y\r",
    "first",
    "last",
    "# title",
    "body",
    "new line",
    "  trailing  ",
    "*** End Patch",
    "@@",
    "--- a/a.txt",
    "\\ No newline at end of file",
];

fn path() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => select(PATHS).prop_map(str::to_owned),
        1 => "[a-z./]{0,12}",
        1 => any::<String>().prop_map(|s| s.chars().take(20).collect()),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => select(LINES).prop_map(str::to_owned),
        1 => "[ -~]{0,20}",
        1 => any::<String>().prop_map(|s| s.chars().take(10).collect()),
    ]
}

/// One hunk body line: a kind character and a line (or a bare marker).
fn hunk_line() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => (select(vec![' ', '-', '+']), line()).prop_map(|(kind, text)| format!("{kind}{text}")),
        1 => Just(String::new()),
        1 => Just("\\ No newline at end of file".to_owned()),
        1 => Just("*** End of File".to_owned()),
        1 => line(),
    ]
}

fn hunk_lines() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(hunk_line(), 0..8)
}

/// A number for a hunk header: small ones that can match, and extremes.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (0u64..12).prop_map(|n| n.to_string()),
        1 => Just(u64::MAX.to_string()),
        1 => Just("18446744073709551616".to_owned()),
        1 => Just("-1".to_owned()),
        1 => Just(String::new()),
        1 => Just("4294967295".to_owned()),
    ]
}

fn range() -> impl Strategy<Value = String> {
    (number(), prop::option::of(number())).prop_map(|(start, count)| match count {
        Some(count) => format!("{start},{count}"),
        None => start,
    })
}

fn envelope_section() -> impl Strategy<Value = String> {
    let hunks = prop::collection::vec((prop::option::of(line()), hunk_lines()), 0..3);
    prop_oneof![
        (path(), prop::collection::vec(line(), 0..5)).prop_map(|(path, lines)| {
            let mut out = format!("*** Add File: {path}\n");
            for line in lines {
                out.push_str(&format!("+{line}\n"));
            }
            out
        }),
        path().prop_map(|path| format!("*** Delete File: {path}\n")),
        (path(), prop::option::of(path()), hunks).prop_map(|(path, to, hunks)| {
            let mut out = format!("*** Update File: {path}\n");
            if let Some(to) = to {
                out.push_str(&format!("*** Move to: {to}\n"));
            }
            for (context, lines) in hunks {
                match context {
                    Some(context) => out.push_str(&format!("@@ {context}\n")),
                    None => out.push_str("@@\n"),
                }
                for line in lines {
                    out.push_str(&line);
                    out.push('\n');
                }
            }
            out
        }),
        line().prop_map(|line| format!("{line}\n")),
    ]
}

fn envelope() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(envelope_section(), 0..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(sections, begin, end)| {
            let mut out = String::new();
            if begin {
                out.push_str("*** Begin Patch\n");
            }
            for section in sections {
                out.push_str(&section);
            }
            if end {
                out.push_str("*** End Patch\n");
            }
            out
        })
}

fn unified_file() -> impl Strategy<Value = String> {
    let hunks = prop::collection::vec((range(), range(), hunk_lines()), 0..3);
    (
        prop_oneof![
            path().prop_map(|p| format!("a/{p}")),
            path(),
            Just("/dev/null".to_owned())
        ],
        prop_oneof![
            path().prop_map(|p| format!("b/{p}")),
            path(),
            Just("/dev/null".to_owned())
        ],
        any::<bool>(),
        hunks,
    )
        .prop_map(|(old, new, git, hunks)| {
            let mut out = String::new();
            if git {
                out.push_str(&format!("diff --git {old} {new}\n"));
            }
            out.push_str(&format!("--- {old}\n+++ {new}\n"));
            for (from, to, lines) in hunks {
                out.push_str(&format!("@@ -{from} +{to} @@\n"));
                for line in lines {
                    out.push_str(&line);
                    out.push('\n');
                }
            }
            out
        })
}

fn unified() -> impl Strategy<Value = String> {
    prop::collection::vec(unified_file(), 1..3).prop_map(|files| files.concat())
}

/// Valid patches (each applies to the fixture), to mutate.
const SEEDS: &[&str] = &[
    "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n three\n*** End Patch\n",
    "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Delete File: empty.txt\n*** End Patch\n",
    "*** Begin Patch\n*** Update File: src/lib.rs\n*** Move to: src/moved.rs\n@@ fn two() {\n-    2\n+    22\n*** End Patch\n",
    "*** Begin Patch\n*** Update File: noeol.txt\n@@\n first\n-last\n+LAST\n*** End of File\n*** End Patch\n",
    "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
    "--- a/noeol.txt\n+++ b/noeol.txt\n@@ -1,2 +1,2 @@\n first\n-last\n\\ No newline at end of file\n+last\n",
    "--- /dev/null\n+++ b/src/new/deeper.rs\n@@ -0,0 +1,2 @@\n+fn f() {}\n+\n",
    "diff --git a/crlf.txt b/crlf.txt\n--- a/crlf.txt\n+++ b/crlf.txt\n@@ -2 +2 @@\n-y\r\n+Y\r\n",
    "--- a/a.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-one\n-two\n-three\n",
];

const DICTIONARY: &[&str] = &[
    "\n",
    "\r\n",
    "*** Begin Patch\n",
    "*** End Patch\n",
    "*** Add File: ",
    "*** Update File: ",
    "*** Delete File: ",
    "*** Move to: ",
    "*** End of File\n",
    "@@",
    "@@ -1,3 +1,3 @@\n",
    "@@ -0,0 +1 @@\n",
    "@@ -18446744073709551615,1 +1 @@\n",
    "--- a/",
    "+++ b/",
    "/dev/null",
    "\\ No newline at end of file\n",
    "../",
    "/",
    "outdir/",
    "\0",
    "\u{1b}",
    "\u{feff}",
    "-",
    "+",
    " ",
];

fn patches() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => envelope(),
        3 => unified(),
        4 => mutated_text(SEEDS, DICTIONARY, 6),
    ]
}

/// Runs one patch in a fresh workspace and checks the properties.
fn check(bench: &Bench, text: &str) -> Result<(), TestCaseError> {
    let case = bench.case(Mode::AcceptEdits);
    let output = bench
        .registry
        .invoke(&case.ctx, "call-1", "patch", &json!({ "patch": text }));
    well_formed(&output).map_err(TestCaseError::fail)?;
    case.outside_untouched().map_err(TestCaseError::fail)?;
    if !output.ok {
        prop_assert_eq!(
            case.now(),
            case.before.clone(),
            "a refused patch changed the workspace: {}",
            output.text
        );
    } else {
        prop_assert!(output.text.starts_with("patched "), "{}", output.text);
    }
    Ok(())
}

#[test]
fn fuzz_patch_tool() {
    let bench = Bench::new();
    fuzz("patch", 150, patches(), |text| check(&bench, &text));
}

/// Seeds must apply, or the mutations start from nothing useful.
#[test]
fn fuzz_patch_seeds_apply() {
    let bench = Bench::new();
    for seed in SEEDS {
        let case = bench.case(Mode::AcceptEdits);
        let output = bench
            .registry
            .invoke(&case.ctx, "call-1", "patch", &json!({ "patch": seed }));
        assert!(output.ok, "{seed}\n{}", output.text);
    }
}
