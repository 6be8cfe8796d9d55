//! `oy sessions`, `--resume` and `--continue`: saved sessions end to end
//! — private files, the earlier conversation resent, the
//! workspace check, and the mode given now winning over the saved one.

use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use crate::cli_run::{events, run, session_id, sessions_dir};
use crate::cli_tool::ECHO_TOOL;
use crate::mock_model::{self, Wire, assistant_texts, call, text, user_texts};
use crate::support::{HOSTILE_NAME, Oy, assert_private_tree, assert_terminal_safe};

#[test]
fn a_run_saves_a_private_session_that_sessions_lists() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("First answer.")]);
    let out = run(&oy, &mock, &["--json", "first prompt"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = session_id(&out);

    let files: Vec<_> = std::fs::read_dir(sessions_dir(&oy))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        files[0]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .contains(&id),
        "{files:?} vs {id}"
    );
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");

    let mut list = oy.command();
    mock_model::isolate(&mut list, &oy);
    let listed = list.arg("sessions").output().unwrap();
    let stdout = String::from_utf8(listed.stdout).unwrap();
    assert!(listed.status.success(), "{stdout}");
    assert!(stdout.contains(&id), "{stdout}");
    assert!(stdout.contains("first prompt"), "{stdout}");
}

#[test]
fn resume_sends_the_earlier_conversation() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let first = mock_model::start(wire, vec![text("The first answer.")]);
        let out = run(&oy, &first, &["--json", "first prompt"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let id = session_id(&out);

        let second = mock_model::start(wire, vec![text("The second answer.")]);
        let out = run(&oy, &second, &["--json", "--resume", &id, "next"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        let events = events(&out);
        assert_eq!(events[0]["resumed"], true);
        assert_eq!(events[0]["session_id"], id.as_str());
        let request = &second.requests()[0];
        assert_eq!(user_texts(request), ["first prompt", "next"], "{wire:?}");
        assert_eq!(assistant_texts(request), ["The first answer."], "{wire:?}");
    }
}

#[test]
fn continue_picks_the_latest_session_of_the_workspace() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("one"), text("two"), text("three")]);
    let older = session_id(&run(&oy, &mock, &["--json", "older prompt"]));
    // Timestamps have a one-second resolution: age the first session
    // instead of waiting for the clock.
    let path = sessions_dir(&oy).join(format!("{older}.jsonl"));
    let saved = std::fs::read_to_string(&path).unwrap();
    let (header, rest) = saved.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(header).unwrap();
    assert!(header["updated_at"].is_string(), "{header}");
    header["updated_at"] = json!("2001-01-01T00:00:00Z");
    std::fs::write(&path, format!("{header}\n{rest}")).unwrap();
    assert_eq!(run(&oy, &mock, &["newer prompt"]).code, 0);
    let out = run(&oy, &mock, &["--continue", "and then?"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let request = mock.requests().pop().unwrap();
    assert_eq!(user_texts(&request), ["newer prompt", "and then?"]);
}

#[test]
fn continue_without_a_session_is_a_usage_error() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("unused")]);
    let out = run(&oy, &mock, &["--continue", "again"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no saved session"), "{}", out.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn resuming_a_session_from_another_workspace_is_refused() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("First."), text("unused")]);
    let out = run(&oy, &mock, &["--json", "first prompt"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = session_id(&out);
    let elsewhere = oy.root.parent().unwrap().join("outside");
    let out = run(
        &oy,
        &mock,
        &[
            "--root",
            elsewhere.to_str().unwrap(),
            "--resume",
            &id,
            "next",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains(&id), "{}", out.stderr);
    assert!(out.stderr.contains("workspace"), "{}", out.stderr);
    assert_eq!(
        mock.requests().len(),
        1,
        "nothing sent for the refused resume"
    );
}

#[test]
fn a_resumed_session_runs_in_the_mode_given_now_not_the_saved_one() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call("write", json!({"path": "one.txt", "content": "1\n"})),
            text("Wrote one."),
            call("write", json!({"path": "two.txt", "content": "2\n"})),
            text("never reached"),
        ],
    );
    let out = run(&oy, &mock, &["--json", "--mode", "auto", "write one"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(oy.read("one.txt"), "1\n");
    let id = session_id(&out);
    let out = run(&oy, &mock, &["--resume", &id, "write two"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(!oy.root.join("two.txt").exists());
}

#[test]
fn resume_with_an_unknown_id_is_a_usage_error() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("unused")]);
    let out = run(&oy, &mock, &["--resume", "no-such-session", "hi"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn sessions_all_shows_a_hostile_workspace_path_and_title_inert() {
    let oy = Oy::new().with_hostile_root();
    let mock = mock_model::start(Wire::Chat, vec![text("Done.")]);
    let prompt = "title \x1b]0;pwned\x07\u{9b}2J\u{202e} then\nforged line";
    let out = run(&oy, &mock, &["--json", prompt]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let id = session_id(&out);

    let mut list = oy.command();
    mock_model::isolate(&mut list, &oy);
    let listed = list.args(["sessions", "--all"]).output().unwrap();
    assert!(listed.status.success(), "{listed:?}");
    let stdout = String::from_utf8(listed.stdout).unwrap();
    let stderr = String::from_utf8(listed.stderr).unwrap();
    assert_terminal_safe("sessions --all", &stdout);
    assert_terminal_safe("sessions --all (stderr)", &stderr);
    // The session is one line, naming its (defused) workspace and title.
    let line = stdout
        .lines()
        .find(|line| line.contains(&id))
        .unwrap_or_else(|| panic!("{id} not listed: {stdout}"));
    assert!(line.contains("evil") && line.contains("gnp.exe"), "{line}");
    assert!(line.contains("pwned") && line.contains("title"), "{line}");

    // JSON keeps the exact path, escaped so a terminal shows it inert too.
    let mut list = oy.command();
    mock_model::isolate(&mut list, &oy);
    let listed = list.args(["sessions", "--all", "--json"]).output().unwrap();
    let stdout = String::from_utf8(listed.stdout).unwrap();
    assert_terminal_safe("sessions --all --json", &stdout);
    let sessions: Value = serde_json::from_str(&stdout).unwrap();
    let workspace = sessions[0]["workspace"].as_str().unwrap();
    assert!(workspace.ends_with(HOSTILE_NAME), "{workspace:?}");
}

/// A session, a tool session and a trust record: everything oy keeps.
fn fill_the_data_dir(oy: &Oy) {
    let mock = mock_model::start(Wire::Chat, vec![text("Done.")]);
    let out = run(oy, &mock, &["--json", "a prompt worth keeping private"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let todo = r#"{"items":[{"text":"a private plan","status":"pending"}]}"#;
    let out = oy.run(&["tool", "todo", todo, "--session", "s"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    oy.file(".oy/tools.json", ECHO_TOOL);
    let out = oy.run(&["tool", "list", "--trust-tools"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for kept in [
        "oy/sessions",
        "oy/tool-sessions/s.json",
        "oy/trusted-tools.json",
    ] {
        assert!(oy.data.join(kept).exists(), "{kept}");
    }
}

#[test]
fn data_directories_are_created_0700_and_files_0600() {
    let oy = Oy::new();
    fill_the_data_dir(&oy);
    // oy created XDG_DATA_HOME too (it did not exist): 0700 as well.
    assert_private_tree(&oy.data);
}

#[test]
fn loose_data_directories_of_an_earlier_run_are_tightened() {
    use std::os::unix::fs::PermissionsExt;
    let oy = Oy::new();
    for dir in ["oy/sessions", "oy/tool-sessions"] {
        std::fs::create_dir_all(oy.data.join(dir)).unwrap();
    }
    let loose = std::fs::Permissions::from_mode(0o755);
    for dir in ["", "oy", "oy/sessions", "oy/tool-sessions"] {
        std::fs::set_permissions(oy.data.join(dir), loose.clone()).unwrap();
    }
    fill_the_data_dir(&oy);
    assert_private_tree(&oy.data.join("oy"));
    // XDG_DATA_HOME itself is not oy's: left as it was.
    let base = std::fs::metadata(&oy.data).unwrap().permissions().mode() & 0o777;
    assert_eq!(base, 0o755);
}
