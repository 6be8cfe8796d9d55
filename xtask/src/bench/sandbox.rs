//! `cargo xtask bench sandbox`: what the process sandbox adds to one
//! command — `bash -c true` through `oy tool bash` with `--sandbox on`
//! and `--sandbox off` (the same binary, workspace and environment), the
//! median of many runs each, interleaved so drift hits both sides alike.
//! The difference is the launcher's two re-executions, the mount
//! namespace, Landlock and seccomp; the goal is at most 5 ms.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::support::{Scratch, build_release_oy, median};

/// Timed runs per setting (after one warm-up each).
const RUNS: usize = 31;
/// The issue's goal for the added time per command.
const GOAL_MS: f64 = 5.0;

pub(crate) fn bench_sandbox() -> Result<()> {
    let oy = build_release_oy()?;
    let scratch = Scratch::new("sandbox")?;
    let level = Command::new(&oy)
        .args(["sandbox", "--root"])
        .arg(&scratch.0)
        .output()
        .context("running oy sandbox")?;
    let level = String::from_utf8_lossy(&level.stdout);
    let level = level
        .lines()
        .next()
        .unwrap_or("sandbox: unknown")
        .to_owned();
    eprintln!(
        "xtask: sandbox cost: `oy tool bash {{\"command\":\"true\"}}`, 1 warm-up + {RUNS} runs per setting ({level})"
    );
    let mut on = Vec::with_capacity(RUNS);
    let mut off = Vec::with_capacity(RUNS);
    for round in 0..=RUNS {
        let with = time_call(&oy, &scratch.0, "on")?;
        let without = time_call(&oy, &scratch.0, "off")?;
        if round > 0 {
            on.push(with);
            off.push(without);
        }
    }
    let (Some(on), Some(off)) = (median(on), median(off)) else {
        bail!("no samples");
    };
    let added = on - off;
    let verdict = if added <= GOAL_MS { "within" } else { "over" };
    println!(
        "sandbox: on {on:.2} ms, off {off:.2} ms per call (whole process, median of {RUNS}); \
         added {added:.2} ms ({verdict} the {GOAL_MS} ms goal)"
    );
    Ok(())
}

/// Wall time of one whole `oy tool bash` call, in milliseconds.
fn time_call(oy: &Path, root: &Path, sandbox: &str) -> Result<f64> {
    let started = Instant::now();
    let out = Command::new(oy)
        .args([
            "tool",
            "bash",
            r#"{"command":"true"}"#,
            "--mode",
            "auto",
            "--sandbox",
            sandbox,
        ])
        .arg("--root")
        .arg(root)
        .env("OY_NON_INTERACTIVE", "1")
        .stdin(Stdio::null())
        .output()
        .context("running oy tool bash")?;
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    if !out.status.success() {
        bail!(
            "oy tool bash --sandbox {sandbox} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(elapsed)
}
