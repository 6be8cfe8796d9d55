//! Allow for this session through `authorize`: an "always" answer
//! remembers exactly the scope the request offered, a remembered scope
//! approves a covered call without asking (and says so in its event), and
//! it never covers a smuggled command, a change raised to a command
//! approval, or a call the mode denies; cleared scopes ask again.

use oy_tools::{
    Answer, ApprovalStage, ChildEnv, Effect, Mode, Policy, SessionGrant, SessionScope, ToolEvent,
};
use serde_json::json;

use crate::support::{Env, assert_tool_error};

fn echo() -> SessionScope {
    SessionScope::CommandPrefix {
        words: vec!["echo".to_owned()],
    }
}

fn asked(env: &Env) -> usize {
    env.events.requests.lock().unwrap().len()
}

fn answer(env: &Env, answer: Answer) {
    *env.events.answer.lock().unwrap() = Some(answer);
}

/// The approval events of the call `call-N`.
fn approvals(env: &Env, call: &str) -> Vec<(ApprovalStage, Option<SessionGrant>)> {
    env.events
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|event| match event {
            ToolEvent::Approval(approval) if approval.call_id == call => {
                Some((approval.stage, approval.session.clone()))
            }
            _ => None,
        })
        .collect()
}

/// An interactive default-mode workspace where `echo` was allowed for the
/// session by answering "always" to `echo one`.
fn echo_allowed() -> Env {
    let env = Env::interactive(Mode::Default, Answer::ApproveForSession);
    let out = env.call("bash", json!({"command": "echo one"}));
    assert!(out.text.contains("one"), "{}", out.text);
    assert_eq!(asked(&env), 1);
    assert_eq!(env.ctx.session_allows(), [echo()]);
    assert_eq!(
        approvals(&env, "call-1"),
        [
            (ApprovalStage::Asked, None),
            (
                ApprovalStage::Given,
                Some(SessionGrant {
                    scope: echo(),
                    added: true
                })
            ),
        ]
    );
    // From here on, any question is answered no.
    answer(&env, Answer::Deny);
    env
}

#[test]
fn a_remembered_prefix_runs_a_covered_command_without_asking() {
    let env = echo_allowed();
    let out = env.call("bash", json!({"command": "echo   two 'and three'"}));
    assert_eq!(out.text, "exit: 0\n[stdout]\ntwo and three\n");
    assert_eq!(asked(&env), 1, "no second question");
    assert_eq!(
        approvals(&env, "call-2"),
        [(
            ApprovalStage::Given,
            Some(SessionGrant {
                scope: echo(),
                added: false
            })
        )]
    );
    // The same words through `exec` (no shell) are covered too.
    let out = env.call("exec", json!({"cmd": "echo", "args": ["four"]}));
    assert!(out.ok && out.text.contains("four"), "{}", out.text);
    assert_eq!(asked(&env), 1);
    // The side effect is still recorded in the ledger.
    assert_eq!(env.ctx.ledger().entries().len(), 3);
}

#[test]
fn a_smuggled_command_after_a_remembered_prefix_still_asks() {
    let env = echo_allowed();
    for (n, command) in [
        "echo x; touch pwned",
        "echo x && touch pwned",
        "echo x | tee pwned",
        "echo x > pwned",
        "echo $(touch pwned)",
        "echo `touch pwned`",
        "echo x\ntouch pwned",
        "X=1 echo x; touch pwned",
        "echoo x",
    ]
    .into_iter()
    .enumerate()
    {
        let out = env.call("bash", json!({"command": command}));
        assert_tool_error(&out, "the user declined");
        assert_eq!(asked(&env), n + 2, "{command:?} was not asked about");
        assert!(!env.exists("pwned"), "{command:?}");
    }
    // `exec` with variables or stdin: not only its words run.
    let out = env.call(
        "exec",
        json!({"cmd": "echo", "args": ["x"], "env": {"LD_PRELOAD": "x.so"}}),
    );
    assert_tool_error(&out, "the user declined");
    let out = env.call("exec", json!({"cmd": "echo", "stdin": "x"}));
    assert_tool_error(&out, "the user declined");
    assert_eq!(asked(&env), 12);
}

#[test]
fn a_command_that_is_not_one_simple_command_is_offered_no_scope() {
    let env = Env::interactive(Mode::Default, Answer::ApproveForSession);
    let out = env.call("bash", json!({"command": "echo a | cat"}));
    assert!(out.ok, "{}", out.text);
    let requests = env.events.requests.lock().unwrap().clone();
    assert_eq!(requests[0].session_scope, None);
    // "Always" without a scope is a plain yes: nothing is remembered.
    assert!(env.ctx.session_allows().is_empty());
    assert_eq!(
        approvals(&env, "call-1"),
        [(ApprovalStage::Asked, None), (ApprovalStage::Given, None)]
    );
    let out = env.call("bash", json!({"command": "rm -f nothing"}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.events.requests.lock().unwrap()[1].session_scope, None);
    assert!(env.ctx.session_allows().is_empty());
}

#[test]
fn a_tool_scope_covers_ordinary_writes_but_never_a_raised_one() {
    let env = Env::interactive(Mode::Default, Answer::ApproveForSession);
    let path = format!("{}:/usr/bin:/bin", env.root.join("bin").display());
    let env = env
        .map_ctx(|ctx| ctx.with_child_env(ChildEnv::filtered([("PATH".into(), path.into())], &[])));
    let out = env.call("write", json!({"path": "a.txt", "content": "a\n"}));
    assert!(out.ok, "{}", out.text);
    let write = SessionScope::Tool {
        tool: "write".to_owned(),
    };
    assert_eq!(
        env.events.requests.lock().unwrap()[0].session_scope,
        Some(write.clone())
    );
    assert_eq!(env.ctx.session_allows(), [write]);
    answer(&env, Answer::Deny);

    let out = env.call("write", json!({"path": "src/b.txt", "content": "b\n"}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("src/b.txt"), "b\n");
    assert_eq!(asked(&env), 1, "an ordinary write is covered");

    // A file on the command PATH is raised to the command approval: asked,
    // with no scope offered.
    let out = env.call(
        "write",
        json!({"path": "bin/git", "content": "#!/bin/sh\n"}),
    );
    assert_tool_error(&out, "the user declined");
    assert!(!env.exists("bin/git"));
    let requests = env.events.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].effect, Effect::Process);
    assert_eq!(requests[1].session_scope, None);

    // Another tool is not covered, and `remove` is never offered a scope.
    assert!(env.call("read", json!({"path": "a.txt"})).ok);
    let out = env.call("replace", json!({"path": "a.txt", "old": "a", "new": "c"}));
    assert_tool_error(&out, "the user declined");
    let out = env.call("remove", json!({"path": "a.txt"}));
    assert_tool_error(&out, "the user declined");
    let requests = env.events.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 4);
    assert!(requests[2].session_scope.is_some());
    assert_eq!(requests[3].session_scope, None);
    assert_eq!(env.read("a.txt"), "a\n");
}

#[test]
fn a_mode_that_denies_still_denies_a_remembered_scope() {
    let env = echo_allowed();
    env.ctx.set_policy(Policy::new(Mode::Plan, true));
    let out = env.call("bash", json!({"command": "echo two"}));
    assert!(!out.ok, "{}", out.text);
    assert_eq!(asked(&env), 1);
    assert!(
        approvals(&env, "call-2")
            .iter()
            .all(|(stage, _)| *stage == ApprovalStage::Denied)
    );
    env.ctx.set_policy(Policy::new(Mode::Default, true));
    let out = env.call("bash", json!({"command": "echo three"}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(asked(&env), 1);
}

#[test]
fn cleared_scopes_ask_again() {
    let env = echo_allowed();
    env.ctx.clear_session_allows();
    assert!(env.ctx.session_allows().is_empty());
    let out = env.call("bash", json!({"command": "echo two"}));
    assert_tool_error(&out, "the user declined");
    assert_eq!(asked(&env), 2);
}
