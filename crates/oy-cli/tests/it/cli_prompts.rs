//! Prompt files as slash commands, `/init` and the resume picker, end to
//! end: `oy run /NAME`, a workspace's untrusted `.oy/prompts/`, `/help`,
//! the `/init` turn and its approved write, and `oy resume` / `/resume`
//! picking a session on a real terminal.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::cli_chat::chat;
use crate::cli_run::{run, session_id, sessions_dir};
use crate::mock_model::{self, Wire, call, text, user_texts};
use crate::pty::Pty;
use crate::support::{HOSTILE_NAME, Oy, assert_terminal_safe};

/// The global prompts directory as the binary sees it.
fn global_prompts(oy: &Oy) -> PathBuf {
    let dir = oy.config_dir().join("prompts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const REVIEW: &str = "---\ndescription: Review a file \x1b[31mcarefully\x1b[0m\nargument-hint: [path]\n---\nReview $ARGUMENTS. Start with $1; a literal $$1 stays.\n";

#[test]
fn run_sends_a_global_prompt_file_with_its_arguments() {
    let oy = Oy::new();
    std::fs::write(global_prompts(&oy).join("review.md"), REVIEW).unwrap();
    let mock = mock_model::start(Wire::Chat, vec![text("Reviewed."), text("Again.")]);
    let out = run(&oy, &mock, &["/review", "src/lib.rs", "src/main.rs"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        user_texts(&mock.requests()[0]),
        ["Review src/lib.rs src/main.rs. Start with src/lib.rs; a literal $1 stays."]
    );
    // Arguments are substituted once: their own `$ARGUMENTS` stays as typed.
    let out = run(&oy, &mock, &["/review", "$ARGUMENTS"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        user_texts(&mock.requests()[1]),
        ["Review $ARGUMENTS. Start with $ARGUMENTS; a literal $1 stays."]
    );
}

#[test]
fn run_of_an_unknown_command_is_refused_but_a_path_is_plain_text() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("It is a log.")]);
    let out = run(&oy, &mock, &["/reveiw", "x"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("unknown command /reveiw"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
    let out = run(&oy, &mock, &["/mode", "plan"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("chat command"), "{}", out.stderr);
    assert!(mock.requests().is_empty(), "refused before any request");

    let out = run(&oy, &mock, &["/var/log/x.log", "explain"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(user_texts(&mock.requests()[0]), ["/var/log/x.log explain"]);
}

#[test]
fn an_untrusted_workspace_prompt_is_not_offered_until_trusted() {
    let oy = Oy::new();
    oy.file(".oy/prompts/deploy.md", "Deploy $1 to production.");
    let mock = mock_model::start(Wire::Chat, vec![text("Deployed."), text("Again.")]);
    let out = run(&oy, &mock, &["/deploy", "web"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("not trusted"), "{}", out.stderr);
    assert!(out.stderr.contains("--trust-prompts"), "{}", out.stderr);
    assert!(mock.requests().is_empty());

    let out = run(&oy, &mock, &["--trust-prompts", "/deploy", "web"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        user_texts(&mock.requests()[0]),
        ["Deploy web to production."]
    );
    // Remembered for this content...
    let out = run(&oy, &mock, &["/deploy", "db"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        user_texts(&mock.requests()[1]),
        ["Deploy db to production."]
    );
    // ...and asked again once a file is added.
    oy.file(".oy/prompts/wipe.md", "Delete everything.");
    let out = run(&oy, &mock, &["/deploy", "web"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("not trusted"), "{}", out.stderr);
    assert_eq!(mock.requests().len(), 2);
}

#[test]
fn chat_help_lists_prompt_files_and_an_untrusted_one_says_why() {
    let oy = Oy::new();
    std::fs::write(global_prompts(&oy).join("review.md"), REVIEW).unwrap();
    std::fs::write(global_prompts(&oy).join("Bad Name.md"), "x").unwrap();
    oy.file(
        ".oy/prompts/deploy.md",
        "---\ndescription: ship it\n---\nDeploy.",
    );
    let mock = mock_model::start(Wire::Chat, vec![text("Looked at it.")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.expect("/deploy  ship it");
    chat.expect("Trust these files?");
    chat.answer("n\r");
    chat.expect("ignoring prompt file");
    chat.expect("Bad Name.md");
    chat.expect("not trusted");

    chat.line("/help");
    chat.expect("/init [NOTES]");
    chat.expect("Your own commands (prompt files):");
    chat.expect("/review [path]  Review a file");
    chat.expect("Not trusted, so not offered: /deploy");

    chat.line("/deploy now");
    chat.expect("/deploy comes from .oy/prompts/deploy.md, which is not trusted");

    chat.line("/revie");
    chat.expect("did you mean /review?");

    chat.line("/review a.rs");
    chat.expect("Looked at it.");
    let requests = mock.requests();
    assert_eq!(requests.len(), 1, "only /review reached the model");
    assert_eq!(
        user_texts(&requests[0]),
        ["Review a.rs. Start with a.rs; a literal $1 stays."]
    );
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
    // The description's colour codes came from a file: never shown raw.
    let raw = chat.raw();
    let help = &raw[raw.find("Your own commands").unwrap()..];
    assert_terminal_safe("/help", &help[..help.find("Not trusted").unwrap()]);
    assert!(!raw.contains("\x1b[31mcarefully"), "{raw:?}");
}

#[test]
fn init_sends_the_init_prompt_and_its_write_asks_first() {
    let oy = Oy::new();
    oy.file("Cargo.toml", "[package]\nname = \"demo\"\n");
    let mock = mock_model::start(
        Wire::Responses,
        vec![
            call(
                "write",
                json!({"path": "AGENTS.md", "content": "# Demo\n\n`cargo test` runs the tests.\n"}),
            ),
            text("Wrote AGENTS.md."),
            text("Noted."),
        ],
    );
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("/init");
    chat.expect("AGENTS.md");
    chat.expect("[y/N");
    assert!(
        !oy.root.join("AGENTS.md").exists(),
        "nothing before approval"
    );
    chat.answer("y\r");
    chat.expect("Wrote AGENTS.md.");
    assert_eq!(
        oy.read("AGENTS.md"),
        "# Demo\n\n`cargo test` runs the tests.\n"
    );
    assert_eq!(user_texts(&mock.requests()[0]), [oy_agent::INIT_PROMPT]);
    // The next turn's instructions carry the AGENTS.md /init just wrote.
    chat.line("what now?");
    chat.expect("Noted.");
    let instructions = mock_model::instructions(&mock.requests()[2]).unwrap();
    assert!(
        instructions.contains("`cargo test` runs the tests."),
        "{instructions}"
    );
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn run_init_with_no_one_to_approve_writes_nothing() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call("write", json!({"path": "AGENTS.md", "content": "# x\n"})),
            text("unused"),
        ],
    );
    let out = run(&oy, &mock, &["/init", "mention", "the", "docs/", "folder"]);
    assert_eq!(out.code, 3, "stopped by policy: {}", out.stderr);
    assert!(!oy.root.join("AGENTS.md").exists());
    let sent = &user_texts(&mock.requests()[0])[0];
    assert!(sent.starts_with(oy_agent::INIT_PROMPT), "{sent}");
    assert!(sent.ends_with("\n\nmention the docs/ folder"), "{sent}");
}

/// Two saved sessions of the workspace, the older one aged a day; their ids.
fn two_sessions(oy: &Oy) -> (String, String) {
    let mock = mock_model::start(Wire::Chat, vec![text("Old answer."), text("New answer.")]);
    let older = session_id(&run(oy, &mock, &["--json", "older prompt"]));
    let newer = session_id(&run(oy, &mock, &["--json", "newer prompt"]));
    let path = sessions_dir(oy).join(format!("{older}.jsonl"));
    let saved = std::fs::read_to_string(&path).unwrap();
    let (header, rest) = saved.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(header).unwrap();
    header["updated_at"] = json!("2001-01-01T00:00:00Z");
    header["title"] = json!("older prompt \u{1b}]0;pwned\u{7}");
    std::fs::write(&path, format!("{header}\n{rest}")).unwrap();
    (older, newer)
}

#[test]
fn oy_resume_picks_a_session_on_a_terminal_and_continues_it() {
    let oy = Oy::new();
    let (older, newer) = two_sessions(&oy);
    let mock = mock_model::start(Wire::Chat, vec![text("Continued.")]);
    let mut pty = Pty::start(&oy, &mock, &["resume"], &[]);
    pty.expect("1  newer prompt");
    pty.expect("just now");
    pty.expect(&newer);
    pty.expect("2  older prompt");
    pty.expect("2001-01-01");
    pty.expect(&older);
    pty.expect("resume: number or id (Enter cancels):");
    pty.answer("2\r");
    pty.expect("/help for commands");
    pty.line("and then?");
    pty.expect("Continued.");
    assert_eq!(
        user_texts(&mock.requests()[0]),
        ["older prompt", "and then?"]
    );
    pty.prompt();
    pty.send("\x04");
    assert_eq!(pty.wait(), 0, "{}", pty.screen());
    assert!(!pty.raw().contains("\x1b]0;pwned"), "{:?}", pty.raw());
}

#[test]
fn oy_resume_cancels_on_an_empty_answer() {
    let oy = Oy::new();
    two_sessions(&oy);
    let mock = mock_model::start(Wire::Chat, vec![text("unused")]);
    let mut pty = Pty::start(&oy, &mock, &["resume"], &[]);
    pty.expect("resume: number or id (Enter cancels):");
    pty.answer("\r");
    assert_eq!(pty.wait(), 0, "{}", pty.screen());
    assert!(mock.requests().is_empty());
}

#[test]
fn oy_resume_without_a_terminal_needs_an_id() {
    let oy = Oy::new();
    let (older, _) = two_sessions(&oy);
    let out = oy.run(&["resume"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
    assert!(out.stderr.contains("oy sessions"), "{}", out.stderr);

    // With an id there is nothing to pick: the chat starts (and, with no
    // terminal, ends at once).
    let mock = mock_model::start(Wire::Chat, vec![text("unused")]);
    let mut cmd = mock_model::oy_command(&oy, &mock);
    cmd.args(["resume", &older, "--model", "mock-model"]);
    let out = crate::support::output_with_stdin(&mut cmd, Some(""));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn resume_in_chat_without_an_id_picks_another_session() {
    let oy = Oy::new();
    let (older, _) = two_sessions(&oy);
    let mock = mock_model::start(Wire::Chat, vec![text("Back to the old one.")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("/resume");
    chat.expect("older prompt");
    chat.expect("resume: number or id (Enter cancels):");
    chat.answer("\r");
    chat.line("/resume");
    chat.expect("resume: number or id (Enter cancels):");
    chat.answer(&format!("{older}\r"));
    chat.line("what was it?");
    chat.expect("Back to the old one.");
    assert_eq!(
        user_texts(&mock.requests()[0]),
        ["older prompt", "what was it?"]
    );
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn hostile_prompt_file_names_and_texts_reach_the_terminal_safely() {
    let oy = Oy::new();
    oy.file(&format!(".oy/prompts/{HOSTILE_NAME}.md"), "x");
    oy.file(
        ".oy/prompts/ok.md",
        "---\ndescription: fine\n---\nOK $ARGUMENTS",
    );
    std::fs::write(global_prompts(&oy).join(format!("{HOSTILE_NAME}.md")), "y").unwrap();
    let mock = mock_model::start(Wire::Chat, vec![text("Done.")]);
    let out = run(&oy, &mock, &["--trust-prompts", "/ok", "go"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("ignoring prompt file"),
        "{}",
        out.stderr
    );
    assert_terminal_safe("oy run /ok", &out.stderr);
    assert_eq!(user_texts(&mock.requests()[0]), ["OK go"]);
}
