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
//! GNU time, medians of [`RUNS`] runs after a warm-up (so the page cache is
//! warm: what is measured is the tool, not the disk). The goal of issue 7,
//! oy at least as fast as code2prompt, is reported, never enforced.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask builds its own scratch tree in the temp dir, not a workspace of oy's"
)]

mod secrets;
mod tree;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use super::support::{
    GNU_TIME, Scratch, build_release_oy, gnu_time_available, median, parse_times, peak_rss_kib,
    read,
};

use secrets::ensure_secret_tree;
use tree::ensure_tree;

/// The goal of issue 15: with the broader redaction rules, collection at
/// most this many times as slow as the baseline's.
const REDACTION_GOAL_RATIO: f64 = 1.2;

/// Timed runs per tool (after one warm-up); each metric's median is reported.
const RUNS: usize = 5;
/// GNU time, for the peak RSS of a child without unsafe code.
/// The tree holds ~100 MB of reviewable text, ~250 chunks for gpt-4.1
/// (chunks are capped at 120k tokens whatever the window); the default cap
/// of 64 chunks would stop the plan, and the cap is not what this benchmark
/// is about.
const MAX_CHUNKS: &str = "100000";

/// bash: `TIMED TIMES OUT ERR COMMAND…` runs COMMAND with its output in OUT
/// and ERR and writes its wall, user and system seconds to TIMES (bash's
/// `time` is exact to the millisecond; GNU time rounds CPU to 10 ms).
const TIMED: &str = r#"times=$1 out=$2 err=$3; shift 3
TIMEFORMAT='%3R %3U %3S'
{ time "$@" >"$out" 2>"$err"; } 2>"$times""#;

/// What one run cost.
struct Sample {
    wall_s: f64,
    /// User + system seconds, all threads and children.
    cpu_s: f64,
    peak_rss_kib: Option<u64>,
}

/// The medians of a tool's runs.
struct Summary {
    wall_s: f64,
    cpu_s: f64,
    peak_rss_mib: Option<f64>,
}

/// Builds the release `oy`, makes (or reuses) the tree, times `oy audit
/// --dry-run` and the installed competitors on it, and prints the figures.
pub(crate) fn bench_audit() -> Result<()> {
    let oy = build_release_oy()?;

    let gnu_time = gnu_time_available();

    let (root, tree_files, tree_bytes) = ensure_tree()?;
    let scratch = Scratch::new("audit")?;
    eprintln!(
        "xtask: audit dry-run on {} ({tree_files} files, {:.1} MB), 1 warm-up + {RUNS} runs",
        root.display(),
        tree_bytes as f64 / 1e6
    );
    let oy_args = [
        "audit",
        "--dry-run",
        "--model",
        "gpt-4.1",
        "--max-chunks",
        MAX_CHUNKS,
    ];
    let (oy_summary, plan) = match measure(&scratch.0, gnu_time, oy.as_os_str(), &oy_args, &root) {
        Ok(measured) => measured,
        Err(error) => bail!("oy audit --dry-run failed: {error}"),
    };

    println!(
        "audit dry-run: `oy audit --dry-run --model gpt-4.1` on a generated repository of \
         {tree_files} files ({:.1} MB), median of {RUNS} runs, warm cache",
        tree_bytes as f64 / 1e6
    );
    print_plan(&plan);
    println!(
        "  {:<12} {:>11} {:>15} {:>11}",
        "tool", "wall", "CPU user+sys", "peak RSS"
    );
    print_row("oy", &oy_summary);
    // An earlier build to compare with, when one is named.
    let baseline = std::env::var_os("OY_BENCH_BASELINE").map(PathBuf::from);
    if let Some(baseline) = &baseline {
        let (summary, _) = measure(&scratch.0, gnu_time, baseline.as_os_str(), &oy_args, &root)
            .context("the baseline oy audit --dry-run failed")?;
        print_row("oy baseline", &summary);
        print_ratio("collection", oy_summary.wall_s, summary.wall_s);
    }

    let mut code2prompt_wall = None;
    for (tool, hint) in [
        ("code2prompt", "cargo install code2prompt"),
        ("repomix", "npm install -g repomix"),
    ] {
        let Some(help) = help_text(tool) else {
            println!("  {tool:<12} not installed (hint: {hint})");
            continue;
        };
        let args = competitor_args(tool, &help, &root);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        match measure(&scratch.0, gnu_time, OsStr::new(tool), &args, &root) {
            Ok((summary, _)) => {
                print_row(tool, &summary);
                if tool == "code2prompt" {
                    code2prompt_wall = Some(summary.wall_s);
                }
            }
            // Someone else's tool failing is a note, not a failed benchmark.
            Err(error) => println!("  {tool:<12} failed: {error}"),
        }
    }
    match code2prompt_wall {
        Some(theirs) => {
            let verdict = if oy_summary.wall_s <= theirs {
                "PASS"
            } else {
                "over"
            };
            println!(
                "  goal: oy at least as fast as code2prompt (wall): ratio {:.2}  {verdict}",
                oy_summary.wall_s / theirs.max(1e-9)
            );
        }
        None => println!("  goal: oy at least as fast as code2prompt (wall): not measured"),
    }
    bench_redaction(&scratch.0, gnu_time, &oy, baseline.as_deref())
}

/// `oy audit --dry-run` over the secret-dense tree, in MB/s, and the
/// baseline's when one is named.
fn bench_redaction(
    scratch: &Path,
    gnu_time: bool,
    oy: &Path,
    baseline: Option<&Path>,
) -> Result<()> {
    let (root, files, bytes) = ensure_secret_tree()?;
    let megabytes = bytes as f64 / 1e6;
    let args = [
        "audit",
        "--dry-run",
        "--model",
        "gpt-4.1",
        "--max-chunks",
        MAX_CHUNKS,
    ];
    let (summary, plan) = measure(scratch, gnu_time, oy.as_os_str(), &args, &root)
        .context("oy audit --dry-run on the secret-dense tree failed")?;
    println!(
        "redaction: `oy audit --dry-run` on {files} files ({megabytes:.1} MB), one line in \
         eight a credential, median of {RUNS} runs, warm cache"
    );
    if let Some(first) = plan.lines().next() {
        println!("  oy {first}");
    }
    println!(
        "  {:<12} {:>11} {:>15} {:>11} {:>10}",
        "tool", "wall", "CPU user+sys", "peak RSS", "MB/s"
    );
    print_throughput("oy", &summary, megabytes);
    if let Some(baseline) = baseline {
        let (theirs, plan) = measure(scratch, gnu_time, baseline.as_os_str(), &args, &root)
            .context("the baseline oy audit --dry-run on the secret-dense tree failed")?;
        print_throughput("oy baseline", &theirs, megabytes);
        if let Some(first) = plan.lines().next() {
            println!("  baseline {first}");
        }
        print_ratio("redaction", summary.wall_s, theirs.wall_s);
    }
    Ok(())
}

fn print_throughput(tool: &str, summary: &Summary, megabytes: f64) {
    let rss = summary
        .peak_rss_mib
        .map_or_else(|| "n/a".to_owned(), |mib| format!("{mib:.1} MiB"));
    println!(
        "  {tool:<12} {:>11} {:>15} {rss:>11} {:>10}",
        format!("{:.1} ms", summary.wall_s * 1000.0),
        format!("{:.3} s", summary.cpu_s),
        format!("{:.1}", megabytes / summary.wall_s.max(1e-9)),
    );
}

/// `oy`'s wall time against the baseline's, and the goal's verdict.
fn print_ratio(what: &str, ours: f64, theirs: f64) {
    let ratio = ours / theirs.max(1e-9);
    let verdict = if ratio <= REDACTION_GOAL_RATIO {
        "PASS"
    } else {
        "over"
    };
    println!(
        "  goal: {what} at most {REDACTION_GOAL_RATIO}× the baseline's (wall): ratio {ratio:.2}  {verdict}"
    );
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

/// One warm-up and [`RUNS`] timed runs of `program args…` in `cwd` with a
/// clean environment; the medians and the last run's stdout. A failed run
/// is an error carrying its stderr.
fn measure(
    scratch: &Path,
    gnu_time: bool,
    program: &OsStr,
    args: &[&str],
    cwd: &Path,
) -> Result<(Summary, String)> {
    let mut samples = Vec::with_capacity(RUNS);
    let mut stdout = String::new();
    for round in 0..=RUNS {
        let (sample, out) =
            timed(scratch, gnu_time, program, args, cwd).with_context(|| format!("run {round}"))?;
        if round > 0 {
            samples.push(sample);
        }
        stdout = out;
    }
    let summary = Summary {
        wall_s: median(samples.iter().map(|s| s.wall_s).collect()).unwrap_or(f64::NAN),
        cpu_s: median(samples.iter().map(|s| s.cpu_s).collect()).unwrap_or(f64::NAN),
        peak_rss_mib: median(
            samples
                .iter()
                .filter_map(|s| s.peak_rss_kib.map(|kib| kib as f64 / 1024.0))
                .collect(),
        ),
    };
    Ok((summary, stdout))
}

fn timed(
    scratch: &Path,
    gnu_time: bool,
    program: &OsStr,
    args: &[&str],
    cwd: &Path,
) -> Result<(Sample, String)> {
    let home = scratch.join("home");
    // A fresh home each run: no config, cache or session state carries over.
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).with_context(|| format!("creating {}", home.display()))?;
    let times_path = scratch.join("times.txt");
    let rss_path = scratch.join("rss.txt");
    let stdout_path = scratch.join("stdout.txt");
    let stderr_path = scratch.join("stderr.txt");
    // GNU time outside bash gives the peak RSS of the whole tree, which is
    // the tool's (bash is smaller).
    let mut cmd = if gnu_time {
        let mut cmd = Command::new(GNU_TIME);
        cmd.args(["-f", "%M", "-o"]).arg(&rss_path).arg("bash");
        cmd
    } else {
        Command::new("bash")
    };
    cmd.args(["-c", TIMED, "bash"])
        .args([&times_path, &stdout_path, &stderr_path])
        .arg(program)
        .args(args)
        .current_dir(cwd)
        // A clean environment: no real keys, proxies or user config leak in.
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("OY_NON_INTERACTIVE", "1")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    let status = cmd
        .status()
        .with_context(|| format!("could not run {cmd:?}"))?;
    if !status.success() {
        let stderr = read(&stderr_path).unwrap_or_default();
        bail!(
            "{} exited with {status}:\n{}",
            Path::new(program).display(),
            stderr.trim_end()
        );
    }
    let times = read(&times_path)?;
    let (wall_s, user_s, sys_s) = parse_times(&times)?;
    let peak_rss_kib = peak_rss_kib(&rss_path, gnu_time)?;
    let sample = Sample {
        wall_s,
        cpu_s: user_s + sys_s,
        peak_rss_kib,
    };
    Ok((sample, read(&stdout_path)?))
}

/// The dry-run's own account: its first line (files, bytes, redactions),
/// the skip counts by reason, and the chunk line.
fn print_plan(plan: &str) {
    let mut lines = plan.lines();
    if let Some(first) = lines.next() {
        println!("  oy {first}");
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
        println!("  oy skipped {skipped}: {}", reasons.join(", "));
    }
    if let Some(chunks) = chunks {
        println!("  oy plan: {chunks}");
    }
}

fn print_row(tool: &str, summary: &Summary) {
    let rss = summary
        .peak_rss_mib
        .map_or_else(|| "n/a".to_owned(), |mib| format!("{mib:.1} MiB"));
    println!(
        "  {tool:<12} {:>11} {:>15} {rss:>11}",
        format!("{:.1} ms", summary.wall_s * 1000.0),
        format!("{:.3} s", summary.cpu_s),
    );
}
