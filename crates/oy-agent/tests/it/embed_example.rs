//! The embedding example (`examples/embed.rs`), built by cargo alongside
//! this test binary, run against a local wiremock server that speaks Chat
//! Completions SSE and checks each request body against OpenAI's spec.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::openai_spec::guarded_server;
use crate::support::Ws;

/// `target/<profile>/examples/embed`, built on demand if cargo did not
/// build examples for this run.
fn example_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/it-<hash> → target/<profile>
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let binary = profile_dir.join("examples").join("embed");
    if !binary.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "oy-agent", "--example", "embed"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success(), "building the example failed");
    }
    assert!(binary.exists(), "no example binary at {}", binary.display());
    binary
}

/// One SSE body: each chunk as a `data:` line, then `[DONE]`.
fn sse(chunks: &[Value]) -> String {
    let mut body = String::new();
    for chunk in chunks {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_732_000_000,
        "model": "mock-model",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        "usage": null
    })
}

fn usage(prompt: u64, completion: u64) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_732_000_000,
        "model": "mock-model", "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion}
    })
}

/// The model lists the workspace (its arguments split over two chunks).
fn list_call_body() -> String {
    sse(&[
        chunk(
            json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0,
                "id": "call_list_1", "type": "function",
                "function": {"name": "list", "arguments": ""}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\":"}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "\".\"}"}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        usage(120, 12),
    ])
}

/// The model answers in two text chunks.
fn answer_body() -> String {
    sse(&[
        chunk(
            json!({"role": "assistant", "content": "The workspace "}),
            None,
        ),
        chunk(json!({"content": "holds hello.txt."}), None),
        chunk(json!({}), Some("stop")),
        usage(200, 8),
    ])
}

fn event_stream(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/event-stream")
        .set_body_string(body)
}

/// Runs the example with `base_url`, in `ws`, off the async runtime (the
/// mock server lives on it).
async fn run_example(base_url: String, ws: &Ws, prompt: &str) -> Output {
    let mut command = Command::new(example_binary());
    command
        .arg(&ws.root)
        .arg(prompt)
        .env("OY_EXAMPLE_BASE_URL", base_url)
        .env("OY_EXAMPLE_MODEL", "mock-model")
        // Whatever key the developer has must not reach the mock.
        .env_remove("OPENAI_API_KEY");
    tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn the_embedding_example_runs_a_tool_loop_and_streams_the_answer() {
    let ws = Ws::new();
    ws.file("hello.txt", "hello\n");
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(event_stream(list_call_body()))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(event_stream(answer_body()))
        .mount(&server)
        .await;

    let output = run_example(format!("{}/v1", server.uri()), &ws, "What is here?").await;

    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert_eq!(stdout, "The workspace holds hello.txt.");
    assert!(stderr.contains("[tool list"), "{stderr}");
    assert!(stderr.contains("turn finished: Done"), "{stderr}");

    // Besides the prompts, the agent asks the server for its window.
    let requests: Vec<_> = server
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|request| request.url.path() == "/v1/chat/completions")
        .collect();
    assert_eq!(requests.len(), 2);
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(first["model"], "mock-model");
    assert!(requests[0].headers.get("authorization").is_none());
    // Plan mode: no tool that writes or runs commands is offered.
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(offered.contains(&"list"), "{offered:?}");
    assert!(
        !offered.contains(&"write") && !offered.contains(&"bash"),
        "{offered:?}"
    );
    // The second request carries the listing as the call's result.
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    let result = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "tool")
        .unwrap();
    assert_eq!(result["tool_call_id"], "call_list_1");
    assert!(
        result["content"].to_string().contains("hello.txt"),
        "{result}"
    );
}

#[tokio::test]
async fn the_embedding_example_exits_1_when_the_provider_refuses() {
    let ws = Ws::new();
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"message": "model not found"}})),
        )
        .mount(&server)
        .await;

    let output = run_example(format!("{}/v1", server.uri()), &ws, "hi").await;

    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("HTTP 400"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[tokio::test]
async fn the_embedding_example_explains_its_usage() {
    let output = tokio::task::spawn_blocking(|| {
        Command::new(example_binary())
            .env_remove("OY_EXAMPLE_BASE_URL")
            .output()
    })
    .await
    .unwrap()
    .unwrap();

    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("usage: embed"));
}
