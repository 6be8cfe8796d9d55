//! `search` and `list` on a generated tree of ~30,000 files, called through
//! the registry in `Mode::Plan` exactly as a model would call them.
//!
//! Run with `cargo bench -p oy-tools --bench search` (or `cargo xtask bench`,
//! which adds a whole-process comparison against `rg`). The tree is made
//! once under the temp dir by `tree.rs` and reused.
#![allow(
    clippy::disallowed_methods,
    clippy::expect_used,
    missing_docs,
    reason = "a benchmark builds its fixture with std::fs and fails loudly"
)]

#[path = "support/tree.rs"]
#[allow(dead_code, reason = "the patch case is the search_tree example's")]
mod tree;

use std::sync::{Arc, LazyLock};

use oy_boundary::{WalkOptions, Workspace};
use oy_tools::{Mode, Policy, Registry, ToolContext, default_registry};
use serde_json::{Value, json};

struct Bench {
    ctx: ToolContext,
    registry: Registry,
}

static BENCH: LazyLock<Bench> = LazyLock::new(|| {
    let root = tree::ensure().expect("generate the benchmark tree");
    let ws = Arc::new(Workspace::open(&root).expect("open the benchmark tree"));
    Bench {
        ctx: ToolContext::new(ws, Policy::new(Mode::Plan, false)),
        registry: default_registry(),
    }
});

fn call(tool: &str, args: Value) -> usize {
    let bench = &*BENCH;
    let out = bench.registry.invoke(&bench.ctx, "bench-1", tool, &args);
    assert!(out.ok, "{}", out.text);
    out.text.len()
}

fn main() {
    LazyLock::force(&BENCH);
    divan::main();
}

/// The model's usual call: a rare literal, default limit (200).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn search_literal() -> usize {
    call("search", json!({"pattern": tree::LITERAL, "literal": true}))
}

/// A regex with a few thousand matches, default limit (200): the result
/// pruning skips files that sort after the 201 smallest matches.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn search_regex_limit_200() -> usize {
    call("search", json!({"pattern": tree::REGEX}))
}

/// The same regex with every match returned (what `rg` does).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn search_regex_all() -> usize {
    call("search", json!({"pattern": tree::REGEX, "limit": 10_000}))
}

/// A case-insensitive literal (no fast literal prefilter for the exact bytes).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn search_literal_case_insensitive() -> usize {
    call(
        "search",
        json!({"pattern": "oy_bench_needle", "literal": true, "case_sensitive": false}),
    )
}

/// Every path, as `rg --files` would list them (plus directories).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn list_all() -> usize {
    call("list", json!({"pattern": "**/*", "limit": 1_000_000}))
}

/// The boundary's walker alone, sorted, without the tool's formatting.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn walk_only() -> usize {
    let ws = BENCH.ctx.workspace();
    let walk = ws
        .walk(&WalkOptions::new(ws.root_path()))
        .expect("walk the tree");
    walk.entries.len()
}
