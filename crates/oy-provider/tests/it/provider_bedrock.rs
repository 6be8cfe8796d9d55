//! The Bedrock backend: the real AWS SDK against a local wiremock endpoint
//! serving ConverseStream answers in AWS event-stream framing. Pins the
//! decoded events (text, tool input split over deltas, usage, stop
//! reasons), the signed request (path, JSON body) and the limits; the
//! helpers here serve `provider_bedrock_errors` and
//! `provider_bedrock_endpoints` too.

use aws_sdk_bedrockruntime::config::Credentials;
use aws_smithy_eventstream::frame::write_message_to;
use aws_smithy_types::event_stream::{Header, HeaderValue, Message as Frame};
use futures_util::StreamExt;
use oy_provider::{
    BedrockConfig, BedrockProvider, ErrorKind, Event, Message, Provider, ProviderError, Request,
    StopReason, ToolCall, ToolSchema, Usage,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

const MODEL: &str = "anthropic.claude-3-haiku-20240307-v1:0";

pub fn frame(headers: &[(&'static str, &'static str)], payload: &Value) -> Vec<u8> {
    frame_bytes(headers, payload.to_string().as_bytes())
}

/// One frame with string headers around any payload bytes.
pub fn frame_bytes(headers: &[(&'static str, &'static str)], payload: &[u8]) -> Vec<u8> {
    let headers = headers
        .iter()
        .map(|(name, value)| Header::new(*name, HeaderValue::String((*value).into())))
        .collect();
    let message = Frame::new_from_parts(headers, payload.to_vec());
    let mut out = Vec::new();
    write_message_to(&message, &mut out).unwrap();
    out
}

/// One `:message-type: event` frame.
pub fn event(kind: &'static str, payload: Value) -> Vec<u8> {
    frame(
        &[
            (":event-type", kind),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        &payload,
    )
}

pub fn text(index: i32, text: &str) -> Vec<u8> {
    event(
        "contentBlockDelta",
        json!({"contentBlockIndex": index, "delta": {"text": text}}),
    )
}

pub fn stop(reason: &str) -> Vec<u8> {
    event("messageStop", json!({"stopReason": reason}))
}

pub fn metadata(input: i32, output: i32) -> Vec<u8> {
    event(
        "metadata",
        json!({
            "usage": {"inputTokens": input, "outputTokens": output, "totalTokens": input + output},
            "metrics": {"latencyMs": 12}
        }),
    )
}

pub fn start() -> Vec<u8> {
    event("messageStart", json!({"role": "assistant"}))
}

pub async fn serve(response: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path_regex("^/model/[^/]+/converse-stream$"))
        .respond_with(response)
        .mount(&server)
        .await;
    server
}

pub fn stream_body(frames: &[Vec<u8>]) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(frames.concat(), "application/vnd.amazon.eventstream")
}

/// Static test credentials: the SDK signs with them, no chain is asked.
pub fn credentials() -> Credentials {
    Credentials::new("AKIDTEST", "test-secret", None, None, "oy-test")
}

/// A provider whose runtime is `server` (its control plane left unset).
pub fn provider(server: &MockServer) -> BedrockProvider {
    BedrockProvider::new(
        BedrockConfig::new("us-east-1", credentials()).with_endpoint_url(server.uri()),
    )
}

pub fn request() -> Request {
    Request {
        model: MODEL.to_owned(),
        messages: vec![Message::User {
            text: "hi".to_owned(),
        }],
        ..Request::default()
    }
}

pub async fn collect(
    server: &MockServer,
    request: &Request,
) -> (Vec<Event>, Option<ProviderError>) {
    collect_from(&provider(server), request).await
}

/// The events `provider` streams for `request`, and the error that ended
/// them, if any.
pub async fn collect_from(
    provider: &BedrockProvider,
    request: &Request,
) -> (Vec<Event>, Option<ProviderError>) {
    let mut stream = match provider.stream(request).await {
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

#[tokio::test]
async fn streams_text_usage_and_end_turn() {
    let server = serve(stream_body(&[
        start(),
        text(0, "Hel"),
        text(0, "lo"),
        event("contentBlockStop", json!({"contentBlockIndex": 0})),
        stop("end_turn"),
        metadata(11, 4),
    ]))
    .await;
    let (events, error) = collect(&server, &request()).await;
    assert_eq!(error, None);
    assert_eq!(
        events,
        vec![
            Event::TextDelta { text: "Hel".into() },
            Event::TextDelta { text: "lo".into() },
            Event::Usage {
                usage: Usage {
                    input_tokens: 11,
                    output_tokens: 4,
                    cached_input_tokens: 0
                }
            },
            Event::Finished {
                reason: StopReason::EndTurn
            },
        ]
    );
}

#[tokio::test]
async fn tool_input_split_over_deltas_becomes_one_call() {
    let server = serve(stream_body(&[
        start(),
        text(0, "Reading."),
        event("contentBlockStop", json!({"contentBlockIndex": 0})),
        event(
            "contentBlockStart",
            json!({"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "read"}}}),
        ),
        event("contentBlockDelta", json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"pa"}}})),
        event("contentBlockDelta", json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "th\":\"src/"}}})),
        event("contentBlockDelta", json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "lib.rs\"}"}}})),
        event("contentBlockStop", json!({"contentBlockIndex": 1})),
        stop("tool_use"),
        metadata(20, 9),
    ]))
    .await;
    let (events, error) = collect(&server, &request()).await;
    assert_eq!(error, None);
    let expected_call = ToolCall {
        id: "tooluse_1".into(),
        name: "read".into(),
        arguments: r#"{"path":"src/lib.rs"}"#.into(),
    };
    assert_eq!(
        events,
        vec![
            Event::TextDelta {
                text: "Reading.".into()
            },
            Event::ToolCallStarted {
                index: 0,
                id: "tooluse_1".into(),
                name: "read".into()
            },
            Event::ToolCallArgumentsDelta {
                index: 0,
                delta: "{\"pa".into()
            },
            Event::ToolCallArgumentsDelta {
                index: 0,
                delta: "th\":\"src/".into()
            },
            Event::ToolCallArgumentsDelta {
                index: 0,
                delta: "lib.rs\"}".into()
            },
            Event::ToolCallDone {
                index: 0,
                call: expected_call
            },
            Event::Usage {
                usage: Usage {
                    input_tokens: 20,
                    output_tokens: 9,
                    cached_input_tokens: 0
                }
            },
            Event::Finished {
                reason: StopReason::ToolUse
            },
        ]
    );
}

#[tokio::test]
async fn maps_stop_reasons_and_finishes_without_metadata() {
    for (wire, expected) in [
        ("max_tokens", StopReason::MaxTokens),
        ("stop_sequence", StopReason::EndTurn),
        ("content_filtered", StopReason::ContentFilter),
        ("guardrail_intervened", StopReason::ContentFilter),
        (
            "model_context_window_exceeded",
            StopReason::Other("model_context_window_exceeded".into()),
        ),
    ] {
        let server = serve(stream_body(&[start(), text(0, "x"), stop(wire)])).await;
        let (events, error) = collect(&server, &request()).await;
        assert_eq!(error, None, "{wire}");
        assert_eq!(
            events.last(),
            Some(&Event::Finished { reason: expected }),
            "{wire}"
        );
    }
}

#[tokio::test]
async fn sends_a_signed_converse_stream_request() {
    let server = serve(stream_body(&[start(), stop("end_turn"), metadata(1, 1)])).await;
    let request = Request {
        model: MODEL.to_owned(),
        instructions: Some("Be brief.".into()),
        messages: vec![
            Message::User {
                text: "read it".into(),
            },
            Message::Assistant {
                text: Some("Reading.".into()),
                tool_calls: vec![ToolCall {
                    id: "t1".into(),
                    name: "read".into(),
                    arguments: r#"{"path":"a.rs"}"#.into(),
                }],
                reasoning: None,
            },
            Message::ToolResult {
                call_id: "t1".into(),
                output: "no such file".into(),
                is_error: true,
            },
        ],
        tools: vec![ToolSchema {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        }],
        max_output_tokens: Some(256),
        temperature: Some(0.5),
        reasoning: None,
    };
    let (_, error) = collect(&server, &request).await;
    assert_eq!(error, None);

    let received = server.received_requests().await.unwrap();
    assert_eq!(received.len(), 1);
    let sent = &received[0];
    assert_eq!(
        sent.url.path(),
        "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream"
    );
    let authorization = sent.headers.get("authorization").unwrap().to_str().unwrap();
    assert!(
        authorization.starts_with("AWS4-HMAC-SHA256 Credential=AKIDTEST/"),
        "{authorization}"
    );
    assert!(authorization.contains("/us-east-1/bedrock/aws4_request"));
    let body: Value = serde_json::from_slice(&sent.body).unwrap();
    assert_eq!(
        body,
        json!({
            "messages": [
                {"role": "user", "content": [{"text": "read it"}]},
                {"role": "assistant", "content": [
                    {"text": "Reading."},
                    {"toolUse": {"toolUseId": "t1", "name": "read", "input": {"path": "a.rs"}}}
                ]},
                {"role": "user", "content": [
                    {"toolResult": {"toolUseId": "t1", "content": [{"text": "no such file"}], "status": "error"}}
                ]}
            ],
            "system": [{"text": "Be brief."}],
            "toolConfig": {"tools": [{"toolSpec": {
                "name": "read",
                "description": "Read a file",
                "inputSchema": {"json": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
            }}]},
            "inferenceConfig": {"maxTokens": 256, "temperature": 0.5}
        })
    );
}

#[tokio::test]
async fn oversized_tool_input_is_refused() {
    let big = "x".repeat(oy_provider::limits::MAX_TOOL_ARGUMENT_BYTES + 1);
    let server = serve(stream_body(&[
        start(),
        event(
            "contentBlockStart",
            json!({"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t", "name": "write"}}}),
        ),
        event("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"toolUse": {"input": big}}})),
    ]))
    .await;
    let (_, error) = collect(&server, &request()).await;
    assert_eq!(error.unwrap().kind(), ErrorKind::LimitExceeded);
}

#[tokio::test]
async fn too_many_tool_calls_are_refused() {
    let mut frames = vec![start()];
    for index in 0..=i32::try_from(oy_provider::limits::MAX_TOOL_CALLS).unwrap() {
        frames.push(event(
            "contentBlockStart",
            json!({"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": format!("t{index}"), "name": "ls"}}}),
        ));
        frames.push(event(
            "contentBlockStop",
            json!({"contentBlockIndex": index}),
        ));
    }
    let server = serve(stream_body(&frames)).await;
    let (events, error) = collect(&server, &request()).await;
    assert_eq!(error.unwrap().kind(), ErrorKind::LimitExceeded);
    assert_eq!(
        events
            .iter()
            .filter(
                |event| matches!(event, Event::ToolCallDone { call, .. } if call.arguments == "{}")
            )
            .count(),
        oy_provider::limits::MAX_TOOL_CALLS
    );
}

#[test]
fn config_debug_hides_the_secret_key() {
    let shown = format!("{:?}", BedrockConfig::new("us-east-1", credentials()));
    assert!(shown.contains("us-east-1"), "{shown}");
    assert!(!shown.contains("test-secret"), "{shown}");
}

#[tokio::test]
async fn message_stop_closes_a_tool_call_without_input() {
    let server = serve(stream_body(&[
        start(),
        event(
            "contentBlockStart",
            json!({"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t9", "name": "ls"}}}),
        ),
        stop("tool_use"),
    ]))
    .await;
    let (events, error) = collect(&server, &request()).await;
    assert_eq!(error, None);
    let call = ToolCall {
        id: "t9".into(),
        name: "ls".into(),
        arguments: "{}".into(),
    };
    assert_eq!(events[1], Event::ToolCallDone { index: 0, call });
    assert_eq!(events.len(), 3);
}

#[tokio::test]
async fn without_streaming_converse_is_replayed_as_the_same_events() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path_regex(r"^/model/.+/converse$"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "output": {"message": {"role": "assistant", "content": [
                {"text": "Reading it."},
                {"toolUse": {"toolUseId": "t1", "name": "read", "input": {"path": "a.txt", "limit": 5}}}
            ]}},
            "stopReason": "tool_use",
            "usage": {"inputTokens": 11, "outputTokens": 7, "totalTokens": 18},
            "metrics": {"latencyMs": 3}
        })))
        .mount(&server)
        .await;
    let provider = provider(&server).with_streaming(false);
    let events: Vec<Event> = provider
        .stream(&request())
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(
        events[0],
        Event::TextDelta {
            text: "Reading it.".to_owned()
        }
    );
    assert!(
        matches!(&events[1], Event::ToolCallStarted { index: 0, id, name } if id == "t1" && name == "read")
    );
    let Event::ToolCallDone { call, .. } = &events[3] else {
        panic!("{events:?}");
    };
    let arguments: Value = serde_json::from_str(&call.arguments).unwrap();
    assert_eq!(arguments, json!({"path": "a.txt", "limit": 5}));
    assert!(
        matches!(events[4], Event::Usage { usage } if usage.input_tokens == 11 && usage.output_tokens == 7)
    );
    assert_eq!(
        events[5],
        Event::Finished {
            reason: StopReason::ToolUse
        }
    );
    let sent = &server.received_requests().await.unwrap()[0];
    assert!(sent.url.path().ends_with("/converse"), "{}", sent.url);
}

#[tokio::test]
async fn a_stream_gone_silent_is_cut_at_the_idle_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        read_request_head(&mut socket).await;
        send_event_stream_chunk(&mut socket, &start()).await;
        // Then nothing more, while keeping the connection open.
        tokio::time::sleep(std::time::Duration::from_secs(10)).await;
        drop(socket);
    });
    let provider = BedrockProvider::new(
        BedrockConfig::new("us-east-1", credentials())
            .with_endpoint_url(format!("http://{address}")),
    )
    .with_idle_timeout(std::time::Duration::from_millis(300));
    let started = std::time::Instant::now();
    let mut stream = provider.stream(&request()).await.unwrap();
    let mut last = None;
    while let Some(item) = stream.next().await {
        if let Err(error) = item {
            last = Some(error);
            break;
        }
    }
    let error = last.expect("the silent stream must end in an error");
    assert_eq!(error.kind(), ErrorKind::IdleTimeout, "{error}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    server.abort();
}

/// Reads one request's head from a raw test connection (what follows
/// does not matter to the servers that use it).
pub async fn read_request_head(socket: &mut tokio::net::TcpStream) {
    use tokio::io::AsyncReadExt;
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&request).contains("\r\n\r\n") {
        let read = socket.read(&mut buffer).await.unwrap();
        request.extend_from_slice(&buffer[..read]);
    }
}

/// Answers 200 with an event stream whose first chunk is `body`, leaving
/// the chunked body unfinished: the caller closes or holds the connection.
pub async fn send_event_stream_chunk(socket: &mut tokio::net::TcpStream, body: &[u8]) {
    use tokio::io::AsyncWriteExt;
    let head = "HTTP/1.1 200 OK\r\ncontent-type: application/vnd.amazon.eventstream\r\ntransfer-encoding: chunked\r\n\r\n";
    socket.write_all(head.as_bytes()).await.unwrap();
    socket
        .write_all(format!("{:x}\r\n", body.len()).as_bytes())
        .await
        .unwrap();
    socket.write_all(body).await.unwrap();
    socket.write_all(b"\r\n").await.unwrap();
}
