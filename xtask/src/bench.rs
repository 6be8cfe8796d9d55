//! `cargo xtask bench`: every benchmark in one run, written to
//! `docs/benchmarks.md` with the machine it ran on, or one section alone.
//!
//! The sections: oy-tools' in-process divan benches (`divan.rs`), the tool
//! primitives against `rg`, `tokei`, `sed` and `git apply` (`tools.rs`),
//! the release `oy`'s start-up (`startup.rs`), the agent loop against a mock
//! model (`agent.rs`), `oy audit --dry-run` against code2prompt (`audit.rs`)
//! and the process sandbox's cost (`sandbox.rs`). Each returns a
//! [`report::Section`]; a section that cannot run says why and the rest go
//! on. xtask depends on no oy crate, so the oy side is always a built binary
//! or example, run as a separate process.

mod agent;
mod audit;
mod divan;
mod machine;
mod report;
mod sandbox;
mod startup;
mod support;
mod tools;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::workspace_root;

use machine::Machine;
use report::{Report, Section};

/// What `cargo xtask bench …` asked for.
#[derive(Debug, PartialEq)]
enum Request {
    /// Every section, then the report (`out: None` is `--no-write`).
    All {
        out: Option<PathBuf>,
        divan_args: Vec<String>,
    },
    Tools {
        example: Option<PathBuf>,
    },
    Startup,
    Agent,
    Audit,
    Sandbox,
}

/// A parsed command line: the request and `--quick`.
#[derive(Debug, PartialEq)]
struct Args {
    request: Request,
    quick: bool,
}

/// Runs `cargo xtask bench ARGS…`.
pub(crate) fn bench(args: &[String]) -> Result<()> {
    let Args { request, quick } = parse(args, &workspace_root().join("docs/benchmarks.md"))?;
    let section = match request {
        Request::All { out, divan_args } => return bench_all(quick, out.as_deref(), &divan_args),
        Request::Tools { example } => bench_tools(example, quick),
        Request::Startup => startup::bench_startup(quick),
        Request::Agent => agent::bench_agent(quick, true),
        Request::Audit => audit::bench_audit(quick),
        Request::Sandbox => sandbox::bench_sandbox(quick),
    }?;
    match section.outcome {
        Some(outcome) => bail!("{outcome}"),
        None => Ok(()),
    }
}

fn parse(args: &[String], default_out: &Path) -> Result<Args> {
    let (args, divan_args) = match args.iter().position(|arg| arg == "--") {
        Some(at) => (&args[..at], args[at + 1..].to_vec()),
        None => (args, Vec::new()),
    };
    let mut quick = false;
    let mut no_write = false;
    let mut out = None;
    let mut words = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--no-write" => no_write = true,
            "--out" => {
                let path = rest.next().context("--out needs a PATH")?;
                out = Some(PathBuf::from(path));
            }
            flag if flag.starts_with("--out=") => {
                out = Some(PathBuf::from(&flag["--out=".len()..]));
            }
            flag if flag.starts_with('-') => bail!("unknown option `{flag}` for bench"),
            word => words.push(word),
        }
    }
    let whole_run = words.is_empty();
    if !whole_run && (out.is_some() || no_write || !divan_args.is_empty()) {
        bail!("--out, --no-write and `-- DIVAN_ARGS` are for the whole run (`cargo xtask bench`)");
    }
    if out.is_some() && no_write {
        bail!("--out and --no-write contradict each other");
    }
    let request = match words[..] {
        [] => Request::All {
            out: (!no_write).then(|| out.unwrap_or_else(|| default_out.to_owned())),
            divan_args,
        },
        ["tools"] => Request::Tools { example: None },
        ["tools", example] => Request::Tools {
            example: Some(PathBuf::from(example)),
        },
        ["startup"] => Request::Startup,
        ["agent"] => Request::Agent,
        ["audit"] => Request::Audit,
        ["sandbox"] => Request::Sandbox,
        _ => bail!(
            "unknown bench `{}` (see `cargo xtask help`)",
            words.join(" ")
        ),
    };
    Ok(Args { request, quick })
}

/// Every section in turn, then the report. A failed section is written as
/// such and makes the run fail at the end, after the rest has run.
fn bench_all(quick: bool, out: Option<&Path>, divan_args: &[String]) -> Result<()> {
    let root = workspace_root();
    let mut machine = Machine::collect(&root, &std::env::temp_dir());
    eprintln!(
        "xtask: whole benchmark{}, load average {} at the start",
        if quick { " (quick)" } else { "" },
        machine.load_start
    );
    let sections: [(&str, &dyn Fn() -> Result<Section>); 6] = [
        (divan::TITLE, &|| divan::bench_divan(quick, divan_args)),
        (tools::TITLE, &|| bench_tools(None, quick)),
        (startup::TITLE, &|| startup::bench_startup(quick)),
        (agent::TITLE, &|| agent::bench_agent(quick, false)),
        (audit::TITLE, &|| audit::bench_audit(quick)),
        (sandbox::TITLE, &|| sandbox::bench_sandbox(quick)),
    ];
    let mut done = Vec::new();
    let mut failed = Vec::new();
    for (title, run) in sections {
        let section = run().unwrap_or_else(|error| {
            failed.push(title);
            Section::not_run(title, format!("failed: {error:#}"))
        });
        done.push(section);
    }
    machine.finish();
    eprintln!("xtask: load average {} at the end", machine.load_end);

    let mut command = "cargo xtask bench".to_owned();
    if quick {
        command.push_str(" --quick");
    }
    if !divan_args.is_empty() {
        command = format!("{command} -- {}", divan_args.join(" "));
    }
    let report = Report {
        command,
        quick,
        machine,
        sections: done,
    };
    if let Some(out) = out {
        support::write(out, &report.markdown())?;
        eprintln!("xtask: wrote {}", out.display());
    }
    if !failed.is_empty() {
        bail!("{} section(s) failed: {}", failed.len(), failed.join(", "));
    }
    Ok(())
}

/// Builds oy-tools' `search_tree` example and times the tool primitives
/// against their anchors (see `tools.rs`), or `example`, another build of it.
fn bench_tools(example: Option<PathBuf>, quick: bool) -> Result<Section> {
    if let Some(example) = example {
        return tools::bench_tools(&example, quick);
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
    crate::run("cargo build --release --example search_tree", build)?;
    let oy = target_dir()?.join("release/examples/search_tree");

    tools::bench_tools(&oy, quick)
}

pub(crate) use crate::cargo;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Args> {
        let args: Vec<String> = args.iter().map(|&arg| arg.to_owned()).collect();
        parse(&args, Path::new("/repo/docs/benchmarks.md"))
    }

    #[test]
    fn no_arguments_run_everything_into_the_default_report() {
        let args = parsed(&[]).unwrap();
        assert_eq!(
            args,
            Args {
                request: Request::All {
                    out: Some(PathBuf::from("/repo/docs/benchmarks.md")),
                    divan_args: Vec::new(),
                },
                quick: false,
            }
        );
    }

    #[test]
    fn whole_run_options() {
        let args = parsed(&["--quick", "--out", "b.md", "--", "--sample-count", "3"]).unwrap();
        assert!(args.quick);
        assert_eq!(
            args.request,
            Request::All {
                out: Some(PathBuf::from("b.md")),
                divan_args: vec!["--sample-count".to_owned(), "3".to_owned()],
            }
        );
        let args = parsed(&["--no-write"]).unwrap();
        assert_eq!(
            args.request,
            Request::All {
                out: None,
                divan_args: Vec::new()
            }
        );
        let args = parsed(&["--out=x.md"]).unwrap();
        assert!(
            matches!(args.request, Request::All { out: Some(out), .. } if out == Path::new("x.md"))
        );
    }

    #[test]
    fn one_section_alone() {
        assert_eq!(parsed(&["agent"]).unwrap().request, Request::Agent);
        assert_eq!(
            parsed(&["tools", "--quick", "/tmp/st"]).unwrap(),
            Args {
                request: Request::Tools {
                    example: Some(PathBuf::from("/tmp/st"))
                },
                quick: true,
            }
        );
        assert_eq!(parsed(&["startup"]).unwrap().request, Request::Startup);
    }

    #[test]
    fn rejects_what_it_cannot_honour() {
        for bad in [
            &["--out"][..],
            &["--frobnicate"],
            &["audit", "--out", "x.md"],
            &["sandbox", "--no-write"],
            &["--out", "x.md", "--no-write"],
            &["nonsense"],
            &["agent", "extra"],
        ] {
            assert!(parsed(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
