//! A scripted model server on 127.0.0.1 speaking both OpenAI wire APIs with
//! real SSE: each request pops the next [`Step`] and is recorded. Chat
//! Completions answers stream `chat.completion.chunk`s (tool-call arguments
//! split over several chunks, a finish reason, a usage chunk, `[DONE]`);
//! Responses answers stream `response.output_item.*`,
//! `response.function_call_arguments.delta`, `response.output_text.delta`
//! and `response.completed` with usage.
//!
//! Compaction's summary request (no tools, instructions starting
//! "Summarise") is answered with [`SUMMARY`] without using a step, so a
//! script does not depend on when compaction happens. A request after the
//! script ran out gets HTTP 400 (not retried) naming the problem.
//!
//! Every request body is checked against OpenAI's spec of its API
//! (`openai_spec`); a violation fails the test when the requests are read
//! or the mock is dropped.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::openai_spec::{self, Recorder};
use crate::support::Oy;

/// The text the mock answers a compaction summary request with.
pub const SUMMARY: &str = "SUMMARY-FROM-MOCK: earlier steps listed, searched and read files.";

/// Which OpenAI wire API the mock (and `oy --wire-api`) speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Chat,
    Responses,
}

impl Wire {
    pub const BOTH: [Self; 2] = [Self::Chat, Self::Responses];

    /// The `--wire-api` value.
    pub fn flag(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Responses => "responses",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Self::Chat => "/v1/chat/completions",
            Self::Responses => "/v1/responses",
        }
    }
}

/// One tool call the mock model makes.
#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    pub args: Value,
}

/// What the mock does with one request.
#[derive(Debug, Clone)]
pub enum Step {
    /// Stream an answer: text (may be empty) then tool calls.
    Answer { text: String, calls: Vec<Call> },
    /// Answer with an HTTP error.
    Error {
        status: u16,
        retry_after: Option<String>,
    },
    /// Read the request, then close the connection without answering.
    Drop,
    /// Start streaming `text`, then close the connection before the
    /// answer is complete.
    Cut { text: String },
    /// Start streaming a call to `call`, then close the connection while
    /// its arguments are still arriving (no text was streamed).
    CutDuringCall { call: Call },
}

/// A plain text answer.
pub fn text(text: &str) -> Step {
    Step::Answer {
        text: text.to_owned(),
        calls: Vec::new(),
    }
}

/// An answer with one tool call and no text.
pub fn call(name: &str, args: Value) -> Step {
    calls(&[(name, args)])
}

/// An answer with several tool calls and no text.
pub fn calls(list: &[(&str, Value)]) -> Step {
    Step::Answer {
        text: String::new(),
        calls: list
            .iter()
            .map(|(name, args)| Call {
                name: (*name).to_owned(),
                args: args.clone(),
            })
            .collect(),
    }
}

/// An answer with text and one tool call.
pub fn text_and_call(said: &str, name: &str, args: Value) -> Step {
    Step::Answer {
        text: said.to_owned(),
        calls: vec![Call {
            name: name.to_owned(),
            args,
        }],
    }
}

/// An HTTP error, with an optional `Retry-After` header.
pub fn error(status: u16, retry_after: Option<&str>) -> Step {
    Step::Error {
        status,
        retry_after: retry_after.map(str::to_owned),
    }
}

#[derive(Default)]
struct State {
    steps: VecDeque<Step>,
    /// What `GET /v1/models` lists; `None` answers 404 like a bare server.
    models: Option<Vec<String>>,
    requests: Vec<Value>,
    paths: Vec<String>,
    headers: Vec<Vec<(String, String)>>,
    answered: usize,
    /// What `GET /props` says the slot context is, as llama.cpp's server
    /// does; `None` answers 404 like a server with no such endpoint.
    props_n_ctx: Option<u64>,
    /// Paths the agent or the audit asked for the context window.
    window_probes: Vec<String>,
    /// How long each prompt waits before its answer starts, as a model
    /// that thinks.
    delay: std::time::Duration,
}

/// A running mock; stops listening when dropped.
pub struct MockModel {
    pub base_url: String,
    pub wire: Wire,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    port: u16,
    spec: Recorder,
}

/// Starts a mock for `wire` that plays `steps` in order.
pub fn start(wire: Wire, steps: Vec<Step>) -> MockModel {
    start_listing(wire, steps, None)
}

/// As [`start`], also answering `GET /v1/models` with `models`.
pub fn start_listing(wire: Wire, steps: Vec<Step>, models: Option<&[&str]>) -> MockModel {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let state = Arc::new(Mutex::new(State {
        steps: steps.into(),
        models: models.map(|ids| ids.iter().map(|id| (*id).to_owned()).collect()),
        ..State::default()
    }));
    let stop = Arc::new(AtomicBool::new(false));
    let spec = Recorder::default();
    let (shared, stopping, checked) = (Arc::clone(&state), Arc::clone(&stop), spec.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if stopping.load(Ordering::SeqCst) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let (shared, checked) = (Arc::clone(&shared), checked.clone());
            std::thread::spawn(move || serve(stream, wire, &shared, &checked));
        }
    });
    MockModel {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        wire,
        state,
        stop,
        port,
        spec,
    }
}

impl MockModel {
    /// Waits `delay` before answering each prompt.
    pub fn with_delay(self, delay: std::time::Duration) -> Self {
        self.state.lock().unwrap().delay = delay;
        self
    }

    /// Answers `GET /props` as a llama.cpp server started with `n_ctx` per slot.
    pub fn with_props(self, n_ctx: u64) -> Self {
        self.state.lock().unwrap().props_n_ctx = Some(n_ctx);
        self
    }

    /// The context-window questions received (paths without the query).
    pub fn window_probes(&self) -> Vec<String> {
        self.state.lock().unwrap().window_probes.clone()
    }

    /// Every request body received so far (summary requests included), in order.
    pub fn requests(&self) -> Vec<Value> {
        self.spec.assert_clean();
        self.state.lock().unwrap().requests.clone()
    }

    /// The request paths, in order.
    pub fn paths(&self) -> Vec<String> {
        self.spec.assert_clean();
        self.state.lock().unwrap().paths.clone()
    }

    /// Requests that were not compaction summaries.
    pub fn turn_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|request| !is_summary_request(request))
            .collect()
    }

    /// The headers of each request (names lowercased), in order.
    pub fn headers(&self) -> Vec<Vec<(String, String)>> {
        self.spec.assert_clean();
        self.state.lock().unwrap().headers.clone()
    }

    /// Scripted steps not used yet.
    pub fn steps_left(&self) -> usize {
        self.state.lock().unwrap().steps.len()
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so its thread ends.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        self.spec.assert_clean_on_drop();
    }
}

fn serve(mut stream: TcpStream, wire: Wire, state: &Mutex<State>, spec: &Recorder) {
    let Some((path, headers, body)) = read_request(&stream) else {
        return;
    };
    let bare = path.split('?').next().unwrap_or_default();
    if bare == "/props" || bare.starts_with("/api/") {
        // The window probes (llama.cpp, Ollama, LM Studio): not prompts.
        let props = {
            let mut state = state.lock().unwrap();
            state.window_probes.push(bare.to_owned());
            state.props_n_ctx
        };
        let reply = match props {
            Some(n_ctx) if bare == "/props" => http(
                200,
                &[],
                "application/json",
                &json!({"default_generation_settings": {"n_ctx": n_ctx}, "total_slots": 1})
                    .to_string(),
            ),
            _ => http(
                404,
                &[],
                "application/json",
                &error_body("no such endpoint"),
            ),
        };
        let _ = stream.write_all(&reply);
        let _ = stream.flush();
        return;
    }
    if path == "/v1/models" {
        let listed = state.lock().unwrap().models.clone();
        let reply = match listed {
            Some(ids) => {
                let data: Vec<Value> = ids
                    .iter()
                    .map(|id| json!({"id": id, "object": "model", "owned_by": "mock"}))
                    .collect();
                http(
                    200,
                    &[],
                    "application/json",
                    &json!({"object": "list", "data": data}).to_string(),
                )
            }
            None => http(
                404,
                &[],
                "application/json",
                &error_body("no model listing"),
            ),
        };
        let _ = stream.write_all(&reply);
        let _ = stream.flush();
        return;
    }
    let request = openai_spec::parse_body(&body);
    spec.record(&path, &request);
    let step = {
        let mut state = state.lock().unwrap();
        state.requests.push(request.clone());
        state.paths.push(path.clone());
        state.headers.push(headers);
        if path != wire.path() {
            None
        } else if is_summary_request(&request) {
            Some(text(SUMMARY))
        } else {
            state.answered += 1;
            state.steps.pop_front()
        }
    };
    let (id, delay) = {
        let state = state.lock().unwrap();
        (state.requests.len(), state.delay)
    };
    std::thread::sleep(delay);
    let reply = match step {
        None if path != wire.path() => http(
            404,
            &[],
            "application/json",
            &error_body(&format!(
                "mock model: unexpected path {path}, expected {}",
                wire.path()
            )),
        ),
        None => http(
            400,
            &[],
            "application/json",
            &error_body("mock model: the script ran out of steps"),
        ),
        Some(Step::Drop) => {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
        Some(Step::Cut { text }) => {
            let sse = match wire {
                Wire::Chat => chat_sse(id, &text, &[]),
                Wire::Responses => responses_sse(id, &text, &[]),
            };
            // Everything up to the last text piece: no finish, no usage.
            let kept: Vec<String> = sse
                .into_iter()
                .take_while(|event| {
                    !event.contains("finish_reason\":\"stop")
                        && !event.starts_with("event: response.output_text.done")
                })
                .collect();
            send_cut(&mut stream, &kept);
            return;
        }
        Some(Step::CutDuringCall { call }) => {
            let sse = match wire {
                Wire::Chat => chat_sse(id, "", std::slice::from_ref(&call)),
                Wire::Responses => responses_sse(id, "", std::slice::from_ref(&call)),
            };
            // Up to the call's end, less its last argument piece.
            let mut kept: Vec<String> = sse
                .into_iter()
                .take_while(|event| {
                    !event.contains("finish_reason\":\"tool_calls")
                        && !event.starts_with("event: response.function_call_arguments.done")
                })
                .collect();
            kept.pop();
            send_cut(&mut stream, &kept);
            return;
        }
        Some(Step::Error {
            status,
            retry_after,
        }) => {
            let headers: Vec<(&str, &str)> = retry_after
                .as_deref()
                .map(|value| vec![("Retry-After", value)])
                .unwrap_or_default();
            http(
                status,
                &headers,
                "application/json",
                &error_body(&format!("mock model: scripted HTTP {status}")),
            )
        }
        Some(Step::Answer { text, calls }) => {
            let sse = match wire {
                Wire::Chat => chat_sse(id, &text, &calls),
                Wire::Responses => responses_sse(id, &text, &calls),
            };
            http(200, &[], "text/event-stream", &sse.concat())
        }
    };
    let _ = stream.write_all(&reply);
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Write);
}

/// A 200 streaming `events`, then the connection closed mid-answer.
fn send_cut(stream: &mut TcpStream, events: &[String]) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(events.concat().as_bytes());
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Both);
}

type Headers = Vec<(String, String)>;

/// The path, headers and body of one HTTP/1.1 request.
fn read_request(stream: &TcpStream) -> Option<(String, Headers, Vec<u8>)> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut length = 0usize;
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            if name == "content-length" {
                length = value.trim().parse().ok()?;
            }
            headers.push((name, value.trim().to_owned()));
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((path, headers, body))
}

fn http(status: u16, headers: &[(&str, &str)], kind: &str, body: &str) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

fn error_body(message: &str) -> String {
    json!({"error": {"message": message, "type": "mock_error", "code": null}}).to_string()
}

/// `text` in pieces of about `size` characters (at least one piece).
fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars
        .chunks(size)
        .map(|chunk| chunk.iter().collect())
        .collect()
}

/// The SSE events (each with its blank line) of a Chat Completions answer.
fn chat_sse(id: usize, text: &str, calls: &[Call]) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let value = json!({
            "id": format!("chatcmpl-mock{id}"),
            "object": "chat.completion.chunk",
            "created": 1_732_000_000,
            "model": "mock-model",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
            "usage": null,
        });
        format!("data: {value}\n\n")
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    if !text.is_empty() {
        for piece in pieces(text, 5) {
            out.push(chunk(json!({"content": piece}), Value::Null));
        }
    }
    for (index, call) in calls.iter().enumerate() {
        out.push(chunk(
            json!({"tool_calls": [{
                "index": index,
                "id": format!("call_{id}_{index}"),
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }]}),
            Value::Null,
        ));
        for piece in pieces(&call.args.to_string(), 7) {
            out.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    out.push(chunk(json!({}), json!(finish)));
    let usage = json!({
        "id": format!("chatcmpl-mock{id}"),
        "object": "chat.completion.chunk",
        "created": 1_732_000_000,
        "model": "mock-model",
        "choices": [],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
    });
    out.push(format!("data: {usage}\n\n"));
    out.push("data: [DONE]\n\n".to_owned());
    out
}

/// The SSE events (each with its blank line) of a Responses answer.
fn responses_sse(id: usize, text: &str, calls: &[Call]) -> Vec<String> {
    let mut sequence = 0;
    let mut out = Vec::new();
    let mut event = |kind: &str, mut value: Value| {
        value["type"] = json!(kind);
        value["sequence_number"] = json!(sequence);
        sequence += 1;
        out.push(format!("event: {kind}\ndata: {value}\n\n"));
    };
    let response_id = format!("resp_mock{id}");
    let response = |status: &str, output: Value, usage: Value| {
        json!({
            "id": response_id,
            "object": "response",
            "created_at": 1_741_290_958,
            "status": status,
            "error": null,
            "incomplete_details": null,
            "model": "mock-model",
            "output": output,
            "usage": usage,
        })
    };
    event(
        "response.created",
        json!({"response": response("in_progress", json!([]), Value::Null)}),
    );
    let mut output = Vec::new();
    if !text.is_empty() {
        let index = output.len();
        let item_id = format!("msg_{id}");
        event(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}}),
        );
        event(
            "response.content_part.added",
            json!({"item_id": item_id, "output_index": index, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
        );
        for piece in pieces(text, 5) {
            event(
                "response.output_text.delta",
                json!({"item_id": item_id, "output_index": index, "content_index": 0, "delta": piece, "logprobs": []}),
            );
        }
        event(
            "response.output_text.done",
            json!({"item_id": item_id, "output_index": index, "content_index": 0, "text": text, "logprobs": []}),
        );
        let item = json!({"id": item_id, "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": text, "annotations": []}]});
        event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        output.push(item);
    }
    for (number, call) in calls.iter().enumerate() {
        let index = output.len();
        let item_id = format!("fc_{id}_{number}");
        let call_id = format!("call_{id}_{number}");
        let arguments = call.args.to_string();
        event(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id, "name": call.name}}),
        );
        for piece in pieces(&arguments, 7) {
            event(
                "response.function_call_arguments.delta",
                json!({"item_id": item_id, "output_index": index, "delta": piece}),
            );
        }
        event(
            "response.function_call_arguments.done",
            json!({"item_id": item_id, "output_index": index, "arguments": arguments}),
        );
        let item = json!({"id": item_id, "type": "function_call", "status": "completed", "arguments": arguments, "call_id": call_id, "name": call.name});
        event(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        output.push(item);
    }
    let usage = json!({"input_tokens": 120, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 150});
    event(
        "response.completed",
        json!({"response": response("completed", Value::Array(output), usage)}),
    );
    out
}

// ---- reading recorded requests, whichever wire they came on ----

/// The request's instructions: Responses `instructions`, or the Chat
/// Completions system/developer message.
pub fn instructions(request: &Value) -> Option<String> {
    if let Some(text) = request.get("instructions").and_then(Value::as_str) {
        return Some(text.to_owned());
    }
    let first = request.get("messages")?.as_array()?.first()?;
    match first.get("role").and_then(Value::as_str) {
        Some("system" | "developer") => first
            .get("content")
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    }
}

/// The names of the tools the request offers.
pub fn tool_names(request: &Value) -> Vec<String> {
    request
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| {
                    tool.get("name")
                        .or_else(|| tool.get("function").and_then(|f| f.get("name")))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// True for compaction's summary request: no tools, instructions
/// starting "Summarise".
pub fn is_summary_request(request: &Value) -> bool {
    tool_names(request).is_empty()
        && instructions(request).is_some_and(|text| text.starts_with("Summarise"))
}

/// The tool results the request carries, in order.
pub fn tool_outputs(request: &Value) -> Vec<String> {
    let mut outputs = Vec::new();
    for message in request
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if message.get("role").and_then(Value::as_str) == Some("tool") {
            outputs.push(content_text(message.get("content")));
        }
    }
    for item in request
        .get("input")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if item.get("type").and_then(Value::as_str) == Some("function_call_output") {
            outputs.push(content_text(item.get("output")));
        }
    }
    outputs
}

/// The user messages the request carries, in order.
pub fn user_texts(request: &Value) -> Vec<String> {
    let messages = request
        .get("messages")
        .or_else(|| request.get("input"))
        .and_then(Value::as_array);
    messages
        .into_iter()
        .flatten()
        .filter(|message| message.get("role").and_then(Value::as_str) == Some("user"))
        .map(|message| content_text(message.get("content")))
        .collect()
}

/// The assistant texts the request carries, in order.
pub fn assistant_texts(request: &Value) -> Vec<String> {
    let messages = request
        .get("messages")
        .or_else(|| request.get("input"))
        .and_then(Value::as_array);
    messages
        .into_iter()
        .flatten()
        .filter(|message| message.get("role").and_then(Value::as_str) == Some("assistant"))
        .map(|message| content_text(message.get("content")))
        .filter(|text| !text.is_empty())
        .collect()
}

/// Text of a content field: a string, or an array of parts with `text`.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

// ---- running `oy` against the mock ----

/// The outcome of one `oy` run.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// `oy` with the environment pointed at `mock` and nothing that could
/// reach a real provider: no API keys, no AWS, no proxies, a private HOME.
pub fn oy_command(oy: &Oy, mock: &MockModel) -> Command {
    let mut cmd = oy.command();
    isolate(&mut cmd, oy);
    cmd.env("OPENAI_BASE_URL", &mock.base_url)
        .env("OY_WIRE_API", mock.wire.flag());
    cmd
}

/// Clears the environment that could reach a real provider and gives the
/// child a private HOME.
pub fn isolate(cmd: &mut Command, oy: &Oy) {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("AWS_")
            || name.starts_with("OPENAI_")
            || name.to_ascii_lowercase().ends_with("_proxy")
        {
            cmd.env_remove(&name);
        }
    }
    let home = oy.root.parent().unwrap().join("home");
    std::fs::create_dir_all(&home).unwrap();
    cmd.env("HOME", &home)
        .env_remove("OY_MODEL")
        .env_remove("OY_PROVIDER")
        .env_remove("OY_WIRE_API")
        .env_remove("OY_ENV_ALLOW")
        .env_remove("OY_MAX_TURNS");
}

/// Runs `oy run --model mock-model --wire-api W ARGS…` against `mock`.
pub fn run(oy: &Oy, mock: &MockModel, args: &[&str]) -> Ran {
    run_with_stdin(oy, mock, args, None)
}

/// `oy run --model mock-model --wire-api W`, to add arguments to.
pub fn run_command(oy: &Oy, mock: &MockModel) -> Command {
    let mut cmd = oy_command(oy, mock);
    cmd.args([
        "run",
        "--model",
        "mock-model",
        "--wire-api",
        mock.wire.flag(),
    ]);
    cmd
}

/// As [`run`], with `stdin` piped in (closed when `None`).
pub fn run_with_stdin(oy: &Oy, mock: &MockModel, args: &[&str], stdin: Option<&str>) -> Ran {
    let mut cmd = run_command(oy, mock);
    cmd.args(args);
    let output = crate::support::output_with_stdin(&mut cmd, stdin);
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}
