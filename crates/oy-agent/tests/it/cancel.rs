//! Cancellation: the shared token stops a running command and a stalled
//! model, and every call still gets its result.

use std::sync::Arc;
use std::time::{Duration, Instant};

use oy_agent::{AgentBuilder, AgentEvent, Entry, TurnStop};
use oy_tools::{CancelToken, Mode, Policy};

use crate::support::{SilentProvider, Ws, builder, call, calls, scripted, text};

fn cancel_after(token: &CancelToken, delay: Duration) {
    let token = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        token.cancel();
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_during_a_long_command_stops_the_turn_quickly() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[
            call("c1", "bash", r#"{"command":"sleep 30"}"#),
            call("c2", "write", r#"{"path":"after.txt","content":"x"}"#),
        ]),
        text("never sent"),
    ]);
    let token = CancelToken::new();
    let (builder, events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let shared = token.clone();
    let mut agent = builder
        .configure_tools(move |tools| tools.with_cancel(shared))
        .build()
        .unwrap();
    let started = Instant::now();
    cancel_after(&token, Duration::from_millis(200));

    let outcome = agent.turn("sleep a while").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(!ws.exists("after.txt"));
    assert_eq!(provider.requests().len(), 1);
    let transcript = agent.transcript();
    transcript.check().unwrap();
    let results: Vec<&str> = transcript
        .entries()
        .iter()
        .filter_map(|entry| match entry {
            Entry::ToolResult { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["c1", "c2"]);
    // The command itself was stopped, not refused before it began.
    let bash_output = transcript
        .entries()
        .iter()
        .find_map(|entry| match entry {
            Entry::ToolResult {
                call_id, output, ..
            } if call_id == "c1" => Some(output.clone()),
            _ => None,
        })
        .unwrap();
    assert!(bash_output.contains("cancelled"), "{bash_output}");
    assert!(started.elapsed() >= Duration::from_millis(200));
    let finished = events.events().into_iter().last().unwrap();
    assert!(matches!(
        finished,
        AgentEvent::TurnFinished {
            stop: TurnStop::Cancelled,
            ..
        }
    ));
}

#[tokio::test]
async fn cancelling_while_the_model_is_silent_stops_the_turn() {
    let ws = Ws::new();
    let token = CancelToken::new();
    let shared = token.clone();
    let mut agent = AgentBuilder::new(Arc::new(SilentProvider), "test-model")
        .workspace(Arc::clone(&ws.workspace))
        .policy(Policy::new(Mode::Plan, false))
        .configure_tools(move |tools| tools.with_cancel(shared))
        .build()
        .unwrap();
    let started = Instant::now();
    cancel_after(&token, Duration::from_millis(100));

    let outcome = agent.turn("hello?").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(5));
    agent.transcript().check().unwrap();
}

#[tokio::test]
async fn a_token_reset_after_a_cancelled_turn_lets_the_next_turn_run() {
    let ws = Ws::new();
    let provider = scripted([text("back again")]);
    let token = CancelToken::new();
    token.cancel();
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let shared = token.clone();
    let mut agent = builder
        .configure_tools(move |tools| tools.with_cancel(shared))
        .build()
        .unwrap();

    let first = agent.turn("one").await.unwrap();
    assert_eq!(first.stop, TurnStop::Cancelled);
    assert!(provider.requests().is_empty());
    token.reset();
    let second = agent.turn("two").await.unwrap();

    assert_eq!(second.stop, TurnStop::Done);
    assert_eq!(second.text, "back again");
}
