//! Compaction inside the tool loop: a small window and big tool outputs
//! make the agent shrink old outputs and summarise older entries — by the
//! model, or by a digest when the summary request fails.

use std::sync::Arc;

use oy_agent::{Agent, AgentEvent, AgentOptions, CollectedEvents, Entry, TurnStop};
use oy_provider::{Message, ScriptedReply};
use oy_tools::{Mode, Registry};

use crate::support::{
    RoutingProvider, Ws, answer, assert_paired, builder, call, is_summary_request, message_bytes,
    text,
};

/// 150 lines of 40 bytes: each read of it is about 7 KB of output.
pub fn big_file() -> String {
    (1..=150)
        .map(|n| format!("line {n:04} of the big file, padded....\n"))
        .collect()
}

/// Answers that read `big.txt` `reads` times (distinct arguments, a word
/// of text each, so no guard trips), then finish.
pub fn reading_script(reads: usize) -> Vec<ScriptedReply> {
    let mut replies: Vec<ScriptedReply> = (0..reads)
        .map(|n| {
            answer(
                &format!("Reading part {n}."),
                &[call(
                    &format!("r{n}"),
                    "read",
                    &format!(r#"{{"path":"big.txt","limit":{}}}"#, 150 - n),
                )],
            )
        })
        .collect();
    replies.push(text("All read."));
    replies
}

/// An agent that only has `read`, with an 8192-token window, so a few big
/// outputs pass the compaction threshold.
pub fn small_window_agent(
    ws: &Ws,
    provider: Arc<RoutingProvider>,
) -> (Agent, Arc<CollectedEvents>) {
    let mut options = AgentOptions::default();
    options.context_window = Some(8192);
    let (builder, events) = builder(provider, ws, Mode::Plan);
    let agent = builder
        .registry(Registry::new(vec![Box::new(
            oy_tools::tools::ReadTool::new(),
        )]))
        .options(options)
        .build()
        .unwrap();
    (agent, events)
}

fn compactions(events: &[AgentEvent]) -> Vec<(&'static str, &'static str, usize, usize)> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Compaction {
                trigger,
                summary_by,
                outputs_shrunk,
                entries_summarized,
                ..
            } => Some((*trigger, *summary_by, *outputs_shrunk, *entries_summarized)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_long_loop_in_a_small_window_is_compacted_with_a_model_summary() {
    let ws = Ws::new();
    ws.file("big.txt", &big_file());
    let provider = RoutingProvider::new(
        reading_script(8),
        [text("SUMMARY: the model read big.txt several times.")],
    );
    let (mut agent, events) = small_window_agent(&ws, provider.clone());
    assert!(
        !agent.budget().over(agent.context_tokens() as usize * 4),
        "the instructions and schemas alone must leave room"
    );

    let outcome = agent.turn("read big.txt").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done, "{:?}", outcome.reason);
    let events = events.events();
    let compactions = compactions(&events);
    assert!(!compactions.is_empty(), "no compaction happened");
    assert!(compactions.iter().all(|c| c.0 == "auto"), "{compactions:?}");
    // Shrinking old outputs comes first; the summary when that is not enough.
    assert!(compactions[0].2 > 0, "{compactions:?}");
    let summarized = compactions
        .iter()
        .find(|c| c.1 == "model")
        .unwrap_or_else(|| panic!("no model summary in {compactions:?}"));
    assert!(summarized.3 >= 2, "{compactions:?}");
    // The compaction happened inside the loop: between tool calls.
    let at = events
        .iter()
        .position(|event| {
            matches!(
                event,
                AgentEvent::Compaction {
                    summary_by: "model",
                    ..
                }
            )
        })
        .unwrap();
    assert!(
        events[..at]
            .iter()
            .any(|event| matches!(event, AgentEvent::ToolCallFinished { .. }))
    );
    assert!(
        events[at..]
            .iter()
            .any(|event| matches!(event, AgentEvent::ToolCallStarted { .. }))
    );

    let requests = provider.requests();
    let summary_at = requests.iter().position(is_summary_request).unwrap();
    let summary = &requests[summary_at];
    assert!(summary.tools.is_empty());
    assert!(
        summary
            .instructions
            .as_deref()
            .unwrap()
            .starts_with("Summarise")
    );
    match summary.messages.as_slice() {
        [Message::User { text }] => assert!(text.contains("RESULT read"), "{text}"),
        other => panic!("{other:?}"),
    }
    // The loop request after the summary is smaller than the one before.
    let before = &requests[summary_at - 1];
    let after = &requests[summary_at + 1];
    assert!(!is_summary_request(before) && !is_summary_request(after));
    assert!(
        message_bytes(after) < message_bytes(before),
        "{} !< {}",
        message_bytes(after),
        message_bytes(before)
    );
    assert!(after.messages.iter().any(|message| matches!(
        message,
        Message::User { text } if text.contains("SUMMARY: the model read big.txt")
    )));
    // The task is still the first message.
    assert_eq!(
        after.messages[0],
        Message::User {
            text: "read big.txt".to_owned()
        }
    );
    for request in requests.iter().filter(|r| !is_summary_request(r)) {
        assert_paired(request);
    }
    agent.transcript().check().unwrap();
    assert!(
        agent
            .transcript()
            .entries()
            .iter()
            .any(|entry| matches!(entry, Entry::Summary { .. }))
    );
    // The history lost nothing: every read's whole output is there.
    let full_outputs = agent
        .history()
        .iter()
        .filter(|entry| {
            matches!(entry, Entry::ToolResult { output, .. }
                if output.contains("line 0075") && output.contains("line 0140"))
        })
        .count();
    assert_eq!(full_outputs, 8);
}

#[tokio::test]
async fn a_failed_summary_request_falls_back_to_a_digest() {
    let ws = Ws::new();
    ws.file("big.txt", &big_file());
    // No summary replies: the summary request fails (not retryably).
    let provider = RoutingProvider::new(reading_script(8), []);
    let (mut agent, events) = small_window_agent(&ws, provider.clone());

    let outcome = agent.turn("read big.txt").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done, "{:?}", outcome.reason);
    let compactions = compactions(&events.events());
    assert!(!compactions.is_empty(), "no compaction happened");
    assert!(
        compactions.iter().any(|c| c.0 == "auto" && c.1 == "digest"),
        "{compactions:?}"
    );
    assert!(!compactions.iter().any(|c| c.1 == "model"));
    let requests = provider.requests();
    assert!(requests.iter().any(is_summary_request));
    let last = requests.last().unwrap();
    let digest = last
        .messages
        .iter()
        .find_map(|message| match message {
            Message::User { text } if text.contains("Digest of earlier entries") => Some(text),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no digest in {:#?}", last.messages));
    assert!(digest.contains("called read"), "{digest}");
    agent.transcript().check().unwrap();
}

#[tokio::test]
async fn manual_compaction_summarises_even_under_the_threshold() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha\n");
    let provider = RoutingProvider::new(
        [
            answer("one", &[call("c1", "read", r#"{"path":"a.txt"}"#)]),
            answer(
                "two",
                &[call("c2", "read", r#"{"path":"a.txt","limit":1}"#)],
            ),
            text("done"),
            text("next answer"),
        ],
        [text("SUMMARY: read a.txt twice.")],
    );
    let (mut agent, events) = small_window_agent(&ws, provider.clone());
    agent.turn("read a.txt").await.unwrap();
    agent
        .turn("and again")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let entries_before = agent.transcript().len();

    agent.compact().await.unwrap();

    let compactions = compactions(&events.events());
    assert_eq!(compactions.len(), 1);
    assert_eq!(compactions[0].0, "manual");
    assert_eq!(compactions[0].1, "model");
    assert!(agent.transcript().len() < entries_before);
    agent.transcript().check().unwrap();
    assert_eq!(
        agent.transcript().entries()[0],
        Entry::User {
            text: "read a.txt".to_owned()
        }
    );
}

#[tokio::test]
async fn the_servers_window_replaces_the_guess_once_it_answers_and_config_beats_it() {
    use oy_agent::FALLBACK_WINDOW;
    use oy_provider::{ModelInfo, ScriptedProvider};

    let ws = Ws::new();
    let listed = |window| ModelInfo {
        id: "test-model".to_owned(),
        owned_by: None,
        context_window: Some(window),
    };
    // The server runs the model with 12 000 tokens: the agent learns it
    // during its first turn, without waiting for it.
    let provider =
        Arc::new(ScriptedProvider::new([text("one"), text("two")]).with_models([listed(12_000)]));
    let (first, _events) = builder(provider, &ws, Mode::Plan);
    let mut agent = first.build().unwrap();
    assert_eq!(agent.budget().window(), FALLBACK_WINDOW);
    agent.turn("first").await.unwrap();
    for _ in 0..5 {
        tokio::task::yield_now().await;
    }
    agent.turn("second").await.unwrap();
    assert_eq!(agent.budget().window(), 12_000);

    // A configured window is never second-guessed.
    let provider = Arc::new(ScriptedProvider::new([text("one")]).with_models([listed(12_000)]));
    let mut options = AgentOptions::default();
    options.context_window = Some(50_000);
    let (configured, _events) = builder(provider, &ws, Mode::Plan);
    let mut agent = configured.options(options).build().unwrap();
    agent.turn("first").await.unwrap();
    assert_eq!(agent.budget().window(), 50_000);
}
