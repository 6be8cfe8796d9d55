//! `cargo xtask bench tools`: the tool primitives against the best
//! single-purpose tool for each, whole process against whole process, on
//! the same generated tree in the same run: `search` against `rg`, `list`
//! against `rg --files` (with and without a glob), `sloc` against `tokei`,
//! a 200-line `read` against `sed -n`, and a 199-file `patch` against
//! `git apply` (on the temp dir's filesystem and, where there is one, on
//! tmpfs). An anchor that is not installed skips its rows and says so.
//!
//! Runs are interleaved (oy, anchor, oy, anchor, …) so that a change in
//! the machine's load hits both sides alike; the median and the minimum of
//! each side are printed with the ratio of the medians.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask prepares scratch copies of the patch case with std::fs"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::support::Scratch;

/// Timed runs per side (after one warm-up each).
const RUNS: usize = 9;
/// Where a tmpfs usually is on Linux.
const TMPFS: &str = "/dev/shm";

/// What the example generated and where.
struct Tree {
    root: PathBuf,
    literal: String,
    regex: String,
    read_file: String,
}

/// One compared row.
struct Case {
    name: &'static str,
    goal: f64,
    oy: Command,
    anchor_name: &'static str,
    anchor: Command,
    /// Run before every timed run of either side (the patch case's copy).
    reset: Option<PathBuf>,
}

/// Times `example` (oy-tools' `search_tree`) against the anchors.
pub(crate) fn bench_tools(example: &Path) -> Result<()> {
    // The commands run in other directories.
    let example = &std::fs::canonicalize(example)
        .with_context(|| format!("cannot find {}", example.display()))?;
    let tree = describe(example)?;
    let mut cases = Vec::new();
    let has = |program: &str, arg: &str| {
        Command::new(program)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    let oy = |args: &[&str]| {
        let mut cmd = Command::new(example);
        cmd.args(args).current_dir(&tree.root);
        cmd
    };
    let anchor = |program: &str, args: &[&str], dir: &Path| {
        let mut cmd = Command::new(program);
        cmd.args(args).current_dir(dir);
        cmd
    };
    if has("rg", "--version") {
        cases.push(Case {
            name: "search literal",
            goal: 1.2,
            oy: oy(&[".", &tree.literal, "--literal"]),
            anchor_name: "rg",
            anchor: anchor(
                "rg",
                &["--no-config", "--no-heading", "-n", "-F", &tree.literal],
                &tree.root,
            ),
            reset: None,
        });
        cases.push(Case {
            name: "search regex",
            goal: 1.2,
            oy: oy(&[".", &tree.regex]),
            anchor_name: "rg",
            anchor: anchor(
                "rg",
                &["--no-config", "--no-heading", "-n", &tree.regex],
                &tree.root,
            ),
            reset: None,
        });
        cases.push(Case {
            name: "list all files",
            goal: 1.1,
            oy: oy(&[".", "--files"]),
            anchor_name: "rg --files",
            anchor: anchor("rg", &["--no-config", "--files"], &tree.root),
            reset: None,
        });
        cases.push(Case {
            name: "list with a glob",
            goal: 1.1,
            oy: oy(&[".", "--glob", "*.rs"]),
            anchor_name: "rg --files -g",
            anchor: anchor("rg", &["--no-config", "--files", "-g", "*.rs"], &tree.root),
            reset: None,
        });
    } else {
        eprintln!("xtask: rg is not on PATH: skipping search and list (hint: install ripgrep)");
    }
    if has("tokei", "--version") {
        cases.push(Case {
            name: "sloc",
            goal: 1.0,
            oy: oy(&[".", "--sloc"]),
            anchor_name: "tokei",
            anchor: anchor("tokei", &[], &tree.root),
            reset: None,
        });
    } else {
        eprintln!("xtask: tokei is not on PATH: skipping sloc (hint: cargo install tokei)");
    }
    if has("sed", "--version") {
        cases.push(Case {
            name: "read 200 lines",
            goal: 1.1,
            oy: oy(&[".", "--read", &tree.read_file, "1000", "200"]),
            anchor_name: "sed -n",
            anchor: anchor("sed", &["-n", "1000,1199p", &tree.read_file], &tree.root),
            reset: None,
        });
    }
    let mut scratches = Vec::new();
    if has("git", "--version") {
        let mut places = vec![("patch (temp dir)", Scratch::new("patch")?)];
        if Path::new(TMPFS).is_dir() {
            let path = Path::new(TMPFS).join(format!("oy-bench-patch-{}", std::process::id()));
            std::fs::create_dir_all(&path)?;
            places.push(("patch (tmpfs)", Scratch(path)));
        }
        for (name, scratch) in places {
            let dir = scratch.0.clone();
            let made = Command::new(example)
                .args(["--patch-case"])
                .arg(&dir)
                .output()
                .context("generating the patch case")?;
            if !made.status.success() {
                bail!("{}", String::from_utf8_lossy(&made.stderr));
            }
            let work = dir.join("work");
            let diff = dir.join("forward.diff");
            let mut oy = Command::new(example);
            oy.arg(&work).arg("--patch").arg(&diff);
            let mut git = Command::new("git");
            git.arg("apply").arg(&diff).current_dir(&work);
            cases.push(Case {
                name,
                goal: 1.2,
                oy,
                anchor_name: "git apply",
                anchor: git,
                reset: Some(dir),
            });
            scratches.push(scratch);
        }
    } else {
        eprintln!("xtask: git is not on PATH: skipping patch");
    }
    eprintln!(
        "xtask: tool primitives on {}, {RUNS} interleaved runs per side",
        tree.root.display()
    );
    for case in cases {
        compare(case)?;
    }
    drop(scratches);
    Ok(())
}

fn describe(example: &Path) -> Result<Tree> {
    let out = Command::new(example)
        .arg("--tree")
        .output()
        .with_context(|| format!("could not run {}", example.display()))?;
    if !out.status.success() {
        bail!(
            "search_tree --tree failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let [root, literal, regex, read_file] = text.lines().collect::<Vec<_>>()[..] else {
        bail!("search_tree --tree printed an unexpected description: {text:?}");
    };
    Ok(Tree {
        root: PathBuf::from(root),
        literal: literal.to_owned(),
        regex: regex.to_owned(),
        read_file: read_file.to_owned(),
    })
}

fn compare(mut case: Case) -> Result<()> {
    let (mut oy_times, mut anchor_times) = (Vec::new(), Vec::new());
    let (mut oy_lines, mut anchor_lines) = (0, 0);
    for round in 0..=RUNS {
        // Alternate which side goes first, so neither always runs warm.
        for side in if round % 2 == 0 { [0, 1] } else { [1, 0] } {
            if let Some(dir) = &case.reset {
                reset_patch(dir)?;
            }
            let (cmd, times, lines) = if side == 0 {
                (&mut case.oy, &mut oy_times, &mut oy_lines)
            } else {
                (&mut case.anchor, &mut anchor_times, &mut anchor_lines)
            };
            let (elapsed, printed) = time_once(cmd)?;
            *lines = printed;
            if round > 0 {
                times.push(elapsed);
            }
        }
    }
    let (oy_median, oy_min) = median_min(&mut oy_times);
    let (anchor_median, anchor_min) = median_min(&mut anchor_times);
    let ratio = oy_median.as_secs_f64() / anchor_median.as_secs_f64().max(1e-9);
    let verdict = if ratio <= case.goal { "within" } else { "over" };
    println!(
        "{}: oy {:.1} ms (min {:.1}), {} {:.1} ms (min {:.1}), ratio {ratio:.2} \
         ({verdict} the {}x goal; {oy_lines} / {anchor_lines} output lines)",
        case.name,
        millis(oy_median),
        millis(oy_min),
        case.anchor_name,
        millis(anchor_median),
        millis(anchor_min),
        case.goal,
    );
    Ok(())
}

/// `DIR/work` becomes a fresh copy of `DIR/pristine`.
fn reset_patch(dir: &Path) -> Result<()> {
    let work = dir.join("work");
    if work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("removing {}", work.display()))?;
    }
    copy_tree(&dir.join("pristine"), &work)
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("listing {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying to {}", target.display()))?;
        }
    }
    Ok(())
}

/// One run's wall time and the number of lines it printed.
fn time_once(cmd: &mut Command) -> Result<(Duration, usize)> {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    // Output is read, as a caller would (some tools shortcut /dev/null).
    let out = cmd
        .output()
        .with_context(|| format!("could not run {cmd:?}"))?;
    let elapsed = started.elapsed();
    // rg exits 1 when nothing matched; anything else is a failure.
    if !out.status.success() && out.status.code() != Some(1) {
        bail!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let lines = out.stdout.iter().filter(|&&byte| byte == b'\n').count();
    Ok((elapsed, lines))
}

fn median_min(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let min = times.first().copied().unwrap_or_default();
    (median, min)
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
