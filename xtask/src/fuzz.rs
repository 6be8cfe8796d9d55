//! `cargo xtask fuzz`: runs one fuzz target (or all) for a given time.
//!
//! Every target is an ordinary test in its crate's integration binary (a
//! few hundred fixed-seed cases there, so `cargo test` keeps them as
//! regressions); with `OY_FUZZ_SECONDS` set, the test instead draws fresh
//! seeds until that deadline and prints how many cases it ran, or panics
//! with proptest's minimized failing input. This file builds the test
//! binary, runs the one test with the variable set, and stops it when it
//! outlives its time by far (a hang the test's own per-case check cannot
//! catch).

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::cargo;

/// One target: its name, the package whose `it` test binary holds it, the
/// test's full name there, and what it feeds to what.
struct Target {
    name: &'static str,
    package: &'static str,
    test: &'static str,
    about: &'static str,
}

const TARGETS: &[Target] = &[
    Target {
        name: "paths",
        package: "oy-boundary",
        test: "fuzz_paths::fuzz_workspace_path",
        about: "path strings to Workspace::path, against a lexical model",
    },
    Target {
        name: "patch",
        package: "oy-tools",
        test: "fuzz_patch::fuzz_patch_tool",
        about: "envelope and unified patches to the patch tool, each in a fresh workspace",
    },
    Target {
        name: "args",
        package: "oy-tools",
        test: "fuzz_args::fuzz_tool_arguments",
        about: "raw argument text to every file tool and todo",
    },
    Target {
        name: "tools-json",
        package: "oy-tools",
        test: "fuzz_args::fuzz_tools_json",
        about: "tools.json manifests to parse_manifest",
    },
    Target {
        name: "sse",
        package: "oy-provider",
        test: "fuzz_streams::fuzz_sse_answers",
        about: "SSE answers to the Chat Completions and Responses backends",
    },
    Target {
        name: "eventstream",
        package: "oy-provider",
        test: "fuzz_streams::eventstream::fuzz_eventstream_answers",
        about: "AWS event-stream answers to the Bedrock backend",
    },
    Target {
        name: "config",
        package: "oy-config",
        test: "fuzz_config::fuzz_config_files",
        about: "global and workspace config files to the parsers and Settings::resolve",
    },
    Target {
        name: "mcp-servers",
        package: "oy-mcp",
        test: "fuzz_mcp::fuzz_mcp_servers",
        about: "[mcp_servers] files, TOML and JSON, to parse_servers",
    },
    Target {
        name: "session",
        package: "oy-agent",
        test: "fuzz_session::fuzz_session_files",
        about: "session files to SessionStore::load, list and resume",
    },
];

/// Beyond its time, how long a target may take to shrink a failure
/// before it counts as hung.
const GRACE: Duration = Duration::from_secs(180);

/// `cargo xtask fuzz [--list | TARGET | all] [--time SECONDS]`.
pub(crate) fn fuzz(args: &[String]) -> Result<()> {
    let mut target = None;
    let mut seconds: u64 = 60;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--list" => {
                list();
                return Ok(());
            }
            "--time" => {
                let value = rest.next().context("--time needs a number of seconds")?;
                seconds = value
                    .parse()
                    .with_context(|| format!("--time {value}: not a number of seconds"))?;
            }
            name if target.is_none() && !name.starts_with('-') => target = Some(name.to_owned()),
            other => bail!("fuzz: unexpected argument `{other}`"),
        }
    }
    let Some(target) = target else {
        list();
        bail!("fuzz: name a target (or `all`)");
    };
    let chosen: Vec<&Target> = if target == "all" {
        TARGETS.iter().collect()
    } else {
        match TARGETS.iter().find(|t| t.name == target) {
            Some(found) => vec![found],
            None => {
                list();
                bail!("fuzz: no target `{target}`");
            }
        }
    };
    let mut summary = Vec::new();
    for target in chosen {
        let line = run_target(target, seconds)?;
        summary.push(line);
    }
    if summary.len() > 1 {
        println!("\nsummary:");
        for line in &summary {
            println!("  {line}");
        }
    }
    Ok(())
}

fn list() {
    println!("fuzz targets (cargo xtask fuzz TARGET --time SECONDS; `all` runs each):");
    for target in TARGETS {
        println!(
            "  {:<12} {:<12} {}",
            target.name, target.package, target.about
        );
    }
}

/// Builds the target's test binary, runs it for `seconds` and returns the
/// target's report line; a failure or a hang is an error.
fn run_target(target: &Target, seconds: u64) -> Result<String> {
    let binary = build(target.package)?;
    eprintln!(
        "xtask: fuzzing `{}` ({}) for {seconds} s",
        target.name, target.package
    );
    let mut child = Command::new(&binary)
        .args(["--exact", target.test, "--nocapture", "--test-threads", "1"])
        .env("OY_FUZZ_SECONDS", seconds.to_string())
        .env("RUST_BACKTRACE", "0")
        .current_dir(crate::workspace_root().join("crates").join(target.package))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start {}", binary.display()))?;
    let stderr = child.stderr.take().context("no stderr from the test")?;
    // The test's stderr is read on a thread so the main one can watch the clock.
    let reader = std::thread::spawn(move || {
        let mut report = None;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.starts_with("fuzz ") && line.contains(" cases in ") {
                report = Some(line.clone());
            }
            eprintln!("{line}");
        }
        report
    });
    let limit = Duration::from_secs(seconds) + GRACE;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            bail!(
                "fuzz `{}`: still running after {} s: a case hangs (rerun the test with \
                 OY_FUZZ_SECONDS set under a debugger to see which)",
                target.name,
                limit.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let report = reader.join().ok().flatten();
    if !status.success() {
        bail!(
            "fuzz `{}` found a failure (its minimized input is above); keep it as a \
             regression test in {}'s tests/it",
            target.name,
            target.package
        );
    }
    report.with_context(|| format!("fuzz `{}` ran but printed no count", target.name))
}

/// `cargo test -p PACKAGE --test it --no-run`, and the binary it built.
fn build(package: &str) -> Result<PathBuf> {
    let output = cargo()
        .args([
            "test",
            "-p",
            package,
            "--test",
            "it",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("could not build {package}'s tests"))?;
    if !output.status.success() {
        bail!("building {package}'s tests failed");
    }
    let marker = format!("/{package}#");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| {
            message["reason"] == "compiler-artifact"
                && message["target"]["name"] == "it"
                && message["package_id"]
                    .as_str()
                    .is_some_and(|id| id.contains(&marker))
        })
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .with_context(|| format!("cargo built no `it` test binary for {package}"))
}

#[cfg(test)]
mod tests {
    use super::TARGETS;

    /// Each target's test exists under that name in its crate's tests/it.
    #[test]
    fn every_target_names_a_test_that_exists() {
        let root = crate::workspace_root();
        for target in TARGETS {
            let mut parts: Vec<&str> = target.test.split("::").collect();
            let function = parts.pop().unwrap();
            let file = root
                .join("crates")
                .join(target.package)
                .join("tests/it")
                .join(format!("{}.rs", parts[0]));
            #[expect(
                clippy::disallowed_methods,
                reason = "a test reading the repository's sources"
            )]
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert!(
                text.contains(&format!("fn {function}()")),
                "{} has no fn {function}",
                file.display()
            );
            if parts.len() > 1 {
                assert!(
                    text.contains(&format!("mod {}", parts[1])),
                    "{}",
                    target.test
                );
            }
        }
        let mut names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TARGETS.len(), "two targets share a name");
    }
}
