//! `oy WORD`: a lone word near a command's name asks "did you mean …?",
//! any other bare word is refused with the way to send it anyway, and a
//! one-word task goes through — the first two without a model request.

use std::process::Stdio;

use crate::mock_model::{self, MockModel, Ran, Wire, text};
use crate::support::{Oy, assert_clean};

/// `oy ARGS` against `mock` (which any request would reach).
fn oy(oy: &Oy, mock: &MockModel, args: &[&str]) -> Ran {
    let out = mock_model::oy_command(oy, mock)
        .env("OY_MODEL", "mock-model")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn a_word_near_a_command_asks_did_you_mean_and_sends_nothing() {
    let home = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![]);
    for (typed, meant) in [
        ("dcotor", "doctor"),
        ("sesions", "sessions"),
        ("chta", "chat"),
        ("modle", "model"),
        ("Doctor", "doctor"),
        ("SESSIONS", "sessions"),
    ] {
        let run = oy(&home, &mock, &[typed]);
        assert_eq!(run.code, 2, "{typed}: {}", run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "oy: error: unknown command `{typed}`\n\
                 hint: did you mean `oy {meant}`?\n\
                 hint: to send it to the model as a prompt, use `oy run {typed}`\n"
            )
        );
        assert_clean(typed, &run.stderr);
    }
    assert!(mock.requests().is_empty(), "no model request was spent");
}

#[test]
fn a_bare_word_far_from_every_command_is_refused_with_the_way_to_send_it() {
    let home = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![]);
    let run = oy(&home, &mock, &["frobnicate"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "oy: error: `frobnicate` is not a command; to send it as a prompt, use `oy run frobnicate`\n\
         hint: `oy --help` lists the commands\n"
    );
    // A command name after flags is named as one.
    let run = oy(&home, &mock, &["--mode", "plan", "doctor"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("oy: error: `doctor` is a command, but flags came before it\n"),
        "{}",
        run.stderr
    );
    assert!(mock.requests().is_empty(), "no model request was spent");
}

#[test]
fn one_word_tasks_prompts_and_oy_run_word_are_sent() {
    let home = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![text("Explained."), text("Frobnicated."), text("Why not.")],
    );
    let run = oy(&home, &mock, &["-q", "explain"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Explained.\n");
    let run = oy(&home, &mock, &["run", "-q", "frobnicate"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Frobnicated.\n");
    let run = oy(&home, &mock, &["-q", "why?"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let users: Vec<String> = mock
        .requests()
        .iter()
        .flat_map(mock_model::user_texts)
        .collect();
    assert_eq!(users, ["explain", "frobnicate", "why?"]);
}
