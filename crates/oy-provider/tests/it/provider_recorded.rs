//! Both OpenAI backends against what real servers sent, byte for byte
//! (`tests/fixtures/recorded/`, recorded as its README says): llama.cpp's
//! `llama-server` on Chat Completions and Responses, text and tool calls,
//! and its error bodies; and the same through LiteLLM's proxy. Each fixture is replayed by a local mock server;
//! the request oy sends is checked against OpenAI's spec on the way.

use futures_util::StreamExt;
use oy_provider::{
    ErrorKind, Event, Message, OpenAiChatProvider, OpenAiConfig, OpenAiResponsesProvider, Provider,
    ProviderError, Request, StopReason, ToolSchema,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::openai_spec::guarded_server;
use crate::provider_chat::text;

macro_rules! recorded {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/recorded/",
            $name
        ))
    };
}

#[derive(Clone, Copy)]
enum Wire {
    Chat,
    Responses,
}

fn request() -> Request {
    Request {
        model: "smollm2".to_owned(),
        instructions: Some("You are a coding assistant. Use tools.".to_owned()),
        messages: vec![Message::User {
            text: "Read the file README.md".to_owned(),
        }],
        tools: vec![ToolSchema {
            name: "read".to_owned(),
            description: "Read a file in the workspace".to_owned(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
                "additionalProperties": false,
            }),
        }],
        max_output_tokens: Some(100),
        ..Request::default()
    }
}

/// What `wire` makes of a server answering `status` with `body`.
async fn replay(wire: Wire, status: u16, body: &str) -> Vec<Result<Event, ProviderError>> {
    let server = guarded_server().await;
    let (route, kind) = match wire {
        Wire::Chat => ("/v1/chat/completions", "text/event-stream"),
        Wire::Responses => ("/v1/responses", "text/event-stream"),
    };
    let kind = if status == 200 {
        kind
    } else {
        "application/json"
    };
    Mock::given(method("POST"))
        .and(path(route))
        .respond_with(ResponseTemplate::new(status).set_body_raw(body.to_owned(), kind))
        .mount(&server)
        .await;
    let config = OpenAiConfig::new(format!("{}/v1", server.uri()));
    let request = request();
    let provider: Box<dyn Provider> = match wire {
        Wire::Chat => Box::new(OpenAiChatProvider::new(config).unwrap()),
        Wire::Responses => Box::new(OpenAiResponsesProvider::new(config).unwrap()),
    };
    match provider.stream(&request).await {
        Ok(stream) => stream.collect().await,
        Err(error) => vec![Err(error)],
    }
}

fn events(items: Vec<Result<Event, ProviderError>>) -> Vec<Event> {
    items
        .into_iter()
        .map(|item| item.unwrap_or_else(|error| panic!("{error}")))
        .collect()
}

fn finish(events: &[Event]) -> Option<&StopReason> {
    events.iter().find_map(|event| match event {
        Event::Finished { reason } => Some(reason),
        _ => None,
    })
}

/// The one finished tool call: its name and parsed arguments.
fn only_call(events: &[Event]) -> (String, Value) {
    let calls: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallDone { index, call } => Some((*index, call.clone())),
            _ => None,
        })
        .collect();
    let [(0, call)] = calls.as_slice() else {
        panic!("expected one call at index 0: {calls:?}");
    };
    let started = events
        .iter()
        .filter(|event| matches!(event, Event::ToolCallStarted { index: 0, .. }))
        .count();
    assert_eq!(started, 1, "started once: {events:?}");
    (
        call.name.clone(),
        serde_json::from_str(&call.arguments).unwrap(),
    )
}

#[tokio::test]
async fn llama_server_chat_text() {
    let events = events(replay(Wire::Chat, 200, recorded!("llama-server/chat_text.sse")).await);
    assert!(text(&events).starts_with("Hello, I"), "{}", text(&events));
    assert_eq!(finish(&events), Some(&StopReason::EndTurn));
    assert!(
        events.iter().any(|event| matches!(
            event,
            Event::Usage { usage } if usage.input_tokens == 26 && usage.output_tokens == 14
        )),
        "{events:?}"
    );
}

#[tokio::test]
async fn llama_server_responses_text() {
    let events = events(
        replay(
            Wire::Responses,
            200,
            recorded!("llama-server/responses_text.sse"),
        )
        .await,
    );
    assert!(!text(&events).is_empty());
    assert_eq!(finish(&events), Some(&StopReason::EndTurn));
}

#[tokio::test]
async fn llama_server_chat_tool_call() {
    let events = events(
        replay(
            Wire::Chat,
            200,
            recorded!("llama-server-functionary/chat_tool_call.sse"),
        )
        .await,
    );
    assert_eq!(
        only_call(&events),
        ("read".to_owned(), json!({"path": "README.md"}))
    );
    assert_eq!(finish(&events), Some(&StopReason::ToolUse));
}

#[tokio::test]
async fn llama_server_responses_tool_call_keyed_by_item_id() {
    // llama-server names the call's item only by `item_id` (no
    // `output_index`) and sends no `function_call_arguments.done`.
    let body = recorded!("llama-server-functionary/responses_tool_call.sse");
    assert!(!body.contains("output_index"));
    assert!(!body.contains("function_call_arguments.done"));
    let events = events(replay(Wire::Responses, 200, body).await);
    assert_eq!(
        only_call(&events),
        ("read".to_owned(), json!({"path": "README.md"}))
    );
    assert_eq!(finish(&events), Some(&StopReason::ToolUse));
}

#[tokio::test]
async fn llama_server_responses_tool_call_without_item_done_completes_at_the_end() {
    // The same stream less its `output_item.done`: the call is completed
    // from the response's `output` listing when the response completes.
    let body: String = recorded!("llama-server-functionary/responses_tool_call.sse")
        .split("\n\n")
        .filter(|event| !event.contains("response.output_item.done"))
        .map(|event| format!("{event}\n\n"))
        .collect();
    let events = events(replay(Wire::Responses, 200, &body).await);
    assert_eq!(
        only_call(&events),
        ("read".to_owned(), json!({"path": "README.md"}))
    );
    assert_eq!(finish(&events), Some(&StopReason::ToolUse));
}

#[tokio::test]
async fn llama_server_errors_are_not_retryable_and_say_what_happened() {
    for (wire, status, body, says) in [
        (
            Wire::Chat,
            400,
            recorded!("llama-server/chat_context_exceeded.400.json"),
            "exceeds the available context size",
        ),
        (
            Wire::Responses,
            400,
            recorded!("llama-server/responses_context_exceeded.400.json"),
            "exceeds the available context size",
        ),
        (
            Wire::Chat,
            404,
            recorded!("llama-server/unknown_route.404.json"),
            "File Not Found",
        ),
    ] {
        let items = replay(wire, status, body).await;
        let Some(Err(error)) = items.into_iter().next() else {
            panic!("expected an error");
        };
        assert_eq!(error.kind(), ErrorKind::Status);
        assert_eq!(error.http_status(), Some(status));
        assert!(!error.is_retryable());
        assert!(error.to_string().contains(says), "{error}");
    }
}

#[tokio::test]
async fn litellm_chat_text_and_tool_call() {
    let events = events(replay(Wire::Chat, 200, recorded!("litellm/chat_text.sse")).await);
    assert!(!text(&events).is_empty());
    assert_eq!(finish(&events), Some(&StopReason::EndTurn));
    let events = events_of(Wire::Chat, recorded!("litellm/chat_tool_call.sse")).await;
    assert_eq!(only_call(&events).0, "read");
    assert_eq!(finish(&events), Some(&StopReason::ToolUse));
}

#[tokio::test]
async fn litellm_responses_bridged_from_chat() {
    // LiteLLM answers /v1/responses for a chat-only backend with its own
    // translation of the stream.
    let events = events_of(
        Wire::Responses,
        recorded!("litellm/responses_bridge_text.sse"),
    )
    .await;
    assert!(!text(&events).is_empty());
    assert_eq!(finish(&events), Some(&StopReason::EndTurn));
    let events = events_of(
        Wire::Responses,
        recorded!("litellm/responses_bridge_tool_call.sse"),
    )
    .await;
    assert_eq!(only_call(&events).0, "read");
    assert_eq!(finish(&events), Some(&StopReason::ToolUse));
}

#[tokio::test]
async fn litellm_unknown_model_is_a_clear_client_error() {
    let items = replay(Wire::Chat, 400, recorded!("litellm/unknown_model.400.json")).await;
    let Some(Err(error)) = items.into_iter().next() else {
        panic!("expected an error");
    };
    assert_eq!(error.http_status(), Some(400));
    assert!(!error.is_retryable());
    assert!(error.to_string().contains("Invalid model name"), "{error}");
}

async fn events_of(wire: Wire, body: &str) -> Vec<Event> {
    events(replay(wire, 200, body).await)
}
