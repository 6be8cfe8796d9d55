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

use super::report::{Goal, Row, Section};
use super::support::{Scratch, build_release_oy, figure, runs_text};

/// The section's title in the report.
pub(crate) const TITLE: &str = "Process sandbox";

/// Timed runs per setting (after one warm-up each), and with `--quick`.
const RUNS: usize = 31;
const QUICK_RUNS: usize = 7;
/// The issue's goal for the added time per command.
const GOAL_MS: f64 = 5.0;

pub(crate) fn bench_sandbox(quick: bool) -> Result<Section> {
    let runs = if quick { QUICK_RUNS } else { RUNS };
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
    let timed = runs_text(runs);
    let mut section = Section::start(
        TITLE,
        format!(
            "What the kernel sandbox adds to one command: `oy tool bash {{\"command\":\"true\"}}` \
             with `--sandbox on` against `--sandbox off` (same binary, workspace and \
             environment), 1 warm-up and {timed} each, interleaved. The difference is the \
             launcher's re-executions, the mount namespace, Landlock and seccomp."
        ),
    );
    section.note(format!("`oy sandbox` here: {level}"));
    // A kernel without the sandbox's features refuses `on`: say so and go on.
    if let Err(error) = time_call(&oy, &scratch.0, "on") {
        let reason = format!("the sandbox does not start here ({level}): {error:#}");
        section.push(Row::skipped("`bash -c true`, sandbox on", reason));
        return Ok(section);
    }
    let mut on = Vec::with_capacity(runs);
    let mut off = Vec::with_capacity(runs);
    for round in 0..=runs {
        // Alternate which goes first, so neither always runs warm.
        let (with, without) = if round % 2 == 0 {
            let with = time_call(&oy, &scratch.0, "on")?;
            (with, time_call(&oy, &scratch.0, "off")?)
        } else {
            let without = time_call(&oy, &scratch.0, "off")?;
            (time_call(&oy, &scratch.0, "on")?, without)
        };
        if round > 0 {
            on.push(with);
            off.push(without);
        }
    }
    if on.is_empty() {
        bail!("no samples");
    }
    section.push(
        Row::measured("`oy tool bash` running `true`, sandbox on", figure(&on))
            .against("sandbox off", figure(&off))
            .goal(Goal::AddedMsAtMost(GOAL_MS)),
    );
    Ok(section)
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
