//! `cargo xtask bench startup`: the release `oy`'s start-up, whole process:
//! `oy --version`, `oy tools` (every tool spec as JSON) and `oy tool read`
//! of a 200-line slice against `sed -n` on the same file — the shortest
//! useful things a person or a script asks of oy. The goal is issue 6's
//! start-up budget, 10 ms, for all three.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask writes its own scratch workspace in the temp dir"
)]

use std::fmt::Write as _;
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::report::{Goal, Row, Section};
use super::support::{
    Scratch, build_release_oy, figure, hermetic, installed, interleaved, runs_text,
};

/// The section's title in the report.
pub(crate) const TITLE: &str = "Start-up of the release `oy`";

/// Timed runs per command (after one warm-up each), and with `--quick`.
const RUNS: usize = 21;
const QUICK_RUNS: usize = 5;
/// Issue 6's start-up goal.
const GOAL_MS: f64 = 10.0;
/// The file the read slices: lines of source-like text.
const FILE: &str = "big.rs";
const FILE_LINES: usize = 10_000;
/// The slice: 200 lines from line 1000.
const OFFSET: usize = 1000;
const LIMIT: usize = 200;

pub(crate) fn bench_startup(quick: bool) -> Result<Section> {
    let runs = if quick { QUICK_RUNS } else { RUNS };
    let oy = build_release_oy()?;
    let scratch = Scratch::new("startup")?;
    let workspace = scratch.0.join("workspace");
    let home = scratch.0.join("home");
    std::fs::create_dir_all(&home).with_context(|| format!("creating {}", home.display()))?;
    std::fs::create_dir_all(&workspace)
        .with_context(|| format!("creating {}", workspace.display()))?;
    let mut text = String::with_capacity(FILE_LINES * 64);
    for line in 1..=FILE_LINES {
        let _ = writeln!(
            text,
            "    let value_{line} = compute({line}, \"some text for line {line}\"); // why"
        );
    }
    let file = workspace.join(FILE);
    std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;

    let timed = runs_text(runs);
    let mut section = Section::start(
        TITLE,
        format!(
            "The release `oy` (the profile `cargo xtask dist` ships) in a clean environment \
             (fresh HOME, no config), 1 warm-up and {timed} each. The read takes lines \
             {OFFSET}–{} of a {FILE_LINES}-line file, against `sed -n` on the same file, \
             interleaved. The goal is the start-up budget of {GOAL_MS} ms.",
            OFFSET + LIMIT - 1
        ),
    );
    let oy_cmd = |args: &[&str]| {
        let mut cmd = Command::new(&oy);
        cmd.args(args).current_dir(&workspace);
        hermetic(&mut cmd, &home);
        cmd
    };

    let mut version = oy_cmd(&["--version"]);
    let timed = interleaved(&mut [&mut version], runs, || Ok(()))?;
    section.push(Row::measured("`oy --version`", figure(&timed[0].ms)).goal(Goal::Below(GOAL_MS)));

    let mut tools = oy_cmd(&["tools"]);
    let timed = interleaved(&mut [&mut tools], runs, || Ok(()))?;
    section.push(
        Row::measured("`oy tools` (every tool spec, JSON)", figure(&timed[0].ms))
            .goal(Goal::Below(GOAL_MS)),
    );

    let args = serde_json::json!({"path": FILE, "offset": OFFSET, "limit": LIMIT}).to_string();
    let mut read = oy_cmd(&["tool", "read", &args]);
    let what = format!("`oy tool read`, {LIMIT} lines of {FILE_LINES}");
    if installed("sed", "--version") {
        let mut sed = Command::new("sed");
        sed.arg("-n")
            .arg(format!("{OFFSET},{}p", OFFSET + LIMIT - 1))
            .arg(FILE)
            .current_dir(&workspace);
        let timed = interleaved(&mut [&mut read, &mut sed], runs, || Ok(()))?;
        let [oy_side, sed_side] = &timed[..] else {
            bail!("expected two sides");
        };
        section.push(
            Row::measured(what, figure(&oy_side.ms))
                .against("sed -n", figure(&sed_side.ms))
                .goal(Goal::Below(GOAL_MS)),
        );
        section.note(format!(
            "the read printed {} lines (numbered), sed {}",
            oy_side.lines, sed_side.lines
        ));
    } else {
        let timed = interleaved(&mut [&mut read], runs, || Ok(()))?;
        section.push(
            Row::measured(what, figure(&timed[0].ms))
                .anchor_skipped("sed -n", "sed is not on PATH")
                .goal(Goal::Below(GOAL_MS)),
        );
    }
    Ok(section)
}
