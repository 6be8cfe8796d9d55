//! `cargo xtask bench audit`: a whole-process benchmark of `oy audit
//! --dry-run` (collect, redact, index and plan; nothing is sent) on a
//! generated repository of 24,000 source files, and of code2prompt and
//! repomix on the same tree when they are installed; then the redactor's
//! throughput in MB/s, as `oy audit --dry-run` over a generated tree of
//! 24 MB of small files in which one line in eight is a credential
//! (`secrets.rs`), so that redaction runs all the way through.
//!
//! `OY_BENCH_BASELINE=/path/to/oy` also times another build (say, the
//! release binary of an earlier commit) on both trees and prints the
//! ratios: the goal of issue 15, broader redaction rules costing at most
//! 1.2× the collection time, is reported, never enforced.
//!
//! The tree is made once under the temp dir and reused, like the search
//! benchmark's; a marker written last says it is complete. It is shaped
//! like a monorepo so that every rule of the collector has work: six
//! languages with a few security-relevant and secret-shaped lines, some big
//! files, images, lockfiles, dot-files, planted `.env` files and keys, a
//! `vendor/` directory, and `.gitignore`d `node_modules/`, `target/` and
//! `dist/`. Wall and user+sys CPU come from bash's `time` and peak RSS from
//! GNU time (`measure.rs`), medians of [`RUNS`] runs after a warm-up (so the page cache is
//! warm: what is measured is the tool, not the disk). The goal of issue 7,
//! oy at least as fast as code2prompt, is reported, never enforced.
mod measure;
mod secrets;
mod tree;

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use super::report::{Goal, Row, Section};
use super::support::{GNU_TIME, Scratch, build_release_oy, gnu_time_available, runs_text};

use measure::{Bench, Summary};
use secrets::ensure_secret_tree;
use tree::ensure_tree;

/// The section's title in the report.
pub(crate) const TITLE: &str = "Audit collection";

/// The goal of issue 15: with the broader redaction rules, collection at
/// most this many times as slow as the baseline's.
const REDACTION_GOAL_RATIO: f64 = 1.2;
/// The goal of issue 7: oy at least as fast as code2prompt.
const CODE2PROMPT_GOAL_RATIO: f64 = 1.0;

/// Timed runs per tool (after one warm-up), and with `--quick`; each
/// metric's median is reported.
const RUNS: usize = 5;
const QUICK_RUNS: usize = 1;
/// The tree holds ~100 MB of reviewable text, ~250 chunks for gpt-4.1
/// (chunks are capped at 120k tokens whatever the window); the default cap
/// of 64 chunks would stop the plan, and the cap is not what this benchmark
/// is about.
const MAX_CHUNKS: &str = "100000";
/// oy's arguments, on both trees.
const OY_ARGS: [&str; 6] = [
    "audit",
    "--dry-run",
    "--model",
    "gpt-4.1",
    "--max-chunks",
    MAX_CHUNKS,
];

/// Builds the release `oy`, makes (or reuses) the tree, times `oy audit
/// --dry-run` and the installed competitors on it, and reports the figures.
pub(crate) fn bench_audit(quick: bool) -> Result<Section> {
    let runs = if quick { QUICK_RUNS } else { RUNS };
    let oy = build_release_oy()?;
    let gnu_time = gnu_time_available();
    let (root, tree_files, tree_bytes) = ensure_tree()?;
    let scratch = Scratch::new("audit")?;
    let bench = Bench {
        scratch: &scratch.0,
        gnu_time,
        runs,
    };
    let megabytes = tree_bytes as f64 / 1e6;
    eprintln!(
        "xtask: audit dry-run on {} ({tree_files} files, {megabytes:.1} MB), 1 warm-up + {runs} runs",
        root.display(),
    );
    let timed = runs_text(runs);
    let mut section = Section::start(
        TITLE,
        format!(
            "`oy audit --dry-run --model gpt-4.1` (collect, redact, index and plan; nothing is \
             sent) on a generated monorepo of {tree_files} files ({megabytes:.1} MB), against \
             code2prompt and repomix packing the same tree into a prompt written to /dev/null; \
             then the redactor alone on a tree in which one line in eight is a credential. \
             1 warm-up and {timed} per tool, one tool after the other, warm cache, clean \
             environment."
        ),
    );
    let (ours, plan) = bench
        .measure(oy.as_os_str(), &OY_ARGS, &root)
        .context("oy audit --dry-run failed")?;
    let what = |metric: &str| format!("collect {tree_files} files: {metric}");
    let code2prompt = competitor(&bench, "code2prompt", "cargo install code2prompt", &root);
    let repomix = competitor(&bench, "repomix", "npm install -g repomix", &root);

    let wall = Row::measured(what("wall"), ours.wall);
    section.push(
        match &code2prompt {
            Ok(theirs) => wall.against("code2prompt", theirs.wall),
            Err(reason) => wall.anchor_skipped("code2prompt", reason.as_str()),
        }
        .goal(Goal::RatioAtMost(CODE2PROMPT_GOAL_RATIO)),
    );
    let cpu = Row::measured(what("CPU user+sys"), ours.cpu());
    section.push(match &code2prompt {
        Ok(theirs) => cpu.against("code2prompt", theirs.cpu()),
        Err(_) => cpu,
    });
    section.push(match (ours.rss(), &code2prompt) {
        (Some(mine), Ok(theirs)) => match theirs.rss() {
            Some(other) => Row::measured(what("peak RSS"), mine).against("code2prompt", other),
            None => Row::measured(what("peak RSS"), mine),
        },
        (Some(mine), Err(_)) => Row::measured(what("peak RSS"), mine),
        (None, _) => Row::skipped(
            what("peak RSS"),
            format!("{GNU_TIME} (GNU time) is missing (hint: apt-get install time)"),
        ),
    });
    let wall = Row::measured(what("wall"), ours.wall);
    section.push(match &repomix {
        Ok(theirs) => wall.against("repomix", theirs.wall),
        Err(reason) => wall.anchor_skipped("repomix", reason.as_str()),
    });

    // An earlier build to compare with, when one is named.
    let baseline = std::env::var_os("OY_BENCH_BASELINE").map(PathBuf::from);
    if let Some(baseline) = &baseline {
        let (theirs, _) = bench
            .measure(baseline.as_os_str(), &OY_ARGS, &root)
            .context("the baseline oy audit --dry-run failed")?;
        section.push(
            Row::measured(what("wall"), ours.wall)
                .against("oy baseline", theirs.wall)
                .goal(Goal::RatioAtMost(REDACTION_GOAL_RATIO)),
        );
    }
    bench_redaction(&mut section, &bench, &oy, baseline.as_deref())?;
    for line in plan_lines(&plan) {
        section.note(line);
    }
    Ok(section)
}

/// A competitor's figures on the tree, or why there are none: not
/// installed, or it failed (someone else's tool failing is a note, not a
/// failed benchmark).
fn competitor(
    bench: &Bench<'_>,
    tool: &str,
    hint: &str,
    root: &Path,
) -> std::result::Result<Summary, String> {
    let help = help_text(tool).ok_or_else(|| format!("{tool} is not on PATH (hint: {hint})"))?;
    let args = competitor_args(tool, &help, root);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    bench
        .measure(OsStr::new(tool), &args, root)
        .map(|(summary, _)| summary)
        .map_err(|error| format!("{tool} failed: {error:#}"))
}

/// `oy audit --dry-run` over the secret-dense tree, with its MB/s, and the
/// baseline's when one is named.
fn bench_redaction(
    section: &mut Section,
    bench: &Bench<'_>,
    oy: &Path,
    baseline: Option<&Path>,
) -> Result<()> {
    let (root, files, bytes) = ensure_secret_tree()?;
    let megabytes = bytes as f64 / 1e6;
    let (ours, plan) = bench
        .measure(oy.as_os_str(), &OY_ARGS, &root)
        .context("oy audit --dry-run on the secret-dense tree failed")?;
    let what = format!("redact {files} files ({megabytes:.1} MB, 1 line in 8 a credential)");
    let mut row = Row::measured(what, ours.wall);
    let throughput = |summary: &Summary| megabytes / (summary.wall.median / 1000.0).max(1e-9);
    let mut note = format!("redaction: oy {:.1} MB/s", throughput(&ours));
    if let Some(baseline) = baseline {
        let (theirs, _) = bench
            .measure(baseline.as_os_str(), &OY_ARGS, &root)
            .context("the baseline oy audit --dry-run on the secret-dense tree failed")?;
        let _ = write!(note, ", the baseline {:.1} MB/s", throughput(&theirs));
        row = row
            .against("oy baseline", theirs.wall)
            .goal(Goal::RatioAtMost(REDACTION_GOAL_RATIO));
    }
    if let Some(first) = plan.lines().next() {
        let _ = write!(note, " ({first})");
    }
    section.push(row);
    section.note(note);
    Ok(())
}

/// `--help` of an installed tool, or `None` when it is not on PATH.
fn help_text(tool: &str) -> Option<String> {
    let out = Command::new(tool)
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The non-interactive invocation of a competitor, writing its whole
/// prompt to /dev/null. Flags are read from `--help` because they changed
/// across versions (code2prompt 1 had `--output`, 2 and later
/// `--output-file` and a clipboard copy to turn off).
fn competitor_args(tool: &str, help: &str, root: &Path) -> Vec<String> {
    let root = root.display().to_string();
    if tool == "repomix" {
        return vec![root, "--quiet".into(), "-o".into(), "/dev/null".into()];
    }
    let output = if help.contains("--output-file") {
        "--output-file"
    } else {
        "--output"
    };
    let mut args = vec![root, output.into(), "/dev/null".into()];
    if help.contains("--no-clipboard") {
        args.push("--no-clipboard".into());
    }
    args
}

/// The dry-run's own account: its first line (files, bytes, redactions),
/// the skip counts by reason, and the chunk line.
fn plan_lines(plan: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = plan.lines();
    if let Some(first) = lines.next() {
        out.push(format!("collection: oy {first}"));
    }
    let mut skipped = None;
    let mut reasons = Vec::new();
    let mut chunks = None;
    for line in lines {
        if let Some(rest) = line.strip_prefix("skipped ") {
            skipped = Some(rest.trim_end_matches(':'));
        } else if skipped.is_some() && chunks.is_none() && line.starts_with("  ") {
            // `  REASON  COUNT  EXAMPLES`: the examples are left out.
            let mut fields = line.split_whitespace();
            if let (Some(reason), Some(count)) = (fields.next(), fields.next()) {
                reasons.push(format!("{reason} {count}"));
            }
        } else if line.contains(" chunk") && line.contains("model call") {
            chunks = Some(line);
        }
    }
    if let Some(skipped) = skipped {
        out.push(format!("oy skipped {skipped}: {}", reasons.join(", ")));
    }
    if let Some(chunks) = chunks {
        out.push(format!("oy plan: {}", chunks.trim()));
    }
    out
}
