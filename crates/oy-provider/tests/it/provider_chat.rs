//! The Chat Completions backend against a local wiremock server replaying
//! SSE fixtures: decoded events, the request it sends, and model listing.

use futures_util::StreamExt;
use oy_provider::{
    ErrorKind, Event, Message, ModelInfo, OpenAiChatProvider, OpenAiConfig, Provider,
    ProviderError, ReasoningEffort, Request, Secret, StopReason, ToolCall, ToolSchema, Usage,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::openai_spec::guarded_server;

pub(crate) const KEY: &str = "sk-test-SECRET-4f9a";

/// A mock serving `body` as the event stream of `/v1/chat/completions`.
pub(crate) async fn serve(body: &str) -> MockServer {
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(sse(body))
        .mount(&server)
        .await;
    server
}

pub(crate) fn sse(body: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/event-stream")
}

pub(crate) fn config(server: &MockServer) -> OpenAiConfig {
    OpenAiConfig::new(format!("{}/v1", server.uri()))
}

pub(crate) fn request() -> Request {
    Request {
        model: "gpt-4o-mini".to_owned(),
        messages: vec![Message::User {
            text: "hi".to_owned(),
        }],
        ..Request::default()
    }
}

/// Every item of one streamed answer, the error (if any) last.
pub(crate) async fn collect(provider: &OpenAiChatProvider) -> (Vec<Event>, Option<ProviderError>) {
    let mut stream = match provider.stream(&request()).await {
        Ok(stream) => stream,
        Err(error) => return (Vec::new(), Some(error)),
    };
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(error) => return (events, Some(error)),
        }
    }
    (events, None)
}

async fn run_fixture(body: &str) -> (Vec<Event>, Option<ProviderError>) {
    let server = serve(body).await;
    collect(&OpenAiChatProvider::new(config(&server)).unwrap()).await
}

/// The text the deltas in `events` add up to.
pub(crate) fn text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            Event::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn done_calls(events: &[Event]) -> Vec<ToolCall> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallDone { call, .. } => Some(call.clone()),
            _ => None,
        })
        .collect()
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments: arguments.to_owned(),
    }
}

#[tokio::test]
async fn streams_text_then_usage_from_a_final_chunk_with_empty_choices() {
    let (events, error) = run_fixture(include_str!("../fixtures/chat/text.sse")).await;
    assert_eq!(error, None);
    assert_eq!(
        events,
        vec![
            Event::TextDelta {
                text: "Hello".to_owned()
            },
            Event::TextDelta {
                text: ", world.".to_owned()
            },
            Event::Usage {
                usage: Usage {
                    input_tokens: 19,
                    output_tokens: 4,
                    cached_input_tokens: 8,
                }
            },
            Event::Finished {
                reason: StopReason::EndTurn
            },
        ]
    );
}

#[tokio::test]
async fn assembles_tool_arguments_split_across_many_chunks() {
    let (events, error) = run_fixture(include_str!("../fixtures/chat/tool_args_split.sse")).await;
    assert_eq!(error, None);
    assert_eq!(
        events.first(),
        Some(&Event::ToolCallStarted {
            index: 0,
            id: "call_DdmO9pD3xa9XTPNJ32zg2hcA".to_owned(),
            name: "read".to_owned(),
        })
    );
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallArgumentsDelta { index: 0, delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert!(deltas.len() >= 5, "{deltas:?}");
    assert_eq!(deltas.concat(), r#"{"path":"src/main.rs","limit":40}"#);
    assert_eq!(
        done_calls(&events),
        vec![call(
            "call_DdmO9pD3xa9XTPNJ32zg2hcA",
            "read",
            r#"{"path":"src/main.rs","limit":40}"#
        )]
    );
    assert_eq!(
        events.last(),
        Some(&Event::Finished {
            reason: StopReason::ToolUse
        })
    );
}

#[tokio::test]
async fn separates_parallel_tool_calls_interleaved_by_index() {
    let (events, error) = run_fixture(include_str!("../fixtures/chat/parallel_tools.sse")).await;
    assert_eq!(error, None);
    assert_eq!(
        done_calls(&events),
        vec![
            call("call_a", "read", r#"{"path":"a.rs"}"#),
            call("call_b", "search", r#"{"pattern":"fn main"}"#),
        ]
    );
    let started: Vec<(usize, &str)> = events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallStarted { index, id, .. } => Some((*index, id.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(started, vec![(0, "call_a"), (1, "call_b")]);
}

#[tokio::test]
async fn keeps_content_of_a_final_chunk_that_also_finishes() {
    let (events, error) =
        run_fixture(include_str!("../fixtures/chat/content_and_finish.sse")).await;
    assert_eq!(error, None);
    assert_eq!(text(&events), "Done now.");
    assert_eq!(
        events.last(),
        Some(&Event::Finished {
            reason: StopReason::MaxTokens
        })
    );
}

#[tokio::test]
async fn generates_ids_and_tolerates_missing_usage_and_done() {
    let (events, error) = run_fixture(include_str!("../fixtures/chat/missing_ids.sse")).await;
    assert_eq!(error, None);
    assert_eq!(
        done_calls(&events),
        vec![call("call_0", "list", r#"{"path":"."}"#)]
    );
    assert!(!events.iter().any(|e| matches!(e, Event::Usage { .. })));
    // `stop` with a tool call means tool use.
    assert_eq!(
        events.last(),
        Some(&Event::Finished {
            reason: StopReason::ToolUse
        })
    );
}

#[tokio::test]
async fn splits_calls_that_reuse_one_index_with_new_ids() {
    let (events, error) = run_fixture(include_str!("../fixtures/chat/ollama_tools.sse")).await;
    assert_eq!(error, None);
    assert_eq!(
        done_calls(&events),
        vec![
            call("call_one", "read", r#"{"path":"a.rs"}"#),
            call("call_two", "read", r#"{"path":"b.rs"}"#),
        ]
    );
    assert_eq!(
        events.last(),
        Some(&Event::Finished {
            reason: StopReason::ToolUse
        })
    );
}

#[tokio::test]
async fn passes_malformed_tool_arguments_through_raw() {
    let (events, error) =
        run_fixture(include_str!("../fixtures/chat/malformed_arguments.sse")).await;
    assert_eq!(error, None);
    assert_eq!(
        done_calls(&events),
        vec![call(
            "call_x",
            "write",
            r#"{"path": "a.txt", "content": oops"#
        )]
    );
}

#[tokio::test]
async fn fails_with_protocol_error_on_malformed_chunk_json() {
    let (events, error) = run_fixture(include_str!("../fixtures/chat/malformed_json.sse")).await;
    assert_eq!(text(&events), "Hi");
    assert_eq!(error.unwrap().kind(), ErrorKind::Protocol);
}

#[tokio::test]
async fn skips_empty_choices_and_empty_deltas() {
    let (events, error) = run_fixture(include_str!("../fixtures/chat/empty_choices.sse")).await;
    assert_eq!(error, None);
    assert_eq!(
        events,
        vec![
            Event::TextDelta {
                text: "ok".to_owned()
            },
            Event::Finished {
                reason: StopReason::EndTurn
            },
        ]
    );
}

#[tokio::test]
async fn reports_a_stream_that_stops_mid_event_as_cut() {
    let (events, error) = run_fixture(include_str!("../fixtures/chat/cut_mid_event.sse")).await;
    assert_eq!(text(&events), "Partial");
    let error = error.unwrap();
    assert_eq!(error.kind(), ErrorKind::StreamCut);
    assert!(error.is_retryable());
}

#[tokio::test]
async fn reads_crlf_line_endings() {
    let body = include_str!("../fixtures/chat/text.sse").replace('\n', "\r\n");
    let (events, error) = run_fixture(&body).await;
    assert_eq!(error, None);
    assert_eq!(text(&events), "Hello, world.");
}

#[tokio::test]
async fn maps_every_finish_reason() {
    let cases = [
        ("stop", StopReason::EndTurn),
        ("length", StopReason::MaxTokens),
        ("tool_calls", StopReason::ToolUse),
        ("function_call", StopReason::ToolUse),
        ("content_filter", StopReason::ContentFilter),
        ("brand_new", StopReason::Other("brand_new".to_owned())),
    ];
    for (wire, expected) in cases {
        let body = format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"x\"}},\"finish_reason\":null}}]}}\n\n\
             data: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"{wire}\"}}]}}\n\n\
             data: [DONE]\n\n"
        );
        let (events, error) = run_fixture(&body).await;
        assert_eq!(error, None, "{wire}");
        assert_eq!(
            events.last(),
            Some(&Event::Finished { reason: expected }),
            "{wire}"
        );
    }
}

#[tokio::test]
async fn sends_the_chat_completions_body_and_headers() {
    let server = serve(include_str!("../fixtures/chat/text.sse")).await;
    let mut config = config(&server);
    config.api_key = Some(Secret::new(KEY));
    config.api_key_name = Some("OPENAI_API_KEY".to_owned());
    config.extra_headers = vec![("X-Gateway-Team".to_owned(), "oy".to_owned())];
    let provider = OpenAiChatProvider::new(config).unwrap();
    let request = Request {
        model: "qwen2.5-coder".to_owned(),
        instructions: Some("Be brief.".to_owned()),
        messages: vec![
            Message::User {
                text: "List files".to_owned(),
            },
            Message::Assistant {
                text: Some("Looking.".to_owned()),
                tool_calls: vec![call("call_1", "list", r#"{"path":"."}"#)],
                reasoning: None,
            },
            Message::ToolResult {
                call_id: "call_1".to_owned(),
                output: "a.rs\nb.rs".to_owned(),
                is_error: false,
            },
        ],
        tools: vec![ToolSchema {
            name: "list".to_owned(),
            description: "List a directory".to_owned(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        max_output_tokens: Some(512),
        temperature: Some(0.5),
        reasoning: Some(ReasoningEffort::High),
    };
    let mut stream = provider.stream(&request).await.unwrap();
    while stream.next().await.is_some() {}

    let received = server.received_requests().await.unwrap();
    assert_eq!(received.len(), 1);
    let sent = &received[0];
    let body: Value = serde_json::from_slice(&sent.body).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "qwen2.5-coder",
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "List files"},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "list", "arguments": "{\"path\":\".\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a.rs\nb.rs"}
            ],
            "tools": [{"type": "function", "function": {
                "name": "list", "description": "List a directory",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}
            }}],
            "max_tokens": 512,
            "temperature": 0.5,
            "reasoning_effort": "high"
        })
    );
    assert_eq!(
        sent.headers.get("authorization").unwrap(),
        &format!("Bearer {KEY}")
    );
    assert_eq!(sent.headers.get("x-gateway-team").unwrap(), "oy");
    assert_eq!(sent.headers.get("accept").unwrap(), "text/event-stream");
    // The key is in the one header meant for it and nowhere else.
    let elsewhere = sent
        .headers
        .iter()
        .filter(|(name, _)| name.as_str() != "authorization")
        .any(|(_, value)| value.to_str().unwrap_or_default().contains(KEY));
    assert!(!elsewhere);
    assert!(!String::from_utf8_lossy(&sent.body).contains(KEY));
    assert!(!sent.url.as_str().contains(KEY));
}

#[tokio::test]
async fn sends_no_authorization_header_without_a_key() {
    for key in [None, Some(Secret::new(""))] {
        let server = serve(include_str!("../fixtures/chat/text.sse")).await;
        let mut config = config(&server);
        config.api_key = key;
        let (_, error) = collect(&OpenAiChatProvider::new(config).unwrap()).await;
        assert_eq!(error, None);
        let received = server.received_requests().await.unwrap();
        assert!(received[0].headers.get("authorization").is_none());
    }
}

#[tokio::test]
async fn refuses_a_key_over_plain_http_to_a_remote_host() {
    let mut config = OpenAiConfig::new("http://models.example.com/v1");
    config.api_key = Some(Secret::new(KEY));
    let error = OpenAiChatProvider::new(config.clone()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert!(!error.to_string().contains(KEY));

    config.allow_insecure_key = true;
    assert!(OpenAiChatProvider::new(config.clone()).is_ok());
    config.allow_insecure_key = false;
    config.api_key = None;
    assert!(OpenAiChatProvider::new(config.clone()).is_ok());
    config.base_url = "http://localhost:8080/v1".to_owned();
    config.api_key = Some(Secret::new(KEY));
    assert!(OpenAiChatProvider::new(config).is_ok());
}

#[tokio::test]
async fn lists_models_tolerating_missing_fields() {
    let server = guarded_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "object": "list",
            "data": [
                {"id": "gpt-4o", "object": "model", "created": 1, "owned_by": "openai"},
                {"id": "local-a", "object": "model", "context_length": 32768},
                {"id": "local-b", "context_window": 8192},
                {"id": "vllm-c", "owned_by": "vllm", "max_model_len": 4096}
            ]
        })))
        .mount(&server)
        .await;
    let provider = OpenAiChatProvider::new(config(&server)).unwrap();
    let models = provider.list_models().await.unwrap();
    let model = |id: &str, owned_by: Option<&str>, context_window: Option<u64>| ModelInfo {
        id: id.to_owned(),
        owned_by: owned_by.map(str::to_owned),
        context_window,
    };
    assert_eq!(
        models,
        vec![
            model("gpt-4o", Some("openai"), None),
            model("local-a", None, Some(32768)),
            model("local-b", None, Some(8192)),
            model("vllm-c", Some("vllm"), Some(4096)),
        ]
    );
}
