//! Fuzz targets `sse` and `eventstream`: whole answers a hostile or broken
//! server could send, through the real backends against one local wiremock
//! server whose body each case sets. `sse`: Chat Completions and Responses
//! over server-sent events (the recorded fixtures mutated, and event
//! streams built from JSON chunk templates with extreme values).
//! `eventstream`: Bedrock's ConverseStream in AWS event-stream framing
//! (frames built from the event kinds the decoder knows and some it does
//! not, then the bytes mutated: lengths, CRCs, headers). The properties: no
//! panic, no hang, an error is typed and ends the stream, and at most one
//! `Finished`, which is the last event.

use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use oy_provider::{
    Event, Message, OpenAiChatProvider, OpenAiConfig, OpenAiResponsesProvider, Provider, Request,
};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Respond, ResponseTemplate};

use crate::fuzz::{fuzz, mutated_text};

/// Serves whatever body the current case put in.
#[derive(Clone, Default)]
struct Body(Arc<Mutex<(Vec<u8>, &'static str)>>);

impl Respond for Body {
    fn respond(&self, _: &wiremock::Request) -> ResponseTemplate {
        let (body, mime) = self.0.lock().unwrap().clone();
        ResponseTemplate::new(200).set_body_raw(body, mime)
    }
}

impl Body {
    fn set(&self, body: Vec<u8>, mime: &'static str) {
        *self.0.lock().unwrap() = (body, mime);
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn server(body: &Body) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(body.clone())
        .mount(&server)
        .await;
    server
}

fn request(model: &str) -> Request {
    Request {
        model: model.to_owned(),
        messages: vec![Message::User {
            text: "hi".to_owned(),
        }],
        ..Request::default()
    }
}

/// Streams one answer to its end and checks the stream's own rules.
async fn check_stream(provider: &dyn Provider, request: &Request) -> Result<(), TestCaseError> {
    let mut stream = match provider.stream(request).await {
        Ok(stream) => stream,
        // Refused before streaming (a status, a body that is not a stream).
        Err(_) => return Ok(()),
    };
    let mut finished = false;
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => {
                prop_assert!(!finished, "an event after Finished: {:?}", event);
                finished = matches!(event, Event::Finished { .. });
            }
            Err(_) => {
                prop_assert!(stream.next().await.is_none(), "an item after the error");
                return Ok(());
            }
        }
    }
    Ok(())
}

const CHAT_SEEDS: &[&str] = &[
    include_str!("../fixtures/chat/content_and_finish.sse"),
    include_str!("../fixtures/chat/cut_mid_event.sse"),
    include_str!("../fixtures/chat/empty_choices.sse"),
    include_str!("../fixtures/chat/malformed_arguments.sse"),
    include_str!("../fixtures/chat/missing_ids.sse"),
    include_str!("../fixtures/chat/ollama_tools.sse"),
    include_str!("../fixtures/chat/parallel_tools.sse"),
    include_str!("../fixtures/chat/text.sse"),
    include_str!("../fixtures/chat/tool_args_split.sse"),
];

const RESPONSES_SEEDS: &[&str] = &[
    include_str!("../fixtures/responses/error_event.sse"),
    include_str!("../fixtures/responses/failed.sse"),
    include_str!("../fixtures/responses/function_call.sse"),
    include_str!("../fixtures/responses/incomplete_max_tokens.sse"),
    include_str!("../fixtures/responses/no_completed.sse"),
    include_str!("../fixtures/responses/reasoning.sse"),
    include_str!("../fixtures/responses/text.sse"),
    include_str!("../fixtures/responses/text_and_function_call.sse"),
    include_str!("../fixtures/responses/two_function_calls.sse"),
];

const SSE_DICTIONARY: &[&str] = &[
    "\n",
    "\r\n",
    "\n\n",
    "data: ",
    "event: ",
    ": keep-alive\n\n",
    "data: [DONE]\n\n",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "null",
    "-1",
    "2147483648",
    "18446744073709551616",
    "1e309",
    "\"index\":",
    "\"tool_calls\":",
    "\"arguments\":",
    "\"finish_reason\":\"tool_calls\"",
    "\"output_index\":",
    "\"type\":\"response.completed\"",
    "\"type\":\"response.output_item.added\"",
    "\"delta\":",
    "\\u0000",
    "\\ud800",
    "\u{ff}",
];

/// One Chat Completions chunk from a template, with extreme values.
fn chat_chunk() -> impl Strategy<Value = String> {
    let index = select(vec![0i64, 1, 2, -1, 63, 64, 4096, i64::MAX]);
    let text = select(vec!["x", "", "\u{1b}[2J", "{\"a\":", "}"]);
    let finish = select(vec![
        "stop",
        "length",
        "tool_calls",
        "content_filter",
        "weird",
        "",
    ]);
    prop_oneof![
        text.clone().prop_map(|t| json!({"choices":[{"index":0,"delta":{"content":t}}]}).to_string()),
        (index.clone(), select(vec![Some("call_1"), Some(""), None]), text).prop_map(
            |(i, id, args)| {
                json!({"choices":[{"index":0,"delta":{"tool_calls":[
                    {"index":i,"id":id,"type":"function","function":{"name":"read","arguments":args}}
                ]}}]})
                .to_string()
            }
        ),
        finish.prop_map(|f| json!({"choices":[{"index":0,"delta":{},"finish_reason":f}]}).to_string()),
        index.prop_map(|n| json!({"choices":[],"usage":{"prompt_tokens":n,"completion_tokens":n}}).to_string()),
        Just("[DONE]".to_owned()),
        Just("{}".to_owned()),
    ]
}

/// One Responses event from a template.
fn responses_event() -> impl Strategy<Value = String> {
    let index = select(vec![0i64, 1, -1, 63, 4096, i64::MAX]);
    let kind = select(vec![
        "response.output_text.delta",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.output_item.done",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "error",
        "response.unknown",
    ]);
    (kind, index, select(vec!["x", "", "{", "\u{0}"])).prop_map(|(kind, index, text)| {
        json!({
            "type": kind,
            "output_index": index,
            "delta": text,
            "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": text},
            "response": {"status": "completed", "usage": {"input_tokens": index, "output_tokens": 1}},
        })
        .to_string()
    })
}

/// An SSE body from events, each with an optional `event:` line.
fn framed(events: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    prop::collection::vec(
        (prop::option::of(select(vec!["message", "x"])), events),
        0..10,
    )
    .prop_map(|events| {
        let mut out = String::new();
        for (name, data) in events {
            if let Some(name) = name {
                out.push_str(&format!("event: {name}\n"));
            }
            out.push_str(&format!("data: {data}\n\n"));
        }
        out
    })
}

#[test]
fn fuzz_sse_answers() {
    let runtime = runtime();
    let body = Body::default();
    let server = runtime.block_on(server(&body));
    let config = OpenAiConfig::new(format!("{}/v1", server.uri()));
    let chat = OpenAiChatProvider::new(config.clone()).unwrap();
    let responses = OpenAiResponsesProvider::new(config).unwrap();
    let bodies = prop_oneof![
        (Just(true), mutated_text(CHAT_SEEDS, SSE_DICTIONARY, 6)),
        (Just(true), framed(chat_chunk())),
        (
            Just(false),
            mutated_text(RESPONSES_SEEDS, SSE_DICTIONARY, 6)
        ),
        (Just(false), framed(responses_event())),
    ];
    fuzz("sse", 150, bodies, |(is_chat, text)| {
        body.set(text.into_bytes(), "text/event-stream");
        let provider: &dyn Provider = if is_chat { &chat } else { &responses };
        runtime.block_on(check_stream(provider, &request("m")))
    });
}

#[cfg(feature = "bedrock")]
mod eventstream {
    use aws_smithy_eventstream::frame::write_message_to;
    use aws_smithy_types::event_stream::{Header, HeaderValue, Message as Frame};
    use oy_provider::{BedrockConfig, BedrockProvider};
    use proptest::prelude::*;
    use proptest::sample::select;
    use serde_json::{Value, json};

    use super::{Body, check_stream, request, runtime, server};
    use crate::fuzz::{Bytes, fuzz, mutated};

    /// One frame's parts: headers (name, value) and payload.
    type Parts = (Vec<(String, String)>, Vec<u8>);

    fn frame(parts: &Parts) -> Vec<u8> {
        let headers = parts
            .0
            .iter()
            .map(|(name, value)| {
                Header::new(name.clone(), HeaderValue::String(value.clone().into()))
            })
            .collect();
        let mut out = Vec::new();
        write_message_to(&Frame::new_from_parts(headers, parts.1.clone()), &mut out).unwrap();
        out
    }

    fn payload(kind: &str, index: i64, text: &str) -> Value {
        match kind {
            "messageStart" => json!({"role": "assistant"}),
            "contentBlockStart" => json!({"contentBlockIndex": index,
                "start": {"toolUse": {"toolUseId": "tu_1", "name": "read"}}}),
            "contentBlockDelta" => json!({"contentBlockIndex": index,
                "delta": if index % 2 == 0 { json!({"text": text}) } else { json!({"toolUse": {"input": text}}) }}),
            "contentBlockStop" => json!({"contentBlockIndex": index}),
            "messageStop" => json!({"stopReason": text}),
            "metadata" => {
                json!({"usage": {"inputTokens": index, "outputTokens": index, "totalTokens": index},
                "metrics": {"latencyMs": 1}})
            }
            _ => json!({"message": text}),
        }
    }

    fn parts() -> impl Strategy<Value = Parts> {
        let kind = select(vec![
            "messageStart",
            "contentBlockStart",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata",
            "throttlingException",
            "validationException",
            "somethingNew",
        ]);
        let index = select(vec![
            0i64,
            1,
            2,
            -1,
            2_147_483_647,
            2_147_483_648,
            -2_147_483_649,
        ]);
        let text = select(vec![
            "hi",
            "",
            "end_turn",
            "tool_use",
            "max_tokens",
            "{\"a\":",
            "1}",
            "\u{1b}]0;x\u{7}",
        ]);
        let message_type = select(vec!["event", "exception", "error", "weird"]);
        let content_type = select(vec!["application/json", "text/plain", ""]);
        (kind, index, text, message_type, content_type, any::<bool>()).prop_map(
            |(kind, index, text, message_type, content_type, drop_type)| {
                let mut headers = vec![
                    (
                        if message_type == "exception" {
                            ":exception-type"
                        } else {
                            ":event-type"
                        }
                        .to_owned(),
                        kind.to_owned(),
                    ),
                    (":content-type".to_owned(), content_type.to_owned()),
                    (":message-type".to_owned(), message_type.to_owned()),
                ];
                if drop_type {
                    headers.remove(0);
                }
                (headers, payload(kind, index, text).to_string().into_bytes())
            },
        )
    }

    const DICTIONARY: &[&str] = &[
        "\0\0\0\0",
        "\u{7f}\u{7f}\u{7f}\u{7f}",
        ":event-type",
        "\u{7}",
        "{",
        "}",
    ];

    #[test]
    fn fuzz_eventstream_answers() {
        let runtime = runtime();
        let body = Body::default();
        let server = runtime.block_on(server(&body));
        let provider = BedrockProvider::new(
            BedrockConfig::new(
                "us-east-1",
                aws_sdk_bedrockruntime::config::Credentials::new(
                    "AKIDTEST",
                    "test-secret",
                    None,
                    None,
                    "oy-test",
                ),
            )
            .with_endpoint_url(server.uri()),
        );
        let streams = || {
            prop::collection::vec(parts(), 0..8)
                .prop_map(|frames| frames.iter().map(frame).collect::<Vec<_>>().concat())
        };
        // Well-formed streams, then their bytes mutated: lengths, CRCs, headers.
        let inputs = prop_oneof![
            3 => streams(),
            2 => streams().prop_flat_map(|bytes| mutated(vec![bytes], DICTIONARY, 6)),
        ];
        fuzz(
            "eventstream",
            100,
            inputs.prop_map(Bytes),
            |Bytes(bytes)| {
                body.set(bytes, "application/vnd.amazon.eventstream");
                runtime.block_on(check_stream(
                    &provider,
                    &request("anthropic.claude-3-haiku-20240307-v1:0"),
                ))
            },
        );
    }
}
