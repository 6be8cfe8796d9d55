//! `cargo xtask bench`: the in-process benchmarks (`search` and `patch`),
//! then a whole-process comparison of oy's tool primitives against `rg`,
//! `tokei`, `sed` and `git apply` on the same tree (`tools.rs`).
//!
//! xtask depends on no oy crate, so the oy side of the comparison is the
//! `search_tree` example of oy-tools (it runs the real tools through the
//! registry, as a model would). It also generates the tree and names the
//! patterns, so the two sides cannot drift apart.

mod agent;
mod audit;
mod sandbox;
mod support;
mod tools;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::{cargo, run};

pub(crate) use agent::bench_agent;
pub(crate) use audit::bench_audit;
pub(crate) use sandbox::bench_sandbox;

/// The in-process divan benchmarks of oy-tools, run in this order.
const DIVAN_BENCHES: [&str; 2] = ["search", "patch"];

/// Runs the benchmarks; `divan_args` go to each bench binary after `--`.
pub(crate) fn bench(divan_args: &[String]) -> Result<()> {
    for name in DIVAN_BENCHES {
        let mut divan = cargo();
        divan.args(["bench", "-p", "oy-tools", "--bench", name]);
        if !divan_args.is_empty() {
            divan.arg("--").args(divan_args);
        }
        run(&format!("cargo bench -p oy-tools --bench {name}"), divan)?;
    }

    bench_tools(None)
}

/// Builds oy-tools' `search_tree` example and times the tool primitives
/// against their anchors (see `tools.rs`), or `example`, another build of it.
pub(crate) fn bench_tools(example: Option<PathBuf>) -> Result<()> {
    if let Some(example) = example {
        return tools::bench_tools(&example);
    }
    let mut build = cargo();
    build.args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "oy-tools",
        "--example",
        "search_tree",
    ]);
    run("cargo build --release --example search_tree", build)?;
    let oy = target_dir()?.join("release/examples/search_tree");

    tools::bench_tools(&oy)
}

/// Cargo's target directory (honours `CARGO_TARGET_DIR` and config).
pub(crate) fn target_dir() -> Result<PathBuf> {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("could not run cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata failed ({})", out.status);
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("cargo metadata printed invalid JSON")?;
    metadata["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("cargo metadata has no target_directory")
}
