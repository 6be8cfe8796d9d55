//! What a person adds to a prompt, end to end: `@path` mentions in
//! `oy run` and chat (the file's numbered lines in the request, a missing
//! path refused before any request), `!command` in chat (shown, stopped by
//! Ctrl-C, sent with the next message with its secrets redacted), and Tab
//! completion of `@` paths.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli_chat::chat;
use crate::cli_run::{events, run};
use crate::mock_model::{self, Wire, text, user_texts};
use crate::pty::Pty;
use crate::support::Oy;

/// Generous: two busy cores build and run many tests at once.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The last user message of `request`.
fn last_user(request: &Value) -> String {
    user_texts(request).pop().unwrap_or_default()
}

#[test]
fn run_sends_a_mentioned_file_as_numbered_lines() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        oy.file("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
        let mock = mock_model::start(wire, vec![text("It returns 42.")]);
        let out = run(&oy, &mock, &["look at @src/lib.rs."]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stderr.contains("attached src/lib.rs (3 lines)"),
            "{}",
            out.stderr
        );
        let sent = last_user(&mock.requests()[0]);
        assert!(
            sent.starts_with("look at @src/lib.rs.\n\n<file path=\"src/lib.rs\">\n"),
            "{sent}"
        );
        assert!(
            sent.ends_with("1\tpub fn answer() -> u32 {\n2\t    42\n3\t}\n</file>"),
            "{sent}"
        );
    }
}

#[test]
fn run_refuses_a_missing_mention_before_any_request() {
    let oy = Oy::new();
    oy.file("src/lib.rs", "");
    let mock = mock_model::start(Wire::Chat, vec![text("never")]);
    let out = run(&oy, &mock, &["fix @src/lib.r please"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("oy: error: @src/lib.r: no such file or directory in the workspace"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("hint: did you mean @src/lib.rs?"),
        "{}",
        out.stderr
    );
    assert!(mock.requests().is_empty(), "{:?}", mock.paths());
    assert!(mock.paths().is_empty(), "{:?}", mock.paths());
    assert_eq!(mock.steps_left(), 1);
}

#[test]
fn run_refuses_a_mention_outside_the_workspace() {
    let oy = Oy::new();
    let outside = oy.root.parent().unwrap().join("outside.txt");
    std::fs::write(&outside, "OUTSIDE-SECRET\n").unwrap();
    std::os::unix::fs::symlink(&outside, oy.root.join("link.txt")).unwrap();
    let mock = mock_model::start(Wire::Chat, vec![text("never")]);
    for prompt in ["read @../outside.txt", "read @link.txt"] {
        let out = run(&oy, &mock, &[prompt]);
        assert_eq!(out.code, 2, "{prompt}: {}", out.stderr);
        assert!(
            out.stderr.contains("outside the workspace"),
            "{}",
            out.stderr
        );
    }
    assert!(mock.requests().is_empty());
}

#[test]
fn a_piped_prompt_is_sent_as_it_is() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("Thanks noted.")]);
    let out = mock_model::run_with_stdin(&oy, &mock, &[], Some("thanks @octocat for the report"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        last_user(&mock.requests()[0]),
        "thanks @octocat for the report"
    );
}

#[test]
fn json_turn_started_lists_what_was_attached() {
    let oy = Oy::new();
    oy.file("docs/a.md", "").file("docs/b.md", "");
    let mock = mock_model::start(Wire::Responses, vec![text("Two files.")]);
    let out = run(&oy, &mock, &["--json", "what is in @docs?"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let started = events(&out)
        .into_iter()
        .find(|event| event["type"] == "turn_started")
        .unwrap();
    assert_eq!(started["prompt"], "what is in @docs?");
    assert_eq!(
        started["attachments"],
        serde_json::json!([{"path": "docs/", "kind": "directory", "lines": 2, "truncated": false}])
    );
    assert!(!out.stderr.contains("attached"), "{}", out.stderr);
    assert!(
        last_user(&mock.requests()[0])
            .ends_with("<directory path=\"docs/\">\ndocs/a.md\ndocs/b.md\n</directory>")
    );
}

#[test]
fn chat_bang_shows_the_output_and_sends_it_with_the_next_message() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("It printed hi.")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("!echo hi; pwd");
    chat.expect("hi");
    chat.expect(&oy.root.display().to_string());
    chat.expect("exit 0 · the command and its output go with your next message");
    assert!(mock.requests().is_empty(), "no request for a command");
    chat.line("what did it print?");
    chat.expect("It printed hi.");
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let users = user_texts(&requests[0]);
    assert_eq!(users.len(), 1, "one user message: {users:?}");
    let sent = &users[0];
    assert!(sent.starts_with("<note kind=\"shell\">\n"), "{sent}");
    assert!(
        sent.contains(&format!(
            "$ echo hi; pwd\nhi\n{}\n[exit status 0]\n</note>",
            oy.root.display()
        )),
        "{sent}"
    );
    assert!(sent.ends_with("</note>\n\nwhat did it print?"), "{sent}");
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn chat_bang_env_sends_no_secret_to_the_model() {
    let oy = Oy::new();
    let openai = concat!("sk-", "proj-", "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z");
    let aws = concat!("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYq8r3Zt9uWv");
    let mock = mock_model::start(Wire::Chat, vec![text("Your environment is set.")]);
    let mut chat = Pty::start(
        &oy,
        &mock,
        &["chat"],
        &[
            ("MY_SERVICE_OPENAI_KEY", openai),
            ("AWS_SECRET_ACCESS_KEY", aws),
            ("PLAIN_SETTING", "visible-value"),
        ],
    );
    chat.line("!env");
    chat.expect("secret-shaped values redacted)");
    chat.line("is my environment set up?");
    chat.expect("Your environment is set.");
    let sent = last_user(&mock.requests()[0]);
    assert!(sent.contains("PLAIN_SETTING=visible-value"), "{sent}");
    assert!(!sent.contains(openai), "the OpenAI key reached the model");
    assert!(!sent.contains(aws), "the AWS secret reached the model");
    assert!(sent.contains("AWS_SECRET_ACCESS_KEY=[redacted:"), "{sent}");
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn ctrl_c_stops_a_bang_command_and_chat_goes_on() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("Noted the stop.")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("!echo started; echo $$ > sleeper.pid; exec sleep 30");
    chat.expect("started");
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
    chat.expect("stopped · the command and its output go with your next message");
    assert!(started.elapsed() < Duration::from_secs(20));
    let proc = Path::new("/proc").join(&pid);
    while proc.exists() {
        assert!(
            Instant::now() < deadline,
            "`sleep 30` (pid {pid}) outlived Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    chat.line("why did it stop?");
    chat.expect("Noted the stop.");
    let sent = last_user(&mock.requests()[0]);
    assert!(
        sent.contains("started\n[stopped by the person before it finished]\n</note>"),
        "{sent}"
    );
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn chat_tab_completes_a_mentioned_path() {
    let oy = Oy::new();
    oy.file("src/lib.rs", "fn lib() {}\n").file("README.md", "");
    let mock = mock_model::start(Wire::Chat, vec![text("Read it.")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.prompt();
    chat.send("look at @sr");
    chat.send("\t");
    wait_shown(&chat, "› look at @src/");
    chat.send("li\t");
    wait_shown(&chat, "› look at @src/lib.rs");
    chat.send("\r");
    chat.expect("attached src/lib.rs (1 line)");
    chat.expect("Read it.");
    let sent = last_user(&mock.requests()[0]);
    assert!(
        sent.ends_with("<file path=\"src/lib.rs\">\n1\tfn lib() {}\n</file>"),
        "{sent}"
    );
    chat.prompt();
    chat.send("/mo\t\t");
    wait_shown(&chat, "/model");
    chat.send("\x15\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn chat_refuses_a_missing_mention_and_gives_the_message_back() {
    let oy = Oy::new();
    oy.file("notes.md", "ship it\n");
    let mock = mock_model::start(Wire::Chat, vec![text("Shipping.")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("summarise @notse.md");
    chat.expect("@notse.md: no such file or directory in the workspace");
    chat.expect("hint: did you mean @notes.md?");
    // The message is back at the prompt, to be fixed.
    chat.expect("› summarise @notse.md");
    assert!(mock.requests().is_empty());
    chat.send("\x15summarise @notes.md\r");
    chat.expect("Shipping.");
    assert!(last_user(&mock.requests()[0]).contains("1\tship it\n"));
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

/// Waits until the screen as drawn shows `needle`.
fn wait_shown(pty: &Pty, needle: &str) {
    let deadline = Instant::now() + TIMEOUT;
    while !pty.shown().contains(needle) {
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {needle:?} on screen:\n{}",
            pty.shown()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
