//! "Allow for this session" in a real pseudo-terminal: `a` at a command
//! approval allows its prefix, the next covered command runs without a
//! question, a smuggled command is still asked about (with no `a` to
//! give), `/permissions` lists what is allowed, `/clear` forgets it and
//! the next command asks again.

use serde_json::json;

use crate::cli_chat::chat;
use crate::mock_model::{self, Wire, call, text, tool_outputs};
use crate::support::Oy;

/// How many approval questions `text` holds.
fn questions(text: &str) -> usize {
    text.matches("wants to run a shell command").count()
}

#[test]
fn always_allows_a_command_prefix_until_clear() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call("bash", json!({"command": "echo one"})),
            text("Ran one."),
            call("bash", json!({"command": "echo two"})),
            text("Ran two."),
            call("bash", json!({"command": "echo x; touch pwned"})),
            call("bash", json!({"command": "echo three"})),
            text("Ran three."),
        ],
    );
    let mut chat = chat(&oy, &mock, &[]);

    chat.line("first task");
    chat.expect("echo one");
    chat.expect("a = always this session: commands starting with `echo`");
    chat.expect("[y/N/a, or n and a reason]");
    chat.answer("a\r");
    chat.expect("Ran one.");

    // Covered: runs with no question.
    chat.line("second task");
    chat.expect("Ran two.");
    let screen = chat.screen();
    let second = &screen[screen.rfind("second task").unwrap()..];
    assert_eq!(questions(second), 0, "{second}");
    let requests = mock.requests();
    assert!(
        tool_outputs(&requests[3])
            .iter()
            .any(|out| out.contains("two")),
        "{}",
        requests[3]
    );

    // Not one simple command: asked, and `a` is not offered.
    chat.line("third task");
    chat.expect("echo x; touch pwned");
    chat.expect("[y/N, or n and a reason]");
    chat.answer("a\r");
    chat.expect("nothing here can be allowed for the whole session");
    chat.answer("n\r");
    chat.expect("not approved");
    assert!(!oy.root.join("pwned").exists());

    chat.line("/permissions");
    chat.expect("allowed for this session: commands starting with `echo`");

    chat.line("/help");
    chat.expect("/permissions");

    chat.line("/clear");
    chat.expect("conversation cleared; forgot 1 session permission");
    chat.line("/permissions");
    chat.expect("nothing is allowed for this session");

    // Forgotten: the same kind of command asks again.
    chat.line("fourth task");
    chat.expect("echo three");
    chat.expect("[y/N/a, or n and a reason]");
    chat.answer("y\r");
    chat.expect("Ran three.");
    let screen = chat.screen();
    let fourth = &screen[screen.rfind("fourth task").unwrap()..];
    assert_eq!(questions(fourth), 1, "{fourth}");
    // A plain yes remembers nothing.
    chat.line("/permissions");
    chat.expect("nothing is allowed for this session");

    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
    assert_eq!(mock.steps_left(), 0);
}

#[test]
fn in_oy_run_always_allows_a_file_tool_for_the_rest_of_the_run() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Responses,
        vec![
            call("write", json!({"path": "a.txt", "content": "a\n"})),
            call("write", json!({"path": "src/b.txt", "content": "b\n"})),
            call("replace", json!({"path": "a.txt", "old": "a", "new": "c"})),
            text("Wrote both."),
        ],
    );
    let mut run = crate::pty::Pty::start(&oy, &mock, &["run", "write two files"], &[]);
    run.expect("+a");
    run.expect("a = always this session: `write` changes to ordinary workspace files");
    run.expect("[y/N/a, or n and a reason]");
    run.answer("a\r");
    // The second write is covered; `replace` is another tool and asks.
    run.expect("`replace` wants to");
    run.answer("n\r");
    assert_eq!(run.wait(), 3, "{}", run.screen());
    assert_eq!(run.screen().matches(" wants to ").count(), 2);
    assert_eq!(oy.read("a.txt"), "a\n");
    assert_eq!(oy.read("src/b.txt"), "b\n");
}
