//! The events a frontend draws from (docs/events.md): one
//! `request_started`/`request_finished` pair per model request with that
//! request's tokens, a command's live output forwarded as `tool_output`,
//! and how each call ended (`status`, `exit_code`, `diff`).

use std::sync::Arc;
use std::time::Duration;

use oy_agent::{AgentEvent, CallStatus, OutputStream, TokenUsage, ToolCallFinished};
use oy_provider::{Event, ScriptedReply, StopReason};
use oy_tools::{CancelToken, Mode};

use crate::support::{Ws, answer, builder, call, calls, connect_failure, kinds, scripted, text};

/// The request events, as (kind, request, usage).
fn request_events(events: &[AgentEvent]) -> Vec<(&'static str, u32, Option<TokenUsage>)> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::RequestStarted { request } => Some(("started", *request, None)),
            AgentEvent::RequestFinished { request, usage } => {
                Some(("finished", *request, Some(*usage)))
            }
            _ => None,
        })
        .collect()
}

fn finished_calls(events: &[AgentEvent]) -> Vec<ToolCallFinished> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolCallFinished(finished) => Some(finished.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn each_request_is_announced_and_its_own_usage_reported() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha\n");
    // The second answer reports no usage: its tokens are estimated.
    let unreported = ScriptedReply::Stream(vec![
        Ok(Event::TextDelta {
            text: "Done.".to_owned(),
        }),
        Ok(Event::Finished {
            reason: StopReason::EndTurn,
        }),
    ]);
    let provider = scripted([
        calls(&[call("c1", "read", r#"{"path":"a.txt"}"#)]),
        unreported,
    ]);
    let (builder, events) = builder(provider, &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    let outcome = agent.turn("read a.txt").await.unwrap();
    let events = events.events();
    let requests = request_events(&events);
    let first = requests[1].2.unwrap();
    let second = requests[3].2.unwrap();
    assert_eq!(
        requests
            .iter()
            .map(|(kind, number, _)| (*kind, *number))
            .collect::<Vec<_>>(),
        [
            ("started", 1),
            ("finished", 1),
            ("started", 2),
            ("finished", 2)
        ]
    );
    assert_eq!((first.input_tokens, first.estimated), (100, false));
    assert!(second.estimated && second.input_tokens > 0 && second.output_tokens > 0);
    // The turn's usage is the sum of its requests'.
    assert_eq!(
        outcome.usage.input_tokens,
        first.input_tokens + second.input_tokens
    );
    assert_eq!(
        outcome.usage.output_tokens,
        first.output_tokens + second.output_tokens
    );
    assert!(outcome.usage.estimated);
    // A request is started before anything of its answer, and finished
    // before the calls it asked for run.
    let kinds = kinds(&events);
    let at = |kind: &str| kinds.iter().position(|k| k == kind).unwrap();
    assert!(at("request_started") < at("request_finished"));
    assert!(at("request_finished") < at("tool_call_started"));
}

#[tokio::test(start_paused = true)]
async fn a_retried_request_is_one_request() {
    let ws = Ws::new();
    let provider = scripted([connect_failure(), text("hello")]);
    let (builder, events) = builder(provider, &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    agent.turn("hi").await.unwrap();
    let kinds = kinds(&events.events());
    assert_eq!(
        kinds,
        [
            "session_started",
            "turn_started",
            "request_started",
            "retry",
            "text_delta",
            "text_delta",
            "request_finished",
            "turn_finished"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_request_is_never_finished() {
    let ws = Ws::new();
    let token = CancelToken::new();
    let shared = token.clone();
    let events = Arc::new(oy_agent::CollectedEvents::default());
    let mut agent = oy_agent::AgentBuilder::new(Arc::new(crate::support::SilentProvider), "m")
        .workspace(Arc::clone(&ws.workspace))
        .events(events.clone())
        .configure_tools(move |tools| tools.with_cancel(shared))
        .build()
        .unwrap();
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        canceller.cancel();
    });
    agent.turn("hi").await.unwrap();
    let kinds = kinds(&events.events());
    assert_eq!(
        kinds,
        [
            "session_started",
            "turn_started",
            "request_started",
            "turn_finished"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commands_output_is_forwarded_live_under_its_call_id() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call(
            "c1",
            "bash",
            r#"{"command":"echo one; sleep 0.3; echo two >&2; exit 3"}"#,
        )]),
        text("ran it"),
    ]);
    let (builder, events) = builder(provider, &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();
    agent.turn("run it").await.unwrap();
    let events = events.events();
    let kinds = kinds(&events);
    let started = kinds.iter().position(|k| k == "tool_call_started").unwrap();
    let finished = kinds
        .iter()
        .position(|k| k == "tool_call_finished")
        .unwrap();
    let deltas: Vec<(OutputStream, String)> = events
        .iter()
        .enumerate()
        .filter_map(|(at, event)| match event {
            AgentEvent::ToolOutput(delta) => {
                assert!(started < at && at < finished, "delta outside its call");
                assert_eq!(
                    (delta.call_id.as_str(), delta.tool.as_str()),
                    ("c1", "bash")
                );
                Some((delta.stream, delta.text.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        deltas,
        [
            (OutputStream::Stdout, "one\n".to_owned()),
            (OutputStream::Stderr, "two\n".to_owned())
        ]
    );
    let done = &finished_calls(&events)[0];
    assert_eq!(
        (done.ok, done.status, done.exit_code),
        (true, CallStatus::Ok, Some(3))
    );
    // On the wire: the type, the stream and the text.
    let line = serde_json::to_value(&events[started + 1]).unwrap();
    assert_eq!(line["type"], "tool_output");
    assert_eq!(line["call_id"], "c1");
    assert_eq!(line["stream"], "stdout");
    assert_eq!(line["text"], "one\n");
    assert_eq!(line["skipped_bytes"], 0);
    let line = serde_json::to_value(&events[finished]).unwrap();
    assert_eq!(line["status"], "ok");
    assert_eq!(line["exit_code"], 3);
    assert!(line.get("diff").is_none(), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_applied_without_asking_carries_its_diff() {
    let ws = Ws::new();
    let provider = scripted([
        answer(
            "Writing.",
            &[call(
                "c1",
                "write",
                r#"{"path":"a.txt","content":"hello\n"}"#,
            )],
        ),
        text("written"),
    ]);
    let (builder, events) = builder(provider, &ws, Mode::AcceptEdits);
    let mut agent = builder.build().unwrap();
    agent.turn("write it").await.unwrap();
    let events = events.events();
    let done = &finished_calls(&events)[0];
    assert_eq!(done.status, CallStatus::Ok);
    assert_eq!(
        done.diff.as_deref(),
        Some("--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hello\n")
    );
    assert_eq!(done.exit_code, None);
    let finished = events
        .iter()
        .find(|event| matches!(event, AgentEvent::ToolCallFinished(_)))
        .unwrap();
    let line = serde_json::to_value(finished).unwrap();
    assert_eq!(
        line["diff"],
        "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hello\n"
    );
    assert!(line.get("exit_code").is_none(), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_killed_by_ctrl_c_is_reported_cancelled() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call("c1", "bash", r#"{"command":"sleep 30"}"#)]),
        text("never sent"),
    ]);
    let token = CancelToken::new();
    let shared = token.clone();
    let (builder, events) = builder(provider, &ws, Mode::AutoApprove);
    let mut agent = builder
        .configure_tools(move |tools| tools.with_cancel(shared))
        .build()
        .unwrap();
    let canceller = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        canceller.cancel();
    });
    agent.turn("sleep").await.unwrap();
    let done = &finished_calls(&events.events())[0];
    assert_eq!(
        (done.status, done.exit_code),
        (CallStatus::Cancelled, Some(130))
    );
}
