//! The Responses backend against a local mock server replaying SSE
//! fixtures (`tests/fixtures/responses/*.sse`, shaped after OpenAI's
//! streaming docs): decoded events, errors, limits, and the request bodies
//! and headers it sends.

use futures_util::StreamExt;
use oy_provider::{
    ErrorKind, Event, Message, OpenAiConfig, OpenAiResponsesProvider, Provider, ProviderError,
    ReasoningEffort, Request, Secret, StopReason, ToolCall, ToolSchema, Usage,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::openai_spec::guarded_server;
use crate::provider_chat::text as text_of;

const KEY: &str = "sk-test-do-not-leak-4242";

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/responses/",
            $name,
            ".sse"
        ))
    };
}

mod failures;

fn sse(body: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.to_owned(), "text/event-stream")
}

async fn server_with(template: ResponseTemplate) -> MockServer {
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(template)
        .mount(&server)
        .await;
    server
}

fn config(server: &MockServer, key: Option<&str>) -> OpenAiConfig {
    let mut config = OpenAiConfig::new(format!("{}/v1/", server.uri()));
    config.api_key = key.map(Secret::new);
    config.api_key_name = key.map(|_| "OPENAI_API_KEY".to_owned());
    config
}

fn provider(server: &MockServer, key: Option<&str>) -> OpenAiResponsesProvider {
    OpenAiResponsesProvider::new(config(server, key)).unwrap()
}

fn request() -> Request {
    Request {
        model: "gpt-5".to_owned(),
        instructions: Some("You are a coding agent.".to_owned()),
        messages: vec![Message::User {
            text: "hello".to_owned(),
        }],
        tools: vec![ToolSchema {
            name: "read".to_owned(),
            description: "Read a file.".to_owned(),
            parameters: json!({"type":"object","properties":{"path":{"type":"string"}}}),
        }],
        max_output_tokens: Some(4096),
        temperature: None,
        reasoning: Some(ReasoningEffort::Medium),
    }
}

async fn run(provider: &OpenAiResponsesProvider) -> Vec<Result<Event, ProviderError>> {
    match provider.stream(&request()).await {
        Ok(stream) => stream.collect().await,
        Err(error) => vec![Err(error)],
    }
}

async fn events(body: &str) -> Vec<Event> {
    let server = server_with(sse(body)).await;
    run(&provider(&server, None))
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect()
}

/// The stream's last item, which must be an error.
async fn stream_error(template: ResponseTemplate, key: Option<&str>) -> ProviderError {
    let server = server_with(template).await;
    let items = run(&provider(&server, key)).await;
    items.into_iter().last().unwrap().unwrap_err()
}

async fn sent_bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| request.body_json().unwrap())
        .collect()
}

fn finish(events: &[Event]) -> &StopReason {
    match events.last() {
        Some(Event::Finished { reason }) => reason,
        other => panic!("no Finished at the end: {other:?}"),
    }
}

fn done_calls(events: &[Event]) -> Vec<(usize, ToolCall)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallDone { index, call } => Some((*index, call.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn text_only_answer_streams_deltas_usage_and_end_turn() {
    let events = events(fixture!("text")).await;
    assert_eq!(text_of(&events), "Hi there! How can I help?");
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::TextDelta { .. }))
            .count(),
        3
    );
    assert!(events.contains(&Event::Usage {
        usage: Usage {
            input_tokens: 37,
            output_tokens: 11,
            cached_input_tokens: 0
        }
    }));
    assert_eq!(finish(&events), &StopReason::EndTurn);
}

#[tokio::test]
async fn function_call_arguments_split_across_deltas_are_reassembled() {
    let events = events(fixture!("function_call")).await;
    assert_eq!(
        events[0],
        Event::ToolCallStarted {
            index: 0,
            id: "call_12345xyz".to_owned(),
            name: "read".to_owned()
        }
    );
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallArgumentsDelta { index: 0, delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert!(deltas.len() >= 5, "{deltas:?}");
    let arguments = r#"{"path": "src/main.rs", "limit": 40}"#;
    assert_eq!(deltas.concat(), arguments);
    assert_eq!(
        done_calls(&events),
        vec![(
            0,
            ToolCall {
                id: "call_12345xyz".to_owned(),
                name: "read".to_owned(),
                arguments: arguments.to_owned()
            }
        )]
    );
    assert_eq!(finish(&events), &StopReason::ToolUse);
}

#[tokio::test]
async fn two_function_calls_keep_their_own_indexes() {
    let events = events(fixture!("two_function_calls")).await;
    let calls = done_calls(&events);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].0, 0);
    assert_eq!(calls[0].1.id, "call_1");
    assert_eq!(calls[0].1.arguments, r#"{"path":"a.rs"}"#);
    assert_eq!(calls[1].0, 1);
    assert_eq!(calls[1].1.name, "search");
    assert_eq!(calls[1].1.arguments, r#"{"pattern":"fn main"}"#);
    assert_eq!(finish(&events), &StopReason::ToolUse);
}

#[tokio::test]
async fn text_then_function_call_numbers_the_call_from_zero() {
    let events = events(fixture!("text_and_function_call")).await;
    assert_eq!(text_of(&events), "Let me look at the file.");
    let calls = done_calls(&events);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].0, 0);
    assert_eq!(calls[0].1.arguments, r#"{"path":"Cargo.toml"}"#);
    let text_at = events
        .iter()
        .position(|e| matches!(e, Event::TextDelta { .. }))
        .unwrap();
    let call_at = events
        .iter()
        .position(|e| matches!(e, Event::ToolCallStarted { .. }))
        .unwrap();
    assert!(text_at < call_at);
    assert_eq!(finish(&events), &StopReason::ToolUse);
}

#[tokio::test]
async fn usage_reports_cached_tokens() {
    let events = events(fixture!("reasoning")).await;
    assert!(events.contains(&Event::Usage {
        usage: Usage {
            input_tokens: 1200,
            output_tokens: 310,
            cached_input_tokens: 1024
        }
    }));
}

#[tokio::test]
async fn reasoning_item_is_echoed_back_in_the_next_request() {
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(sse(fixture!("reasoning")))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(sse(fixture!("text")))
        .mount(&server)
        .await;
    let provider = provider(&server, Some(KEY));

    let first: Vec<Event> = run(&provider)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let reasoning = first
        .iter()
        .find_map(|event| match event {
            Event::Reasoning { item } => Some(item.clone()),
            _ => None,
        })
        .expect("a reasoning event");
    assert_eq!(
        reasoning["encrypted_content"],
        "gAAAAABoIPOE-encrypted-reasoning-state=="
    );
    let calls = done_calls(&first);

    let mut next = request();
    next.messages.push(Message::Assistant {
        text: None,
        tool_calls: vec![calls[0].1.clone()],
        reasoning: Some(reasoning),
    });
    next.messages.push(Message::ToolResult {
        call_id: "call_r1".to_owned(),
        output: "# README".to_owned(),
        is_error: false,
    });
    let second: Vec<_> = provider.stream(&next).await.unwrap().collect().await;
    assert!(second.iter().all(Result::is_ok));

    let bodies = sent_bodies(&server).await;
    assert_eq!(bodies.len(), 2);
    let input = bodies[1]["input"].as_array().unwrap();
    let types: Vec<&str> = input.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "message",
            "reasoning",
            "function_call",
            "function_call_output"
        ]
    );
    assert_eq!(
        input[1],
        json!({
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Checking the file first."}],
            "encrypted_content": "gAAAAABoIPOE-encrypted-reasoning-state==",
        })
    );
    assert_eq!(
        input[2],
        json!({"type": "function_call", "call_id": "call_r1", "name": "read", "arguments": "{\"path\":\"README.md\"}"})
    );
    assert_eq!(
        input[3],
        json!({"type": "function_call_output", "call_id": "call_r1", "output": "# README"})
    );
    assert_eq!(bodies[1]["include"], json!(["reasoning.encrypted_content"]));
}

#[tokio::test]
async fn request_body_has_the_responses_shape() {
    let server = server_with(sse(fixture!("text"))).await;
    let mut request = request();
    request.temperature = Some(0.5);
    request.messages.push(Message::Assistant {
        text: Some("Looking.".to_owned()),
        tool_calls: vec![ToolCall {
            id: "call_9".to_owned(),
            name: "read".to_owned(),
            arguments: "{}".to_owned(),
        }],
        reasoning: None,
    });
    request.messages.push(Message::ToolResult {
        call_id: "call_9".to_owned(),
        output: "TOOL_ERROR: missing path".to_owned(),
        is_error: true,
    });
    let items: Vec<_> = provider(&server, None)
        .stream(&request)
        .await
        .unwrap()
        .collect()
        .await;
    assert!(items.iter().all(Result::is_ok));

    let body = &sent_bodies(&server).await[0];
    assert_eq!(body["model"], "gpt-5");
    assert_eq!(body["stream"], true);
    assert_eq!(body["store"], false);
    assert_eq!(body["instructions"], "You are a coding agent.");
    assert_eq!(body["max_output_tokens"], 4096);
    assert_eq!(body["temperature"], 0.5);
    assert_eq!(body["reasoning"], json!({"effort": "medium"}));
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(
        body["tools"],
        json!([{
            "type": "function",
            "name": "read",
            "description": "Read a file.",
            "parameters": {"type":"object","properties":{"path":{"type":"string"}}},
            "strict": false,
        }])
    );
    assert_eq!(
        body["input"],
        json!([
            // The spec's least ambiguous message form: one `InputItem`
            // branch (EasyInputMessage) matches it.
            {"type": "message", "role": "user", "content": "hello"},
            {"type": "message", "role": "assistant", "content": "Looking."},
            {"type": "function_call", "call_id": "call_9", "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_9", "output": "TOOL_ERROR: missing path"},
        ])
    );
}

#[tokio::test]
async fn encrypted_reasoning_is_asked_for_only_with_reasoning() {
    let server = server_with(sse(fixture!("text"))).await;
    let provider = provider(&server, None);
    let mut plain = request();
    plain.reasoning = None;
    let mut carried = plain.clone();
    carried.messages.push(Message::Assistant {
        text: Some("Done.".to_owned()),
        tool_calls: Vec::new(),
        reasoning: Some(json!([
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB-1"},
            {"type": "reasoning", "id": "rs_2", "summary": []},
        ])),
    });
    for request in [&plain, &carried] {
        let items: Vec<_> = provider.stream(request).await.unwrap().collect().await;
        assert!(items.iter().all(Result::is_ok));
    }
    let bodies = sent_bodies(&server).await;
    assert!(bodies[0].get("include").is_none(), "{}", bodies[0]);
    assert!(bodies[0].get("reasoning").is_none());
    assert_eq!(bodies[1]["include"], json!(["reasoning.encrypted_content"]));
    // Only the item that can round-trip (it has encrypted content) is sent.
    let input = bodies[1]["input"].as_array().unwrap();
    assert_eq!(
        input[1],
        json!({"type": "reasoning", "summary": [], "encrypted_content": "gAAAAB-1"})
    );
    assert_eq!(input[2]["role"], "assistant");
    assert_eq!(input.len(), 3);
}

#[tokio::test]
async fn authorization_is_sent_only_with_a_key() {
    for key in [Some(KEY), None, Some("")] {
        let server = server_with(sse(fixture!("text"))).await;
        let mut config = config(&server, key);
        config.extra_headers = vec![("OpenAI-Organization".to_owned(), "org-1".to_owned())];
        let provider = OpenAiResponsesProvider::new(config).unwrap();
        assert!(run(&provider).await.iter().all(Result::is_ok));
        let requests = server.received_requests().await.unwrap();
        let auth = requests[0].headers.get("authorization");
        match key {
            Some(key) if !key.is_empty() => {
                assert_eq!(auth.unwrap().to_str().unwrap(), format!("Bearer {key}"));
            }
            _ => assert!(auth.is_none(), "{auth:?}"),
        }
        assert_eq!(
            requests[0].headers.get("openai-organization").unwrap(),
            "org-1"
        );
        assert_eq!(requests[0].url.path(), "/v1/responses");
    }
}

#[tokio::test]
async fn incomplete_response_finishes_with_max_tokens() {
    let events = events(fixture!("incomplete_max_tokens")).await;
    assert_eq!(text_of(&events), "The answer is");
    assert!(events.iter().any(|e| matches!(e, Event::Usage { .. })));
    assert_eq!(finish(&events), &StopReason::MaxTokens);
}

#[tokio::test]
async fn unknown_event_types_are_ignored() {
    let body = format!(
        "event: response.something_new\ndata: {{\"type\":\"response.something_new\",\"x\":1}}\n\n: keep-alive\n\n{}",
        fixture!("text")
    );
    let events = events(&body).await;
    assert_eq!(text_of(&events), "Hi there! How can I help?");
}

#[test]
fn key_over_plain_http_to_a_remote_host_is_refused() {
    let mut config = OpenAiConfig::new("http://models.example.com/v1");
    config.api_key = Some(Secret::new(KEY));
    let error = OpenAiResponsesProvider::new(config.clone()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert!(!error.to_string().contains(KEY));
    config.allow_insecure_key = true;
    assert!(OpenAiResponsesProvider::new(config).is_ok());
}

#[tokio::test]
async fn list_models_reads_the_model_list() {
    let server = guarded_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "object": "list",
            "data": [
                {"id": "gpt-5", "object": "model", "created": 1, "owned_by": "openai"},
                {"id": "gpt-4.1", "object": "model", "created": 1, "owned_by": "openai"},
            ]
        })))
        .mount(&server)
        .await;
    let models = provider(&server, Some(KEY)).list_models().await.unwrap();
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["gpt-4.1", "gpt-5"]);
    assert_eq!(models[0].owned_by.as_deref(), Some("openai"));
}
