//! A whole-process stand-in for `oy tool` in benchmarks: runs one tool
//! (`search`, `list`, `sloc`, `read` or `patch`) once over a directory and
//! prints the full result, so that `cargo xtask bench` can time it against
//! `rg`, `tokei`, `sed` and `git apply`.
//!
//! ```text
//! search_tree --tree                       generate the benchmark tree; print its
//!                                          path, its literal and its regex pattern,
//!                                          and the file the read case slices
//! search_tree --patch-case DIR             generate a patch case in DIR (pristine/
//!                                          files and forward.diff); print the
//!                                          number of files it changes
//! search_tree ROOT PATTERN [--literal]     search ROOT (every match, up to 10,000)
//! search_tree ROOT PATTERN --count         matching lines per file (`rg -c`)
//! search_tree ROOT --files                 list every path under ROOT
//! search_tree ROOT --glob GLOB             list the paths under ROOT matching GLOB
//! search_tree ROOT --sloc                  count lines of code under ROOT
//! search_tree ROOT --read PATH OFFSET LIMIT  read LIMIT lines of PATH from OFFSET
//! search_tree ROOT --patch DIFF            apply the diff in the file DIFF to ROOT
//! ```
#![allow(
    clippy::disallowed_methods,
    missing_docs,
    reason = "a benchmark helper: the tree generator writes with std::fs"
)]

#[path = "../benches/support/tree.rs"]
#[allow(dead_code, reason = "the benchmark uses the rest")]
mod tree;

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use oy_boundary::Workspace;
use oy_tools::{ChangeJournal, Limit, Mode, Policy, ToolContext, ToolState, default_registry};
use serde_json::json;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--tree"] => tree::ensure()
            .map(|root| {
                format!(
                    "{}\n{}\n{}\n{}\n",
                    root.display(),
                    tree::LITERAL,
                    tree::REGEX,
                    tree::READ_FILE
                )
            })
            .map_err(|e| format!("cannot generate the tree: {e}")),
        ["--patch-case", dir] => tree::patch_case(Path::new(dir))
            .map(|files| format!("{files}\n"))
            .map_err(|e| format!("cannot generate the patch case: {e}")),
        [root, "--files"] => run(
            root,
            "list",
            json!({"pattern": "**/*", "limit": 10_000_000}),
        ),
        [root, "--glob", glob] => run(root, "list", json!({"pattern": glob, "limit": 10_000_000})),
        // As the model calls it: the default window of 200 rows.
        [root, "--glob-default", glob] => run(root, "list", json!({"pattern": glob})),
        [root, "--sloc"] => run(root, "sloc", json!({})),
        [root, "--read", path, offset, limit] => match (offset.parse::<usize>(), limit.parse::<usize>()) {
            (Ok(offset), Ok(limit)) => run(
                root,
                "read",
                json!({"path": path, "offset": offset, "limit": limit}),
            ),
            _ => Err("OFFSET and LIMIT are numbers".to_owned()),
        },
        [root, "--patch", diff] => std::fs::read_to_string(diff)
            .map_err(|e| format!("cannot read {diff}: {e}"))
            .and_then(|patch| run(root, "patch", json!({ "patch": patch }))),
        [root, pattern] => run(root, "search", json!({"pattern": pattern, "limit": 10_000})),
        [root, pattern, "--count"] => run(
            root,
            "search",
            json!({"pattern": pattern, "count": true, "limit": 10_000}),
        ),
        [root, pattern, "--literal"] => run(
            root,
            "search",
            json!({"pattern": pattern, "literal": true, "limit": 10_000}),
        ),
        _ => Err(
            "usage: search_tree --tree | --patch-case DIR | ROOT PATTERN [--literal|--count] | ROOT --files \
             | ROOT --glob GLOB | ROOT --glob-default GLOB | ROOT --sloc | ROOT --read PATH OFFSET LIMIT | ROOT --patch DIFF"
                .to_owned(),
        ),
    };
    match result {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(text.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            }
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "search_tree: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(root: &str, tool: &str, args: serde_json::Value) -> Result<String, String> {
    let ws = Workspace::open(root).map_err(|e| e.to_string())?;
    let mode = if tool == "patch" {
        Mode::AcceptEdits
    } else {
        Mode::Plan
    };
    // As `oy tool` without `--session`: no read records are kept.
    let mut ctx = ToolContext::new(Arc::new(ws), Policy::new(mode, false))
        .with_output_limit(Limit::bytes(usize::MAX))
        .with_state(ToolState::one_shot());
    // As `oy tool patch` does: a change of several files is journalled
    // first (docs/crash-safety.md), so the benchmark pays what users pay.
    // `SEARCH_TREE_NO_JOURNAL=1` measures without, for comparison.
    if tool == "patch" && std::env::var_os("SEARCH_TREE_NO_JOURNAL").is_none() {
        let base = std::env::temp_dir().join("oy-search-tree-journal");
        let journal = ChangeJournal::for_workspace(&base, ctx.workspace().root());
        ctx = ctx.with_journal(Arc::new(journal));
    }
    let out = default_registry().invoke(&ctx, "search-tree-1", tool, &args);
    if out.ok {
        Ok(out.full_text.unwrap_or(out.text))
    } else {
        Err(out.text)
    }
}
