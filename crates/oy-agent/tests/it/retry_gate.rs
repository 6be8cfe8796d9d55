//! The retry gate inside the loop: transient failures are retried until a
//! side effect was attempted in the turn; after that the prompt is never
//! replayed. Paused time makes the backoff instant.

use oy_agent::{AgentError, AgentEvent, TurnStop};
use oy_provider::{ErrorKind, Event, ProviderError, ScriptedReply};
use oy_tools::Mode;

use crate::support::{Ws, builder, call, calls, connect_failure, scripted, text};

#[tokio::test(start_paused = true)]
async fn a_transient_failure_after_a_write_is_not_retried() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call("c1", "write", r#"{"path":"a.txt","content":"x"}"#)]),
        connect_failure(),
        text("a retry would have seen this"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();

    let error = agent.turn("write a.txt").await.unwrap_err();

    let AgentError::Provider(error) = &error else {
        panic!("expected a provider error, got {error:?}");
    };
    assert_eq!(error.kind(), ErrorKind::Connect);
    assert!(error.to_string().contains("not retried"), "{error}");
    assert_eq!(provider.requests().len(), 2);
    assert_eq!(ws.read("a.txt"), "x");
    agent.transcript().check().unwrap();
    let events = events.events();
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, AgentEvent::Retry { .. }))
    );
    assert!(
        events
            .iter()
            .any(|event| matches!(event, AgentEvent::Error { .. }))
    );
    assert!(matches!(
        events.last().unwrap(),
        AgentEvent::TurnFinished {
            stop: TurnStop::ProviderError,
            requests: 2,
            ..
        }
    ));
}

#[tokio::test(start_paused = true)]
async fn a_transient_failure_before_any_side_effect_is_retried() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha\n");
    let provider = scripted([
        // A read is not a side effect.
        calls(&[call("c1", "read", r#"{"path":"a.txt"}"#)]),
        connect_failure(),
        connect_failure(),
        text("alpha"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("read a.txt").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done);
    assert_eq!(outcome.text, "alpha");
    // Two loop requests, one of them sent three times.
    assert_eq!(outcome.requests, 2);
    let requests = provider.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests[1], requests[2]);
    assert_eq!(requests[2], requests[3]);
    let attempts: Vec<u32> = events
        .events()
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::Retry { attempt, error, .. } => {
                assert!(error.contains("connection refused"), "{error}");
                Some(attempt)
            }
            _ => None,
        })
        .collect();
    assert_eq!(attempts, [1, 2]);
}

#[tokio::test(start_paused = true)]
async fn a_side_effect_in_an_earlier_turn_does_not_block_retries_in_the_next() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call("c1", "write", r#"{"path":"a.txt","content":"x"}"#)]),
        text("written"),
        connect_failure(),
        text("second turn answered"),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();

    assert_eq!(
        agent.turn("write a.txt").await.unwrap().stop,
        TurnStop::Done
    );
    let outcome = agent.turn("and now?").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done);
    assert_eq!(outcome.text, "second turn answered");
    assert_eq!(provider.requests().len(), 4);
}

#[tokio::test(start_paused = true)]
async fn retries_stop_at_the_policys_attempt_bound() {
    let ws = Ws::new();
    let provider = scripted((0..6).map(|_| connect_failure()));
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let error = agent.turn("hello").await.unwrap_err();

    assert!(
        error.to_string().contains("gave up after 4 attempts"),
        "{error}"
    );
    assert_eq!(provider.requests().len(), 4);
    agent.transcript().check().unwrap();
}

/// A stream that breaks after `events`, with a transient cut.
fn cut_after(events: Vec<Event>) -> ScriptedReply {
    let mut items: Vec<Result<Event, ProviderError>> = events.into_iter().map(Ok).collect();
    items.push(Err(ProviderError::new(
        ErrorKind::StreamCut,
        "the connection was reset",
    )));
    ScriptedReply::Stream(items)
}

fn text_deltas(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::TextDelta { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn retry_attempts(events: &[AgentEvent]) -> Vec<u32> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Retry { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_stream_cut_after_text_was_shown_is_not_retried_and_says_why() {
    let ws = Ws::new();
    let provider = scripted([
        cut_after(vec![Event::TextDelta {
            text: "The answer is".to_owned(),
        }]),
        text("The answer is 42"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let error = agent.turn("what is it?").await.unwrap_err();

    assert!(
        error
            .to_string()
            .contains("not retried: part of the answer was already shown"),
        "{error}"
    );
    assert_eq!(provider.requests().len(), 1);
    let events = events.events();
    // Shown once, never repeated; no retry announced.
    assert_eq!(text_deltas(&events), ["The answer is"]);
    assert!(retry_attempts(&events).is_empty());
    agent.transcript().check().unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_stream_cut_before_any_text_is_retried_in_one_attempt_sequence() {
    let ws = Ws::new();
    let provider = scripted([
        // Attempt 1 fails before the first event, attempt 2 is cut while
        // a tool call's arguments stream (nothing shown), attempt 3 works.
        connect_failure(),
        cut_after(vec![
            Event::ToolCallStarted {
                index: 0,
                id: "c1".to_owned(),
                name: "read".to_owned(),
            },
            Event::ToolCallArgumentsDelta {
                index: 0,
                delta: r#"{"pa"#.to_owned(),
            },
        ]),
        text("done"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("go").await.unwrap();

    assert_eq!(outcome.text, "done");
    assert_eq!(provider.requests().len(), 3);
    let events = events.events();
    assert_eq!(retry_attempts(&events), [1, 2]);
    assert_eq!(text_deltas(&events).concat(), "done");
}

#[tokio::test(start_paused = true)]
async fn cut_streams_and_opening_failures_share_one_attempt_bound() {
    let ws = Ws::new();
    let provider = scripted([
        connect_failure(),
        cut_after(Vec::new()),
        connect_failure(),
        cut_after(vec![Event::ToolCallStarted {
            index: 0,
            id: "c1".to_owned(),
            name: "read".to_owned(),
        }]),
        text("a fifth attempt would have seen this"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let error = agent.turn("go").await.unwrap_err();

    assert!(
        error.to_string().contains("gave up after 4 attempts"),
        "{error}"
    );
    assert_eq!(provider.requests().len(), 4);
    assert_eq!(retry_attempts(&events.events()), [1, 2, 3]);
}

#[tokio::test(start_paused = true)]
async fn a_cut_after_a_side_effect_says_why_it_was_not_retried() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call("c1", "write", r#"{"path":"a.txt","content":"x"}"#)]),
        cut_after(Vec::new()),
        text("a retry would have seen this"),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();

    let error = agent.turn("write").await.unwrap_err();

    assert!(
        error
            .to_string()
            .contains("not retried: a file change or command was already attempted"),
        "{error}"
    );
    assert_eq!(provider.requests().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_silent_server_is_retried_once_then_given_up_on() {
    let ws = Ws::new();
    let idle = || {
        ScriptedReply::Fail(ProviderError::new(
            ErrorKind::IdleTimeout,
            "silent for 60 s",
        ))
    };
    let provider = scripted([idle(), idle(), text("never reached")]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let error = agent.turn("go").await.unwrap_err();

    assert!(
        error
            .to_string()
            .contains("gave up: the provider went silent 2 times in a row"),
        "{error}"
    );
    assert_eq!(provider.requests().len(), 2);
    assert_eq!(retry_attempts(&events.events()), [1]);
}
