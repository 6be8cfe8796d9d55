//! `patch` called through the registry in `Mode::AcceptEdits`, as a model
//! would call it: an ordinary three-hunk diff on a 5,000-line source file,
//! and the pathological case of a file of blank lines patched by a hunk of
//! blank context lines, placed and not placed.
//!
//! Run with `cargo bench -p oy-tools --bench patch` (or `cargo xtask bench`).
//! A case that changes its file restores it before every timed call.
#![allow(
    clippy::disallowed_methods,
    clippy::expect_used,
    missing_docs,
    reason = "a benchmark builds its fixture with std::fs and fails loudly"
)]

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use divan::Bencher;
use oy_boundary::Workspace;
use oy_tools::{Mode, Policy, Registry, ToolContext, default_registry, unified_diff};
use serde_json::json;

/// Lines of the source file of the ordinary case.
const SOURCE_LINES: usize = 5_000;
/// Lines of the blank file: one byte each, so about 200 KB.
const BLANK_LINES: usize = 200_000;
/// Context lines of the blank hunks: two bytes each, so about 4 KB.
const HUNK_LINES: usize = 2_000;
/// The all-blank-looking file has a marker line this often, so no window
/// of [`HUNK_LINES`] blank lines exists although every line is common.
const MARKER_EVERY: usize = 1_000;

struct Bench {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    ctx: ToolContext,
    registry: Registry,
    source: String,
    source_patch: String,
    blank: String,
    blank_placed: String,
    blank_missing: String,
    marked: String,
    marked_missing: String,
}

static BENCH: LazyLock<Bench> = LazyLock::new(|| {
    let tmp = tempfile::tempdir().expect("make the benchmark workspace");
    let root = fs::canonicalize(tmp.path()).expect("resolve the benchmark workspace");
    let ws = Arc::new(Workspace::open(&root).expect("open the benchmark workspace"));
    let source = source();
    let changed = source
        .lines()
        .enumerate()
        .map(|(no, line)| match no {
            1_002 | 2_502 | 4_502 => format!("{line} // changed\n"),
            _ => format!("{line}\n"),
        })
        .collect::<String>();
    let blank = "\n".repeat(BLANK_LINES);
    let marked = (0..BLANK_LINES)
        .map(|no| if no % MARKER_EVERY == 0 { "x\n" } else { "\n" })
        .collect();
    let bench = Bench {
        _tmp: tmp,
        ctx: ToolContext::new(ws, Policy::new(Mode::AcceptEdits, false)),
        registry: default_registry(),
        source_patch: unified_diff("source.rs", Some(&source), Some(&changed)),
        source,
        blank_placed: blank_hunk("blank.txt", "-\n+x\n"),
        blank_missing: blank_hunk("blank.txt", "-gone\n+x\n"),
        blank,
        marked_missing: blank_hunk("marked.txt", "-\n+x\n"),
        marked,
        root,
    };
    fs::write(bench.root.join("source.rs"), &bench.source).expect("write source.rs");
    fs::write(bench.root.join("blank.txt"), &bench.blank).expect("write blank.txt");
    fs::write(bench.root.join("marked.txt"), &bench.marked).expect("write marked.txt");
    bench
});

/// Rust-like functions, five lines each.
fn source() -> String {
    let mut text = String::new();
    for no in 0..SOURCE_LINES / 5 {
        let _ = write!(
            text,
            "fn function_{no}(value: usize) -> usize {{\n    let scaled = value * {};\n    scaled + {no}\n}}\n\n",
            no % 7 + 2
        );
    }
    text
}

/// A unified diff whose one hunk is [`HUNK_LINES`] blank context lines and
/// then `tail`, with a line number in the middle of the file.
fn blank_hunk(path: &str, tail: &str) -> String {
    format!(
        "--- a/{path}\n+++ b/{path}\n@@ -{0},{1} +{0},{1} @@\n{2}{tail}",
        BLANK_LINES / 2,
        HUNK_LINES + 1,
        " \n".repeat(HUNK_LINES),
    )
}

fn patch(text: &str) -> bool {
    let bench = &*BENCH;
    let out = bench
        .registry
        .invoke(&bench.ctx, "bench-1", "patch", &json!({ "patch": text }));
    out.ok
}

/// Puts `text` back into `name`, untimed, before each call that changes it.
fn restore(name: &str, text: &str) {
    fs::write(BENCH.root.join(name), text).expect("restore the benchmark file");
}

fn main() {
    LazyLock::force(&BENCH);
    divan::main();
}

/// The usual call: three hunks with accurate line numbers.
#[divan::bench(sample_count = 20)]
fn source_three_hunks(bencher: Bencher<'_, '_>) {
    bencher
        .with_inputs(|| restore("source.rs", &BENCH.source))
        .bench_values(|()| assert!(patch(&BENCH.source_patch)));
}

/// Blank context that matches: every window of the file is a candidate.
#[divan::bench(sample_count = 10)]
fn blank_lines_placed(bencher: Bencher<'_, '_>) {
    bencher
        .with_inputs(|| restore("blank.txt", &BENCH.blank))
        .bench_values(|()| assert!(patch(&BENCH.blank_placed)));
}

/// Blank context ending in a line the file lacks: a miss, with the
/// nearest-lines diagnostic.
#[divan::bench(sample_count = 10)]
fn blank_lines_missing(bencher: Bencher<'_, '_>) {
    bencher.bench(|| assert!(!patch(&BENCH.blank_missing)));
}

/// Blank context where every hunk line is common in the file but no window
/// of the file matches.
#[divan::bench(sample_count = 10)]
fn marked_lines_missing(bencher: Bencher<'_, '_>) {
    bencher.bench(|| assert!(!patch(&BENCH.marked_missing)));
}
