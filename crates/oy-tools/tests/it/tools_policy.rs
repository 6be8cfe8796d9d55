//! The approval policy matrix, tool offering per mode, approvals, the
//! ledger and events — through the registry, as the model would call.

use oy_tools::{
    Answer, ApprovalStage, Decision, Effect, Ledger, Mode, Network, Policy, Preview, ToolEvent,
};
use serde_json::json;

use crate::support::{Env, assert_tool_error};

#[test]
fn policy_matrix_matches_the_design_table() {
    use Decision::{Allow, Ask, Deny};
    // (mode, read, write, process, network default)
    let table = [
        (Mode::Default, Allow, Ask, Ask, Ask),
        (Mode::Plan, Allow, Deny, Deny, Deny),
        (Mode::AcceptEdits, Allow, Allow, Ask, Ask),
        (Mode::AutoApprove, Allow, Allow, Allow, Allow),
    ];
    for (mode, read, write, process, network) in table {
        for interactive in [true, false] {
            let policy = Policy::new(mode, interactive);
            assert_eq!(policy.decide(Effect::Read), read, "{mode} read");
            assert_eq!(policy.decide(Effect::WorkspaceWrite), write, "{mode} write");
            assert_eq!(policy.decide(Effect::Process), process, "{mode} process");
            assert_eq!(policy.decide(Effect::Network), network, "{mode} network");
            let ask = if interactive { Allow } else { Deny };
            assert_eq!(policy.decide(Effect::AskUser), ask, "{mode} ask tool");
        }
    }
}

#[test]
fn explicit_network_setting_overrides_the_mode_default() {
    for mode in Mode::ALL {
        for network in [Network::Allow, Network::Ask, Network::Deny] {
            let policy = Policy {
                network,
                ..Policy::new(mode, true)
            };
            let expected = match network {
                Network::Allow => Decision::Allow,
                Network::Ask => Decision::Ask,
                Network::Deny => Decision::Deny,
            };
            assert_eq!(policy.decide(Effect::Network), expected);
        }
    }
}

#[test]
fn modes_parse_from_names_and_aliases() {
    for (text, mode) in [
        ("default", Mode::Default),
        ("ask", Mode::Default),
        ("plan", Mode::Plan),
        ("read", Mode::Plan),
        ("accept-edits", Mode::AcceptEdits),
        ("edit", Mode::AcceptEdits),
        ("auto-approve", Mode::AutoApprove),
        ("auto", Mode::AutoApprove),
    ] {
        assert_eq!(text.parse::<Mode>().unwrap(), mode);
    }
    let error = "yolo".parse::<Mode>().unwrap_err().to_string();
    assert!(error.contains("accept-edits|edit"), "{error}");
}

fn offered(env: &Env) -> Vec<String> {
    env.registry
        .specs(&env.ctx)
        .into_iter()
        .map(|spec| spec.name.into_owned())
        .collect()
}

#[test]
fn plan_mode_offers_only_reading_tools() {
    let env = Env::new(Mode::Plan);
    let names = offered(&env);
    for name in ["write", "replace", "move", "remove"] {
        assert!(
            !names.iter().any(|offered| offered == name),
            "{name} offered in plan mode: {names:?}"
        );
    }
    for name in ["list", "read", "sloc", "todo"] {
        assert!(
            names.iter().any(|offered| offered == name),
            "{name} missing: {names:?}"
        );
    }
    assert!(
        !names.iter().any(|offered| offered == "ask"),
        "ask needs an interactive user"
    );
}

#[test]
fn plan_mode_refuses_a_write_call_and_names_what_is_offered() {
    let env = Env::new(Mode::Plan);
    let out = env.call("write", json!({"path": "a.txt", "content": "x"}));
    assert_tool_error(&out, "not available");
    assert!(out.text.contains("read"), "{}", out.text);
    assert!(!env.exists("a.txt"));
    assert!(env.ctx.ledger().entries().is_empty());
}

#[test]
fn default_mode_without_a_person_denies_writes_with_the_flag_to_use() {
    let env = Env::new(Mode::Default);
    let out = env.call("write", json!({"path": "a.txt", "content": "x"}));
    assert_tool_error(&out, "no one to ask");
    assert!(
        out.text.contains("accept-edits (or auto-approve) mode"),
        "{}",
        out.text
    );
    assert!(!env.exists("a.txt"));
    assert!(!env.ctx.ledger().side_effect_attempted());
}

#[test]
fn interactive_approval_shows_the_exact_diff_and_a_denial_changes_nothing() {
    let env = Env::interactive(Mode::Default, Answer::Deny);
    env.file("a.txt", "old line\n");
    let out = env.call("write", json!({"path": "a.txt", "content": "new line\n"}));
    assert_tool_error(&out, "the user declined");
    assert_eq!(env.read("a.txt"), "old line\n");
    let requests = env.events.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    let Preview::Diff(diff) = &requests[0].preview else {
        panic!("expected a diff preview, got {:?}", requests[0].preview);
    };
    assert!(
        diff.contains("--- a/a.txt") && diff.contains("+++ b/a.txt"),
        "{diff}"
    );
    assert!(
        diff.contains("-old line") && diff.contains("+new line"),
        "{diff}"
    );
    let stages: Vec<ApprovalStage> = env
        .events
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|event| match event {
            ToolEvent::Approval(approval) => Some(approval.stage),
            _ => None,
        })
        .collect();
    assert_eq!(stages, [ApprovalStage::Asked, ApprovalStage::Denied]);
}

#[test]
fn interactive_approval_given_writes_and_records_the_attempt() {
    let env = Env::interactive(Mode::Default, Answer::Approve);
    env.ctx.ledger().begin_turn();
    let out = env.call("write", json!({"path": "a.txt", "content": "hello\n"}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("a.txt"), "hello\n");
    assert!(env.ctx.ledger().side_effect_attempted());
    let entries = env.ctx.ledger().entries();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].tool, "write");
    assert_eq!(entries[0].succeeded, Some(true));
    assert_eq!(entries[0].args_digest.len(), 16);
}

#[test]
fn ledger_records_failed_attempts_too_and_resets_per_turn() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("dir/inner.txt", "x");
    env.ctx.ledger().begin_turn();
    assert!(!env.ctx.ledger().side_effect_attempted());
    // Reads never count.
    assert!(env.call("read", json!({"path": "dir/inner.txt"})).ok);
    assert!(!env.ctx.ledger().side_effect_attempted());
    // A write that is authorized but then fails (a file is in the way of
    // the parent directory) counts.
    let out = env.call("write", json!({"path": "dir/inner.txt/x", "content": "x"}));
    assert!(!out.ok);
    assert!(env.ctx.ledger().side_effect_attempted());
    assert_eq!(env.ctx.ledger().entries()[0].succeeded, Some(false));
    env.ctx.ledger().begin_turn();
    assert!(!env.ctx.ledger().side_effect_attempted());
}

#[test]
fn ledger_jsonl_sink_writes_attempt_and_outcome_lines() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Shared::default();
    let ledger = Ledger::with_sink(Box::new(oy_tools::JsonlSink::new(buffer.clone())));
    ledger.begin_turn();
    ledger.record_attempt("call_7", "write", &json!({"path": "a"}));
    ledger.record_outcome("call_7", true);
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["tool"], "write");
    assert_eq!(lines[0]["call_id"], "call_7");
    assert_eq!(lines[1]["call_id"], "call_7");
    assert_eq!(lines[0]["succeeded"], serde_json::Value::Null);
    assert_eq!(lines[1]["succeeded"], true);
    assert!(lines[0]["attempted_at"].as_u64().unwrap() > 0);
}

#[test]
fn every_call_emits_started_and_finished_events() {
    let env = Env::new(Mode::Plan);
    env.file("a.txt", "x\n");
    env.call("read", json!({"path": "a.txt"}));
    env.call("read", json!({"path": "missing.txt"}));
    let events = env.events.events.lock().unwrap();
    let finished: Vec<(bool, usize)> = events
        .iter()
        .filter_map(|event| match event {
            ToolEvent::ToolCallFinished(finished) => Some((finished.ok, finished.output_bytes)),
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 4);
    assert!(
        matches!(&events[0], ToolEvent::ToolCallStarted(started) if started.call_id == "call-1")
    );
    assert!(
        matches!(&events[3], ToolEvent::ToolCallFinished(finished) if finished.call_id == "call-2")
    );
    assert_eq!(finished.len(), 2);
    assert!(finished[0].0 && !finished[1].0);
    assert!(finished.iter().all(|(_, bytes)| *bytes > 0));
}

#[test]
fn todo_persist_is_a_write_and_is_denied_in_plan_mode() {
    let env = Env::new(Mode::Plan);
    let out = env.call(
        "todo",
        json!({"items": [{"text": "step one", "status": "pending"}], "persist": true}),
    );
    assert_tool_error(&out, "denied");
    assert!(!env.exists("TODO.md"));
    // The in-memory plan itself is always available.
    let out = env.call("todo", json!({}));
    assert!(out.ok, "{}", out.text);
    assert!(out.text.contains("step one"), "{}", out.text);
}

#[test]
fn todo_persist_writes_todo_md_when_edits_are_allowed() {
    let env = Env::new(Mode::AcceptEdits);
    env.ctx.ledger().begin_turn();
    let out = env.call(
        "todo",
        json!({"items": [{"text": "a", "status": "done"}, {"text": "b", "status": "in_progress"}], "persist": true}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("TODO.md"), "# TODO\n\n- [x] 1. a\n- [~] 2. b\n");
    assert!(env.ctx.ledger().side_effect_attempted());
}

#[test]
fn unknown_tool_lists_the_offered_tools() {
    let env = Env::new(Mode::Plan);
    let out = env.call("rm_rf", json!({}));
    assert_tool_error(&out, "unknown tool `rm_rf`");
    assert!(out.text.contains("list, read"), "{}", out.text);
}

#[test]
fn bad_arguments_name_the_field_type_and_an_example() {
    let env = Env::new(Mode::Plan);
    let out = env.call("read", json!({"path": 3}));
    assert_tool_error(&out, "field `path`");
    assert!(out.text.contains("expected a string"), "{}", out.text);
    assert!(
        out.text.contains(r#"{"path":"src/main.rs""#),
        "{}",
        out.text
    );
    let out = env.call("read", json!({}));
    assert_tool_error(&out, "missing required field `path`");
    let out = env.call("read", json!({"path": "a", "bogus": 1}));
    assert_tool_error(&out, "unknown field `bogus`");
    let out = env.call("read", json!(["a"]));
    assert_tool_error(&out, "expected a JSON object");
    let raw = env
        .registry
        .invoke_raw(&env.ctx, "call-1", "read", "{not json");
    assert!(
        raw.text
            .starts_with("TOOL_ERROR: arguments for `read` are not valid JSON"),
        "{}",
        raw.text
    );
}
