//! `cargo xtask bench`: the in-process benchmarks (`search` and `patch`),
//! then a whole-process comparison of oy's `search`/`list` against `rg` on
//! the same tree.
//!
//! xtask depends on no oy crate, so the oy side of the comparison is the
//! `search_tree` example of oy-tools (it runs the real tools through the
//! registry, as a model would). It also generates the tree and names the
//! patterns, so the two sides cannot drift apart.

mod agent;
mod audit;
mod sandbox;
mod support;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::{cargo, run};

pub(crate) use agent::bench_agent;
pub(crate) use audit::bench_audit;
pub(crate) use sandbox::bench_sandbox;

/// Timed runs per command; the median is reported.
const RUNS: usize = 7;
/// The goal from the issue: oy within this factor of ripgrep.
const GOAL_RATIO: f64 = 1.2;

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

    let rg_version = Command::new("rg").arg("--version").output();
    let Some(rg_version) = rg_version.ok().filter(|out| out.status.success()) else {
        eprintln!(
            "xtask: rg is not on PATH: skipping the whole-process comparison \
             (hint: cargo install ripgrep)"
        );
        return Ok(());
    };
    let rg_version = String::from_utf8_lossy(&rg_version.stdout);
    let rg_version = rg_version.lines().next().unwrap_or("rg");

    let described = Command::new(&oy)
        .arg("--tree")
        .output()
        .with_context(|| format!("could not run {}", oy.display()))?;
    if !described.status.success() {
        bail!(
            "search_tree --tree failed: {}",
            String::from_utf8_lossy(&described.stderr)
        );
    }
    let described = String::from_utf8_lossy(&described.stdout).into_owned();
    let [root, literal, regex] = described.lines().collect::<Vec<_>>()[..] else {
        bail!("search_tree --tree printed an unexpected description: {described:?}");
    };
    let root = PathBuf::from(root);

    eprintln!(
        "xtask: whole-process comparison on {} against {rg_version}, median of {RUNS} runs",
        root.display()
    );
    let cases: [(&str, Vec<&str>, Vec<&str>); 3] = [
        (
            "search literal",
            vec![".", literal, "--literal"],
            vec!["--no-config", "--no-heading", "-n", "-F", literal],
        ),
        (
            "search regex",
            vec![".", regex],
            vec!["--no-config", "--no-heading", "-n", regex],
        ),
        (
            "list all files",
            vec![".", "--files"],
            vec!["--no-config", "--files"],
        ),
    ];
    for (name, oy_args, rg_args) in cases {
        let (oy_time, oy_lines) = time(Command::new(&oy).args(&oy_args).current_dir(&root))?;
        let (rg_time, rg_lines) = time(Command::new("rg").args(&rg_args).current_dir(&root))?;
        let ratio = oy_time.as_secs_f64() / rg_time.as_secs_f64().max(1e-9);
        let verdict = if ratio <= GOAL_RATIO {
            "within"
        } else {
            "over"
        };
        println!(
            "{name}: oy: {:.1} ms, rg: {:.1} ms, ratio {ratio:.2} ({verdict} the {GOAL_RATIO}x goal; \
             {oy_lines} / {rg_lines} output lines)",
            millis(oy_time),
            millis(rg_time),
        );
    }
    Ok(())
}

/// One warm-up run, then the median wall time of [`RUNS`] runs, and the
/// number of lines the command printed.
fn time(cmd: &mut Command) -> Result<(Duration, usize)> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::inherit());
    let mut times = Vec::with_capacity(RUNS);
    let mut lines = 0;
    for round in 0..=RUNS {
        let started = Instant::now();
        // Output is read, as a caller would (some tools shortcut /dev/null).
        let out = cmd
            .output()
            .with_context(|| format!("could not run {cmd:?}"))?;
        let elapsed = started.elapsed();
        // rg exits 1 when nothing matched; anything else is a failure.
        if !out.status.success() && out.status.code() != Some(1) {
            bail!("{cmd:?} failed ({})", out.status);
        }
        lines = out.stdout.iter().filter(|&&byte| byte == b'\n').count();
        if round > 0 {
            times.push(elapsed);
        }
    }
    times.sort();
    Ok((times[times.len() / 2], lines))
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
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
