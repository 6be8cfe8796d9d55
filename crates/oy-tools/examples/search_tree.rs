//! A whole-process stand-in for `oy` in benchmarks: runs the `search` or
//! `list` tool once over a directory and prints the full result, so that
//! `cargo xtask bench` can time it against `rg` / `rg --files`.
//!
//! ```text
//! search_tree --tree                       generate the benchmark tree; print its
//!                                          path, its literal and its regex pattern
//! search_tree ROOT PATTERN [--literal]     search ROOT (every match, up to 10,000)
//! search_tree ROOT --files                 list every path under ROOT
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
use std::process::ExitCode;
use std::sync::Arc;

use oy_boundary::Workspace;
use oy_tools::{Limit, Mode, Policy, ToolContext, default_registry};
use serde_json::json;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--tree"] => tree::ensure()
            .map(|root| format!("{}\n{}\n{}\n", root.display(), tree::LITERAL, tree::REGEX))
            .map_err(|e| format!("cannot generate the tree: {e}")),
        [root, "--files"] => run(
            root,
            "list",
            json!({"pattern": "**/*", "limit": 10_000_000}),
        ),
        [root, pattern] => run(root, "search", json!({"pattern": pattern, "limit": 10_000})),
        [root, pattern, "--literal"] => run(
            root,
            "search",
            json!({"pattern": pattern, "literal": true, "limit": 10_000}),
        ),
        _ => Err("usage: search_tree --tree | ROOT PATTERN [--literal] | ROOT --files".to_owned()),
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
    let ctx = ToolContext::new(Arc::new(ws), Policy::new(Mode::Plan, false))
        .with_output_limit(Limit::bytes(usize::MAX));
    let out = default_registry().invoke(&ctx, "search-tree-1", tool, &args);
    if out.ok {
        Ok(out.full_text.unwrap_or(out.text))
    } else {
        Err(out.text)
    }
}
