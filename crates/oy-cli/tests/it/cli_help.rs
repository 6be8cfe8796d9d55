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
