//! The fail-closed guards: repeated failures, tool-only churn, the request
//! cap, and approvals refused with or without a person to ask.

use oy_agent::{AgentEvent, AgentOptions, ApprovalStage, Entry, TurnStop};
use oy_tools::{Answer, Mode, Policy, Preview};

use crate::support::{
    FixedApprover, Ws, answer, assert_paired, builder, call, calls, result_for, scripted, text,
};

#[tokio::test]
async fn the_same_failing_call_three_times_stops_the_turn() {
    let ws = Ws::new();
    // The same call, spelled three ways: key order and spacing do not
    // make it a different call.
    let provider = scripted([
        calls(&[call("c1", "read", r#"{"path":"missing.txt","limit":5}"#)]),
        calls(&[call(
            "c2",
            "read",
            r#"{ "limit": 5, "path": "missing.txt" }"#,
        )]),
        calls(&[call("c3", "read", r#"{"path":"missing.txt","limit":5}"#)]),
        text("never sent"),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("read missing.txt").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::RepeatedFailure);
    let reason = outcome.reason.unwrap();
    assert!(
        reason.contains("`read`") && reason.contains('3'),
        "{reason}"
    );
    assert_eq!(outcome.requests, 3);
    assert_eq!(provider.requests().len(), 3);
    agent.transcript().check().unwrap();
}

#[tokio::test]
async fn a_success_between_failures_resets_the_repeat_count() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha\n");
    let missing = r#"{"path":"missing.txt"}"#;
    let provider = scripted([
        calls(&[call("c1", "read", missing)]),
        calls(&[call("c2", "read", missing)]),
        calls(&[call("c3", "read", r#"{"path":"a.txt"}"#)]),
        calls(&[call("c4", "read", missing)]),
        calls(&[call("c5", "read", missing)]),
        text("gave up on missing.txt"),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("read things").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done, "{:?}", outcome.reason);
    assert_eq!(provider.requests().len(), 6);
}

#[tokio::test]
async fn tool_only_answers_without_progress_past_the_churn_limit_stop_the_turn() {
    let ws = Ws::new();
    let mut options = AgentOptions::default();
    options.churn_limit = 3;
    // The first call is new (progress); the same call again is not.
    let provider = scripted([
        calls(&[call("c1", "list", r#"{"depth":1}"#)]),
        calls(&[call("c2", "list", r#"{"depth": 1}"#)]),
        calls(&[call("c3", "list", r#"{"depth":1}"#)]),
        calls(&[call("c4", "list", r#"{ "depth":1 }"#)]),
        text("never sent"),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.options(options).build().unwrap();

    let outcome = agent.turn("look around").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::ToolChurn);
    assert!(outcome.reason.unwrap().contains("3 tool-only answers"));
    assert_eq!(provider.requests().len(), 4);
    agent.transcript().check().unwrap();
}

#[tokio::test]
async fn new_successful_calls_are_progress_and_do_not_trip_the_churn_guard() {
    let ws = Ws::new();
    let mut options = AgentOptions::default();
    options.churn_limit = 2;
    let provider = scripted([
        calls(&[call("c1", "list", r#"{"depth":1}"#)]),
        calls(&[call("c2", "list", r#"{"depth":2}"#)]),
        calls(&[call("c3", "list", r#"{"depth":3}"#)]),
        calls(&[call("c4", "sloc", r#"{}"#)]),
        text("done"),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.options(options).build().unwrap();

    let outcome = agent.turn("look around").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done, "{:?}", outcome.reason);
    assert_eq!(provider.requests().len(), 5);
}

#[tokio::test]
async fn an_answer_with_text_resets_the_churn_count() {
    let ws = Ws::new();
    let mut options = AgentOptions::default();
    options.churn_limit = 2;
    let provider = scripted([
        calls(&[call("c1", "list", r#"{"depth":1}"#)]),
        answer("Found the layout.", &[call("c2", "list", r#"{"depth":2}"#)]),
        calls(&[call("c3", "list", r#"{"depth":3}"#)]),
        text("done"),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.options(options).build().unwrap();

    let outcome = agent.turn("look around").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done, "{:?}", outcome.reason);
    assert_eq!(provider.requests().len(), 4);
}

#[tokio::test]
async fn max_turns_caps_the_model_requests_of_a_turn() {
    let ws = Ws::new();
    let mut options = AgentOptions::default();
    options.max_turns = 2;
    let provider = scripted([
        answer("step 1", &[call("c1", "list", r#"{"depth":1}"#)]),
        answer("step 2", &[call("c2", "list", r#"{"depth":2}"#)]),
        text("never sent"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.options(options).build().unwrap();

    let outcome = agent.turn("look around").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::MaxTurns);
    assert!(outcome.reason.as_deref().unwrap().contains("--max-turns 2"));
    assert_eq!(outcome.requests, 2);
    assert_eq!(provider.requests().len(), 2);
    // Both answers' calls ran and were answered.
    let results = agent
        .transcript()
        .entries()
        .iter()
        .filter(|entry| matches!(entry, Entry::ToolResult { .. }))
        .count();
    assert_eq!(results, 2);
    let finished = events.events().into_iter().last().unwrap();
    assert!(matches!(
        finished,
        AgentEvent::TurnFinished {
            stop: TurnStop::MaxTurns,
            requests: 2,
            ..
        }
    ));
}

#[tokio::test]
async fn a_write_that_asks_with_no_one_to_ask_stops_the_turn_and_answers_the_rest() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[
            call("c1", "write", r#"{"path":"a.txt","content":"x"}"#),
            call("c2", "list", r#"{"path":"."}"#),
            call("c3", "write", r#"{"path":"b.txt","content":"y"}"#),
        ]),
        text("never sent"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Default);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("write a.txt").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::ApprovalDenied);
    assert!(outcome.reason.unwrap().contains("`write`"));
    assert!(!ws.exists("a.txt"));
    assert!(!ws.exists("b.txt"));
    assert_eq!(provider.requests().len(), 1);
    let transcript = agent.transcript();
    transcript.check().unwrap();
    let results: Vec<(&str, &str)> = transcript
        .entries()
        .iter()
        .filter_map(|entry| match entry {
            Entry::ToolResult {
                call_id, output, ..
            } => Some((call_id.as_str(), output.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 3);
    assert!(results[0].1.starts_with("TOOL_ERROR:"), "{}", results[0].1);
    for (_, output) in &results[1..] {
        assert!(output.contains("not run"), "{output}");
    }
    // The later calls never started.
    let started: Vec<String> = events
        .events()
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::ToolCallStarted(started) => Some(started.call_id),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["c1"]);
    assert!(events.events().iter().any(|event| matches!(
        event,
        AgentEvent::Approval(approval)
            if approval.call_id == "c1" && approval.stage == ApprovalStage::Denied
    )));
}

#[tokio::test]
async fn a_write_the_approver_denies_stops_the_turn() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call(
            "c1",
            "write",
            r#"{"path":"a.txt","content":"hello\n"}"#,
        )]),
        text("never sent"),
    ]);
    let approver = FixedApprover::new(Answer::Deny);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Default);
    let mut agent = builder
        .policy(Policy::new(Mode::Default, true))
        .approver(approver.clone())
        .build()
        .unwrap();

    let outcome = agent.turn("write a.txt").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::ApprovalDenied);
    assert!(!ws.exists("a.txt"));
    let asked = approver.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool, "write");
    match &asked[0].preview {
        Preview::Diff(diff) => assert!(diff.contains("+hello"), "{diff}"),
        other => panic!("expected a diff preview, got {other:?}"),
    }
    let stages: Vec<ApprovalStage> = events
        .events()
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::Approval(approval) => {
                assert_eq!(approval.call_id, "c1");
                Some(approval.stage)
            }
            _ => None,
        })
        .collect();
    assert_eq!(stages, [ApprovalStage::Asked, ApprovalStage::Denied]);
    assert_eq!(provider.requests().len(), 1);
    agent.transcript().check().unwrap();
}

#[tokio::test]
async fn a_write_the_approver_allows_happens_and_the_loop_goes_on() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call(
            "c1",
            "write",
            r#"{"path":"a.txt","content":"hello\n"}"#,
        )]),
        text("wrote it"),
    ]);
    let approver = FixedApprover::new(Answer::Approve);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Default);
    let mut agent = builder
        .policy(Policy::new(Mode::Default, true))
        .approver(approver)
        .build()
        .unwrap();

    let outcome = agent.turn("write a.txt").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done);
    assert_eq!(ws.read("a.txt"), "hello\n");
    let (output, is_error) = result_for(&provider.requests()[1], "c1");
    assert!(!is_error, "{output}");
    assert_paired(&provider.requests()[1]);
    let stages: Vec<ApprovalStage> = events
        .events()
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::Approval(approval) => Some(approval.stage),
            _ => None,
        })
        .collect();
    assert_eq!(stages, [ApprovalStage::Asked, ApprovalStage::Given]);
}

#[tokio::test]
async fn plan_mode_offers_no_write_tools_and_refuses_a_write_anyway_called() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call("c1", "write", r#"{"path":"a.txt","content":"x"}"#)]),
        text("I cannot write in plan mode."),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("write a.txt").await.unwrap();

    // Not offered means a tool error for the model, not an approval stop.
    assert_eq!(outcome.stop, TurnStop::Done);
    assert!(!ws.exists("a.txt"));
    let requests = provider.requests();
    let offered: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    for denied in ["write", "replace", "patch", "bash", "exec"] {
        assert!(!offered.contains(&denied), "{denied} offered in plan mode");
    }
    let (output, is_error) = result_for(&requests[1], "c1");
    assert!(is_error && output.starts_with("TOOL_ERROR:"), "{output}");
}

#[tokio::test]
async fn an_ask_turn_offers_read_tools_only_and_restores_the_mode() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call("c1", "write", r#"{"path":"a.txt","content":"x"}"#)]),
        text("Only reading in /ask."),
        text("back to work"),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();

    let outcome = agent.ask("what would you change?").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done);
    assert!(!ws.exists("a.txt"));
    assert_eq!(agent.policy().mode, Mode::AutoApprove);
    agent.turn("go on").await.unwrap();
    let requests = provider.requests();
    let offered = |index: usize| -> Vec<String> {
        requests[index]
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect()
    };
    assert!(!offered(0).contains(&"write".to_owned()));
    assert!(!offered(0).contains(&"bash".to_owned()));
    assert!(offered(2).contains(&"write".to_owned()));
    assert!(
        requests[0]
            .instructions
            .as_deref()
            .unwrap()
            .contains("plan (read-only)")
    );
}
