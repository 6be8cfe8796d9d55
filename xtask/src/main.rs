//! `cargo xtask`: project automation for oy (lint, the tidy checks, codegen, benchmarks).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "xtask is a command-line program: printing is its job"
)]

mod bench;
mod codegen;
mod dist;
mod fuzz;
mod release;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  lint     cargo fmt --check, clippy -D warnings, the tidy checks, and
           cargo deny (bans, licenses, sources) when cargo-deny is installed
  tidy     only the tidy checks: //! headers, the crate dependency table in
           docs/architecture.md, no todo!/unimplemented!/dbg! in shipped code
  codegen [--check]
           regenerate docs/tools.md from the tool registry (or, with
           --check, fail when it is stale)
  bench [--quick] [--out PATH | --no-write] [-- DIVAN_ARGS]
           every benchmark below in one run, then docs/benchmarks.md
           (or PATH) with the machine it ran on (CPU, cores, memory,
           kernel, the scratch dir's filesystem, load average at the start
           and end, rustc, commit) and one table per section: oy's median
           (min), the anchor's, the ratio, the goal and whether it was met.
           Sections: the divan benches of oy-tools (`cargo bench -p
           oy-tools --bench search` and `--bench patch`, DIVAN_ARGS passed
           on), then tools, startup, agent, audit and sandbox. A missing
           anchor or prerequisite is written as `skipped: REASON` and the
           rest goes on; a section that fails is written as failed and the
           run exits non-zero at the end. --quick: fewer rounds, for a
           smoke run; --no-write: print only
  bench tools [--quick] [EXAMPLE]
           only the tool primitives against the best single-purpose tools,
           whole process on the same generated tree: search against rg,
           list (all, and with a glob) against rg --files, sloc against
           tokei, a 200-line read against sed -n, a 199-file patch against
           git apply (temp dir and tmpfs); 9 interleaved runs per side,
           median and min, and the ratio against each goal; an anchor that
           is not installed skips its rows; EXAMPLE times another build of
           oy-tools' search_tree example (say, a copy of the last one)
  bench startup [--quick]
           only the release oy's start-up: `oy --version`, `oy tools`, and
           `oy tool read` of 200 lines against `sed -n` on the same file
           (median of 21 each, interleaved), against the 10 ms goal
  bench agent [--quick]
           only the whole-process agent benchmark: `oy run` on a 10-step
           scripted task against oy-cli's mock_model example (wall, CPU,
           peak RSS, time to first request, bytes per request; median of 5
           runs) and `oy --version` (median of 20), against the goals
  bench audit [--quick]
           only the whole-process audit benchmark: `oy audit --dry-run`
           (collect, redact, index, plan) on a generated ~24,000-file
           repository under the temp dir (wall, CPU, peak RSS; median of 5
           runs), and code2prompt / repomix on the same tree when installed
  bench sandbox [--quick]
           only the process sandbox's cost: `oy tool bash` running `true`
           with --sandbox on and off (median of 31 each, interleaved), and
           the time it adds per command against the 5 ms goal
  dist     build the release `oy` and pack it with README.md, SECURITY.md
           and the LICENSE files into target/dist/oy-VERSION-TARGET.tar.gz,
           plus a .sha256 beside it
  release [--dry-run] VERSION
           bump the workspace version, write CHANGELOG.md from the commit
           subjects since the last v* tag (grouped by scope), and name the
           tag to make; --dry-run only shows it. Never commits, tags or
           pushes
  fuzz TARGET [--time SECONDS]
           run one fuzz target (or `all`, one after another) with fresh
           seeds for SECONDS (default 60): the cases it ran, or a failure
           with its minimized input; `fuzz --list` names the targets
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("lint") => lint(),
        Some("tidy") => tidy_only(),
        Some("codegen") => codegen::codegen(args.get(1).is_some_and(|arg| arg == "--check")),
        Some("bench") => bench::bench(args.get(1..).unwrap_or_default()),
        Some("dist") => dist::dist(),
        Some("release") => release::release(args.get(1..).unwrap_or_default()),
        Some("fuzz") => fuzz::fuzz(args.get(1..).unwrap_or_default()),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => {
            eprint!("error: unknown command `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
        None => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// `cargo`, run in the workspace root without the variables `cargo run`
/// set for xtask itself. A build script's fingerprint records the
/// `CARGO_MANIFEST_DIR` it was compiled with (ring's does), so a release
/// build started from xtask (bench, dist) and one started from a shell
/// would each find the other's stale and rebuild the whole fat-LTO tree.
fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(workspace_root());
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else {
            continue;
        };
        let ours = matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
        );
        if ours || name.starts_with("CARGO_PKG_") {
            cmd.env_remove(name);
        }
    }
    cmd
}

fn run(step: &str, mut cmd: Command) -> Result<()> {
    eprintln!("xtask: {step}");
    let status = cmd
        .status()
        .with_context(|| format!("could not start {step}"))?;
    if !status.success() {
        bail!("{step} failed ({status})");
    }
    Ok(())
}

fn lint() -> Result<()> {
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--check"]);
    run("cargo fmt --check", fmt)?;

    let mut clippy = cargo();
    clippy.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]);
    run("cargo clippy -D warnings", clippy)?;

    tidy_only()?;

    let deny_installed = cargo()
        .args(["deny", "--version"])
        .output()
        .is_ok_and(|out| out.status.success());
    if deny_installed {
        // The advisories check needs the network; bans, licenses and sources work offline.
        let mut deny = cargo();
        deny.args(["deny", "check", "bans", "licenses", "sources"]);
        run("cargo deny check bans licenses sources", deny)?;
        eprintln!("xtask: note: run `cargo deny check advisories` separately when online");
    } else {
        eprintln!(
            "xtask: note: cargo-deny is not installed, so deny.toml was not checked \
             (hint: cargo install --locked cargo-deny)"
        );
    }
    Ok(())
}

fn tidy_only() -> Result<()> {
    eprintln!("xtask: tidy checks");
    let problems = tidy::check_workspace(&workspace_root())?;
    if problems.is_empty() {
        return Ok(());
    }
    for problem in &problems {
        eprintln!("tidy: {problem}");
    }
    bail!("{} tidy problem(s)", problems.len())
}
