//! Writing to a pipe whose reader has gone (`oy tools | head -c10`) ends
//! quietly with status 0: no panic, no "error: Broken pipe". Each command
//! runs with stdout on a real pipe whose read end is closed before oy
//! starts, so every write fails with EPIPE.

use std::process::{Command, Stdio};

use crate::support::{ModelsServer, Oy, assert_clean};

/// Runs `cmd` with stdout on a pipe nobody reads; returns the exit code
/// and stderr.
fn into_closed_pipe(mut cmd: Command) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = cmd
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn printing_commands_exit_quietly_when_the_reader_is_gone() {
    let oy = Oy::new();
    oy.file("a.txt", "one\ntwo\n");
    let read = r#"{"path":"a.txt"}"#;
    for args in [
        &["completions", "bash"][..],
        &["completions", "zsh"],
        &["tools"],
        &["tools", "--format", "markdown"],
        &["sessions"],
        &["sessions", "--json"],
        &["--help"],
        &["sessions", "--help"],
        &["tool", "read", read],
        &["tool", "read", read, "--json"],
    ] {
        let mut cmd = oy.clean_command();
        cmd.args(args);
        let (code, stderr) = into_closed_pipe(cmd);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_clean(&format!("{args:?}"), &stderr);
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}

#[test]
fn the_model_listing_and_doctor_exit_quietly_when_the_reader_is_gone() {
    let oy = Oy::new();
    let server = ModelsServer::start(&["alpha", "beta"]);
    for args in [&["model"][..], &["model", "--json"], &["doctor"]] {
        let mut cmd = oy.clean_command();
        cmd.args(args).env("OPENAI_BASE_URL", server.base_url());
        let (code, stderr) = into_closed_pipe(cmd);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_clean(&format!("{args:?}"), &stderr);
    }
}

#[test]
fn a_json_run_stops_when_its_reader_is_gone() {
    use crate::mock_model::{self, Wire, call, text};
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "bash",
                serde_json::json!({"command": "echo started > started.txt; exec sleep 30"}),
            ),
            text("done"),
        ],
    );
    let mut cmd = mock_model::oy_command(&oy, &mock);
    cmd.args([
        "run",
        "--model",
        "mock-model",
        "--wire-api",
        mock.wire.flag(),
    ])
    .args(["--json", "--mode", "auto", "do something slow"]);
    let started = std::time::Instant::now();
    let (_, stderr) = into_closed_pipe(cmd);
    let took = started.elapsed();
    // Nobody reads the events, so the turn is cancelled at the first one:
    // no `sleep 30`, no second request.
    assert!(
        took < std::time::Duration::from_secs(20),
        "took {took:?}: {stderr}"
    );
    assert!(!oy.root.join("started.txt").exists(), "{stderr}");
    assert!(mock.requests().len() <= 1, "{stderr}");
}
