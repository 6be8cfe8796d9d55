//! The help text people read first, pinned by snapshots: `oy --help`,
//! `oy run --help`, `oy chat --help`. A change here is a change to the
//! user-facing contract; review the new snapshot like any other text.

use std::process::Stdio;

use crate::mock_model::isolate;
use crate::support::Oy;

/// `oy ARGS` on stdout, with no `OY_*` variable set so clap's `[env: …]`
/// notes show no values.
fn help(args: &[&str]) -> String {
    let oy = Oy::new();
    let mut cmd = oy.command();
    isolate(&mut cmd, &oy);
    for name in ["OY_ROOT", "OY_MODE", "OY_NON_INTERACTIVE", "COLUMNS"] {
        cmd.env_remove(name);
    }
    let out = cmd.args(args).stdin(Stdio::null()).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn main_help() {
    insta::assert_snapshot!(help(&["--help"]));
}

#[test]
fn run_help() {
    insta::assert_snapshot!(help(&["run", "--help"]));
}

#[test]
fn chat_help() {
    insta::assert_snapshot!(help(&["chat", "--help"]));
}

/// Every command: `oy NAME --help`.
const COMMANDS: [&str; 10] = [
    "run",
    "chat",
    "model",
    "doctor",
    "sessions",
    "audit",
    "completions",
    "tools",
    "tool",
    "sandbox",
];

#[test]
fn every_command_has_examples() {
    for name in COMMANDS {
        let text = help(&[name, "--help"]);
        assert!(
            text.contains("\nExamples:\n  oy "),
            "oy {name} --help:\n{text}"
        );
    }
    assert!(help(&["--help"]).contains("\nExamples:\n"));
}

/// Whether `text` names `flag` anywhere (`--mode`, not `--model`).
fn mentions(text: &str, flag: &str) -> bool {
    text.match_indices(flag).any(|(at, _)| {
        !text[at + flag.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
    })
}

/// The long flags a help text lists.
fn flags(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim_start().split_once("--"))
        .filter(|(before, _)| before.is_empty() || before.ends_with(", "))
        .map(|(_, rest)| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            format!("--{name}")
        })
        .collect()
}

#[test]
fn each_command_lists_only_the_flags_that_apply_to_it() {
    let expect = |name: &str, wanted: &[&str], absent: &[&str]| {
        let listed = flags(&help(&[name, "--help"]));
        for flag in wanted {
            assert!(
                listed.iter().any(|f| f == flag),
                "oy {name}: {flag} missing from {listed:?}"
            );
        }
        for flag in absent {
            assert!(
                !listed.iter().any(|f| f == flag),
                "oy {name}: {flag} in {listed:?}"
            );
        }
    };
    // Not mentioned at all, in the flags or the notes.
    let sessions = help(&["sessions", "--help"]);
    for flag in ["--mode", "--network", "--sandbox"] {
        assert!(!mentions(&sessions, flag), "oy sessions --help: {flag}");
    }
    let audit = help(&["audit", "--help"]);
    for flag in ["--mode", "--sandbox", "--env-allow"] {
        assert!(!mentions(&audit, flag), "oy audit --help: {flag}");
    }
    let policy = [
        "--mode",
        "--network",
        "--sandbox",
        "--env-allow",
        "--trust-tools",
    ];
    let provider = ["--model", "--provider", "--wire-api"];
    expect(
        "sessions",
        &["--root", "--json", "--all"],
        &[&policy[..], &provider[..]].concat(),
    );
    expect(
        "audit",
        &["--root", "--model", "--provider", "--wire-api", "--dry-run"],
        &policy,
    );
    expect(
        "completions",
        &[],
        &[&policy[..], &provider[..], &["--root"]].concat(),
    );
    expect("model", &provider, &[&policy[..], &["--root"]].concat());
    expect(
        "tools",
        &["--root", "--mode", "--network", "--trust-tools"],
        &[&provider[..], &["--sandbox", "--env-allow"]].concat(),
    );
    expect(
        "tool",
        &[&policy[..], &["--root", "--session"]].concat(),
        &provider,
    );
    expect(
        "doctor",
        &[&policy[..], &provider[..], &["--root"]].concat(),
        &["--json", "--quiet"],
    );
    expect(
        "run",
        &[&policy[..], &provider[..], &["--root"]].concat(),
        &[],
    );
    expect(
        "chat",
        &[&policy[..], &provider[..], &["--root"]].concat(),
        &["--json"],
    );
}
