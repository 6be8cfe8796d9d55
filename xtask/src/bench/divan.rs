//! The in-process divan benches of oy-tools (`crates/oy-tools/benches/`):
//! `search` (search and list through the registry on a generated
//! ~30,000-file tree) and `patch` (a 3-hunk diff on a 5,000-line file, and
//! hunks of blank context on a file of 200,000 blank lines). Their tables
//! are shown as they are, on the terminal as they come and in the report.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use anyhow::{Context, Result, bail};

use super::cargo;
use super::report::Section;

/// The section's title in the report.
pub(crate) const TITLE: &str = "In-process benchmarks (divan)";

/// The benches, run in this order.
const BENCHES: [&str; 2] = ["search", "patch"];
/// Samples per bench with `--quick`, unless DIVAN_ARGS say otherwise.
const QUICK_SAMPLES: &str = "3";

/// Runs each bench with `divan_args` after `--` and keeps its table.
pub(crate) fn bench_divan(quick: bool, divan_args: &[String]) -> Result<Section> {
    let mut args = divan_args.to_vec();
    if quick && args.is_empty() {
        args = vec!["--sample-count".to_owned(), QUICK_SAMPLES.to_owned()];
    }
    let mut section = Section::start(
        TITLE,
        "oy-tools called in-process through the tool registry, as the agent calls it \
         (`cargo bench -p oy-tools`); divan's tables as printed, times per call.",
    );
    for name in BENCHES {
        let shown = if args.is_empty() {
            format!("cargo bench -p oy-tools --bench {name}")
        } else {
            format!(
                "cargo bench -p oy-tools --bench {name} -- {}",
                args.join(" ")
            )
        };
        eprintln!("xtask: {shown}");
        let mut divan = cargo();
        divan.args(["bench", "--quiet", "-p", "oy-tools", "--bench", name]);
        if !args.is_empty() {
            divan.arg("--").args(&args);
        }
        let mut child = divan
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("could not start {shown}"))?;
        let mut table = String::new();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines() {
                let line = line.with_context(|| format!("reading the output of {shown}"))?;
                println!("{line}");
                table.push_str(&line);
                table.push('\n');
            }
        }
        let status = child.wait()?;
        if !status.success() {
            bail!("{shown} failed ({status})");
        }
        section.verbatim.push(format!("$ {shown}\n{table}"));
    }
    Ok(section)
}
