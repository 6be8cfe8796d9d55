//! `oy chat` in a real pseudo-terminal against the scripted mock model:
//! slash commands, a streamed turn, Ctrl-C cancelling a running turn while
//! chat goes on, the approval prompt, the private history file, Ctrl-D.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::mock_model::{self, MockModel, Wire, call, text, tool_outputs};
use crate::pty::Pty;
use crate::support::Oy;

/// Generous: two busy cores build and run many tests at once.
const TIMEOUT: Duration = Duration::from_secs(60);

/// `oy chat ARGS` on a pseudo-terminal against `mock`.
pub(crate) fn chat(oy: &Oy, mock: &MockModel, args: &[&str]) -> Pty {
    let mut all = vec!["chat"];
    all.extend_from_slice(args);
    Pty::start(oy, mock, &all, &[])
}

fn history_file(oy: &Oy) -> std::path::PathBuf {
    oy.data.join("oy/history")
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn slash_commands_a_streamed_turn_history_and_ctrl_d() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("Hello from the mock model.")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.expect("/help for commands");

    chat.line("/help");
    chat.expect("/mode [MODE]");
    chat.expect("/todo");
    chat.expect("/tokens");
    chat.expect("Ctrl-C cancels a running turn");

    chat.line("/mode plan");
    chat.expect("mode plan · network");
    chat.line("/mode");
    chat.expect("mode plan · network deny");

    chat.line("/todo");
    chat.expect("no plan yet");

    chat.line("say hello");
    chat.expect("Hello from the mock model.");
    chat.expect("1 request");
    assert_eq!(mock.requests().len(), 1);
    let offered = mock_model::tool_names(&mock.requests()[0]);
    assert!(
        !offered.contains(&"write".to_owned()),
        "plan mode: {offered:?}"
    );
    assert!(
        !offered.contains(&"bash".to_owned()),
        "plan mode: {offered:?}"
    );

    chat.line("/tokens");
    chat.expect("spent 120 in / 30 out");

    chat.prompt();
    chat.send("\x04");
    chat.expect("saved");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());

    let history = history_file(&oy);
    assert_eq!(mode_of(&history), 0o600);
    let saved = std::fs::read_to_string(&history).unwrap();
    assert!(saved.contains("say hello"), "{saved}");
    assert!(saved.contains("/mode plan"), "{saved}");
}

#[test]
fn todo_shows_the_plan_the_model_keeps() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Responses,
        vec![
            call(
                "todo",
                json!({"items": [
                    {"text": "write the tests", "status": "in_progress"},
                    {"text": "ship it", "status": "pending"},
                    {"text": "read the code", "status": "done"},
                ]}),
            ),
            text("Planned."),
        ],
    );
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("make a plan");
    chat.expect("Planned.");
    chat.line("/todo");
    chat.expect("[~] write the tests");
    chat.expect("[ ] ship it");
    chat.expect("[x] read the code");
    chat.line("/quit");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn ctrl_c_cancels_a_running_turn_and_chat_goes_on() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "bash",
                json!({"command": "echo $$ > sleeper.pid; exec sleep 30"}),
            ),
            text("Still here after the interruption."),
        ],
    );
    let mut chat = chat(&oy, &mock, &["--mode", "auto"]);
    chat.line("run something slow");
    chat.expect("→ bash");
    let pid_file = oy.root.join("sleeper.pid");
    let deadline = Instant::now() + TIMEOUT;
    while !std::fs::read_to_string(&pid_file).is_ok_and(|pid| pid.ends_with('\n')) {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_owned();
    let started = Instant::now();
    chat.send("\x03");
    chat.expect("interrupted");
    chat.prompt();
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "cancelling took {took:?}:\n{}",
        chat.screen()
    );
    // The command's process is gone (killed, and reaped), not orphaned.
    let proc = Path::new("/proc").join(&pid);
    while proc.exists() {
        assert!(
            Instant::now() < deadline,
            "`sleep 30` (pid {pid}) outlived the cancelled turn"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    chat.send("carry on\r");
    chat.expect("Still here after the interruption.");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    // The cancelled call still has a result, so the transcript stays valid.
    assert_eq!(tool_outputs(&requests[1]).len(), 1, "{}", requests[1]);

    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn ctrl_c_at_the_prompt_clears_the_line_and_does_not_quit() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("Answered the second line.")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.prompt();
    chat.send("this line is abandoned");
    chat.send("\x03");
    chat.line("second line");
    chat.expect("Answered the second line.");
    let users = mock_model::user_texts(&mock.requests()[0]);
    assert_eq!(users, ["second line"]);
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn a_denied_approval_shows_the_diff_and_writes_nothing() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "write",
                json!({"path": "new.txt", "content": "first line\nsecond line\n"}),
            ),
            text("never reached"),
        ],
    );
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("create new.txt");
    chat.expect("+first line");
    chat.expect("+second line");
    chat.expect("[y/N");
    chat.answer("n\r");
    chat.expect("not approved");
    chat.prompt();
    assert!(!oy.root.join("new.txt").exists());
    assert_eq!(mock.requests().len(), 1, "the turn ends at the denial");
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn an_approved_write_lands() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Responses,
        vec![
            call("write", json!({"path": "new.txt", "content": "approved\n"})),
            text("Wrote it."),
        ],
    );
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("create new.txt");
    chat.expect("[y/N");
    chat.answer("y\r");
    chat.expect("Wrote it.");
    assert_eq!(oy.read("new.txt"), "approved\n");
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn mode_cannot_rise_above_the_workspace_config_and_ask_has_no_network() {
    let oy = Oy::new();
    oy.file(".oy/config.toml", "mode = \"default\"\n");
    let mock = mock_model::start(Wire::Chat, vec![text("Nothing to fetch.")]);
    let mut chat = chat(&oy, &mock, &["--mode", "plan"]);
    chat.line("/mode auto");
    chat.expect("allows at most mode default");
    chat.expect("mode default · network ask");
    chat.line("/ask what is here?");
    chat.expect("Nothing to fetch.");
    let offered = mock_model::tool_names(&mock.requests()[0]);
    assert!(
        !offered.contains(&"webfetch".to_owned()),
        "/ask offers no network: {offered:?}"
    );
    assert!(
        !offered.contains(&"write".to_owned()),
        "/ask is read-only: {offered:?}"
    );
    chat.line("/mode");
    chat.expect("mode default · network ask");
}

#[test]
fn sigterm_at_the_prompt_ends_chat_with_130() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("unused")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.prompt();
    let pid = chat.pid();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(chat.wait(), 130, "{}", chat.screen());
}
