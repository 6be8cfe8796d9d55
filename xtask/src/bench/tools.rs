//! `cargo xtask bench tools`: the tool primitives against the best
//! single-purpose tool for each, whole process against whole process, on
//! the same generated tree in the same run: `search` against `rg` (its
//! count mode against `rg -c`), `list` against `rg --files` (with and
//! without a glob), `sloc` against `tokei`, a 200-line `read` against
//! `sed -n`, and a 199-file `patch` against
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
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::machine::filesystem_of;
use super::report::{Goal, Row, Section};
use super::support::{Scratch, figure, installed, interleaved, runs_text};

/// The section's title in the report.
pub(crate) const TITLE: &str = "Tool primitives against single-purpose tools";

/// Timed runs per side (after one warm-up each), and with `--quick`.
const RUNS: usize = 9;
const QUICK_RUNS: usize = 3;
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
    name: String,
    goal: f64,
    oy: Command,
    anchor_name: &'static str,
    anchor: Command,
    /// Run before every timed run of either side (the patch case's copy).
    reset: Option<PathBuf>,
}

/// Times `example` (oy-tools' `search_tree`) against the anchors.
pub(crate) fn bench_tools(example: &Path, quick: bool) -> Result<Section> {
    let runs = if quick { QUICK_RUNS } else { RUNS };
    // The commands run in other directories.
    let example = &std::fs::canonicalize(example)
        .with_context(|| format!("cannot find {}", example.display()))?;
    let tree = describe(example)?;
    let timed = runs_text(runs);
    let mut section = Section::start(
        TITLE,
        format!(
            "oy-tools' `search_tree` example (the real tools through the registry, as a model \
             calls them, in a process of their own) against the best single-purpose tool for \
             each job, on the same generated tree of ~30,000 files: 1 warm-up and {timed} \
             per side, interleaved. The patch applies a 199-file diff to a fresh copy each run \
             (the copy is not timed)."
        ),
    );
    let mut skipped = Vec::new();
    let mut cases = Vec::new();
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
    if installed("rg", "--version") {
        cases.push(Case {
            name: "search literal".to_owned(),
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
            name: "search regex".to_owned(),
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
            name: "search count".to_owned(),
            goal: 1.2,
            oy: oy(&[".", &tree.regex, "--count"]),
            anchor_name: "rg -c",
            anchor: anchor("rg", &["--no-config", "-c", &tree.regex], &tree.root),
            reset: None,
        });
        cases.push(Case {
            name: "list all files".to_owned(),
            goal: 1.1,
            oy: oy(&[".", "--files"]),
            anchor_name: "rg --files",
            anchor: anchor("rg", &["--no-config", "--files"], &tree.root),
            reset: None,
        });
        cases.push(Case {
            name: "list with a glob".to_owned(),
            goal: 1.1,
            oy: oy(&[".", "--glob", "*.rs"]),
            anchor_name: "rg --files -g",
            anchor: anchor("rg", &["--no-config", "--files", "-g", "*.rs"], &tree.root),
            reset: None,
        });
    } else {
        let reason = "rg is not on PATH (hint: install ripgrep)";
        for name in [
            "search literal",
            "search regex",
            "search count",
            "list all files",
            "list with a glob",
        ] {
            skipped.push(Row::skipped(name, reason));
        }
    }
    if installed("tokei", "--version") {
        cases.push(Case {
            name: "sloc".to_owned(),
            goal: 1.0,
            oy: oy(&[".", "--sloc"]),
            anchor_name: "tokei",
            anchor: anchor("tokei", &[], &tree.root),
            reset: None,
        });
    } else {
        skipped.push(Row::skipped(
            "sloc",
            "tokei is not on PATH (hint: cargo install tokei)",
        ));
    }
    if installed("sed", "--version") {
        cases.push(Case {
            name: "read 200 lines".to_owned(),
            goal: 1.1,
            oy: oy(&[".", "--read", &tree.read_file, "1000", "200"]),
            anchor_name: "sed -n",
            anchor: anchor("sed", &["-n", "1000,1199p", &tree.read_file], &tree.root),
            reset: None,
        });
    } else {
        skipped.push(Row::skipped("read 200 lines", "sed is not on PATH"));
    }
    let mut scratches = Vec::new();
    if installed("git", "--version") {
        let mut places = vec![("temp dir", Scratch::new("patch")?)];
        if Path::new(TMPFS).is_dir() {
            let path = Path::new(TMPFS).join(format!("oy-bench-patch-{}", std::process::id()));
            std::fs::create_dir_all(&path)?;
            places.push((TMPFS, Scratch(path)));
        } else {
            skipped.push(Row::skipped(
                "patch (tmpfs)",
                format!("{TMPFS} is not a directory here"),
            ));
        }
        for (place, scratch) in places {
            let fs = filesystem_of(&scratch.0).unwrap_or_else(|| "unknown filesystem".to_owned());
            let name = format!("patch, 199 files ({place}, {fs})");
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
        skipped.push(Row::skipped("patch", "git is not on PATH"));
    }
    eprintln!(
        "xtask: tool primitives on {}, {runs} interleaved runs per side",
        tree.root.display()
    );
    let mut lines = Vec::new();
    for case in cases {
        let (row, printed) = compare(case, runs)?;
        section.push(row);
        lines.push(printed);
    }
    for row in skipped {
        section.push(row);
    }
    if !lines.is_empty() {
        // Evidence that both sides did the same work; where the counts
        // differ, oy's list also names directories and its patch reports
        // each file it changed.
        section.note(format!("output lines, oy/anchor: {}", lines.join("; ")));
    }
    drop(scratches);
    Ok(section)
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

/// The row of one case, and "NAME OY/ANCHOR" output lines for the note.
fn compare(mut case: Case, runs: usize) -> Result<(Row, String)> {
    let reset = case.reset.clone();
    let timed = interleaved(
        &mut [&mut case.oy, &mut case.anchor],
        runs,
        || match &reset {
            Some(dir) => reset_patch(dir),
            None => Ok(()),
        },
    )?;
    let [oy, anchor] = &timed[..] else {
        bail!("expected two sides");
    };
    let lines = format!("{} {}/{}", case.name, oy.lines, anchor.lines);
    let row = Row::measured(case.name, figure(&oy.ms))
        .against(case.anchor_name, figure(&anchor.ms))
        .goal(Goal::RatioAtMost(case.goal));
    Ok((row, lines))
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
