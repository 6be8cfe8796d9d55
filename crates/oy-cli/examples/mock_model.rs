//! A scripted OpenAI-compatible model server on loopback: it answers Chat
//! Completions with a fixed 10-step task (nine tool calls, then a final
//! answer) as streamed SSE, with no artificial latency, and records when each
//! request arrived and how big it was. `cargo xtask bench agent` runs `oy`
//! against it; it is also handy for trying `oy` without a real model.
//!
//! ```text
//! mock_model [REPORT.json] [--keep-serving]
//!
//! cargo run --release -p oy-cli --example mock_model -- /tmp/report.json
//! # prints `listening on PORT` first; then, in a scratch directory:
//! OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 oy run --mode auto --model mock --wire-api chat "go"
//! ```
//!
//! The step is the number of assistant messages already in the request, so a
//! retried request gets the same answer and a new conversation starts over.
//! The script lists, searches, reads `src/main.rs`, counts lines, writes
//! `notes/bench.txt`, reads it, edits it, runs `true` and sets a plan.
//!
//! Routes: `POST …/chat/completions`, `GET …/models`, and `…/shutdown`.
//! After the final answer (unless `--keep-serving`) or on `/shutdown`, it
//! writes the report — per request: path, step, arrival (ms since the server
//! started and unix ms), body bytes, whether it carries a failed tool result,
//! and when the answer was fully sent — to REPORT (or stdout) and exits.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line helper: the port and the report are its output"
)]

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// Tool-call arguments are sent in pieces of about this many bytes, as real
/// servers stream them, so the client's reassembly is part of the work.
const ARGUMENT_PIECE: usize = 16;

/// One scripted answer.
enum Step {
    Tool(&'static str, &'static str),
    Text(&'static str),
}

const SCRIPT: [Step; 10] = [
    Step::Tool("list", r#"{"path":".","depth":2}"#),
    Step::Tool("search", r#"{"pattern":"fn main","literal":true}"#),
    Step::Tool("read", r#"{"path":"src/main.rs"}"#),
    Step::Tool("sloc", r#"{"path":"."}"#),
    Step::Tool(
        "write",
        r#"{"path":"notes/bench.txt","content":"hello from the mock model\nsecond line\n"}"#,
    ),
    Step::Tool("read", r#"{"path":"notes/bench.txt"}"#),
    Step::Tool(
        "replace",
        r#"{"path":"notes/bench.txt","old":"hello","new":"goodbye"}"#,
    ),
    Step::Tool("bash", r#"{"command":"true"}"#),
    Step::Tool(
        "todo",
        r#"{"items":[{"text":"benchmark the agent loop","status":"done"}]}"#,
    ),
    Step::Text("All ten steps are done: the note was written, edited and checked."),
];

/// What the report holds about one request.
struct Record {
    path: String,
    step: Option<usize>,
    arrived_ms: f64,
    arrived_unix_ms: f64,
    body_bytes: usize,
    /// The request carries a failed tool result: the script no longer fits
    /// the workspace or the tools.
    tool_error: bool,
    answered_ms: f64,
}

struct Server {
    started: Instant,
    started_unix_ms: f64,
    records: Mutex<Vec<Record>>,
    keep_serving: bool,
    /// Tells `main` to write the report and exit.
    done: Mutex<Sender<()>>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let keep_serving = args.iter().any(|arg| arg == "--keep-serving");
    let report = args.iter().find(|arg| !arg.starts_with("--")).cloned();
    match serve(report, keep_serving) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mock_model: {error}");
            ExitCode::FAILURE
        }
    }
}

fn serve(report: Option<String>, keep_serving: bool) -> io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let (done, finished) = channel();
    let server = Arc::new(Server {
        started: Instant::now(),
        started_unix_ms: unix_ms(),
        records: Mutex::new(Vec::new()),
        keep_serving,
        done: Mutex::new(done),
    });
    println!("listening on {}", listener.local_addr()?.port());
    io::stdout().flush()?;

    let accepting = server.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let server = accepting.clone();
            // A thread per connection: clients keep connections alive and
            // may open several; the request count is tiny.
            std::thread::spawn(move || {
                if let Err(error) = connection(stream, &server) {
                    eprintln!("mock_model: connection: {error}");
                }
            });
        }
    });

    // Either the final step was answered or `/shutdown` was asked for; a
    // closed channel cannot happen while `server` holds the sender.
    let _ = finished.recv();
    let text = report_json(&server);
    match report {
        Some(path) => {
            #[expect(
                clippy::disallowed_methods,
                reason = "the report goes where the caller asked, not into a workspace"
            )]
            std::fs::write(&path, text)?;
        }
        None => println!("{text}"),
    }
    Ok(())
}

/// Serves requests on one keep-alive connection until the client closes it.
fn connection(stream: TcpStream, server: &Server) -> io::Result<()> {
    // Without this, Nagle's algorithm holds back the small SSE writes and
    // adds latency that is not the client's.
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line)? == 0 {
            return Ok(());
        }
        let arrived_ms = server.started.elapsed().as_secs_f64() * 1000.0;
        let arrived_unix_ms = unix_ms();
        let mut parts = request_line.split_whitespace();
        let method = parts.next().unwrap_or_default().to_owned();
        let path = parts.next().unwrap_or_default().to_owned();

        let mut content_length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 {
                return Ok(());
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                content_length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; content_length];
        reader.read_exact(&mut body)?;

        let mut step = None;
        let mut tool_error = false;
        let mut finished = false;
        if path.ends_with("/shutdown") {
            respond(&mut writer, "200 OK", "text/plain", "bye\n")?;
            finished = true;
        } else if method == "GET" && path.ends_with("/models") {
            let models = json!({"object": "list", "data": [
                {"id": "mock", "object": "model", "created": 0, "owned_by": "mock_model"}
            ]});
            respond(
                &mut writer,
                "200 OK",
                "application/json",
                &models.to_string(),
            )?;
        } else if method == "POST" && path.ends_with("/chat/completions") {
            match serde_json::from_slice::<Value>(&body) {
                Ok(request) => {
                    let index = step_of(&request);
                    tool_error = last_tool_failed(&request);
                    stream_step(&mut writer, index, &request)?;
                    step = Some(index);
                    finished = index + 1 == SCRIPT.len() && !server.keep_serving;
                }
                Err(error) => {
                    let message = json!({"error": {"message": format!("invalid JSON: {error}")}});
                    respond(
                        &mut writer,
                        "400 Bad Request",
                        "application/json",
                        &message.to_string(),
                    )?;
                }
            }
        } else {
            respond(&mut writer, "404 Not Found", "text/plain", "not found\n")?;
        }

        let record = Record {
            path,
            step,
            arrived_ms,
            arrived_unix_ms,
            body_bytes: body.len(),
            tool_error,
            answered_ms: server.started.elapsed().as_secs_f64() * 1000.0,
        };
        if let Ok(mut records) = server.records.lock() {
            records.push(record);
        }
        if finished && let Ok(done) = server.done.lock() {
            let _ = done.send(());
        }
    }
}

/// The step to answer: how many assistant turns the conversation already has.
fn step_of(request: &Value) -> usize {
    let messages = request["messages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let answered = messages
        .iter()
        .filter(|message| message["role"] == "assistant")
        .count();
    answered.min(SCRIPT.len() - 1)
}

/// Whether the newest message is a tool result that reports a failure.
fn last_tool_failed(request: &Value) -> bool {
    let last = request["messages"]
        .as_array()
        .and_then(|messages| messages.last());
    last.is_some_and(|message| {
        message["role"] == "tool"
            && message["content"]
                .as_str()
                .is_some_and(|content| content.starts_with("TOOL_ERROR"))
    })
}

/// Streams one scripted answer as Chat Completions chunks, then `[DONE]`.
fn stream_step(writer: &mut TcpStream, index: usize, request: &Value) -> io::Result<()> {
    let model = request["model"].as_str().unwrap_or("mock");
    let id = format!("chatcmpl-mock-{index}");
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({
            "id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
        })
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    match &SCRIPT[index] {
        Step::Tool(name, arguments) => {
            events.push(chunk(
                json!({"tool_calls": [{"index": 0, "id": format!("call_{index}"), "type": "function",
                    "function": {"name": name, "arguments": ""}}]}),
                None,
            ));
            for piece in pieces(arguments) {
                events.push(chunk(
                    json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                    None,
                ));
            }
            events.push(chunk(json!({}), Some("tool_calls")));
        }
        Step::Text(text) => {
            for word in text.split_inclusive(' ') {
                events.push(chunk(json!({"content": word}), None));
            }
            events.push(chunk(json!({}), Some("stop")));
        }
    }
    let prompt_tokens = request.to_string().len() / 4;
    events.push(json!({
        "id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20,
                  "total_tokens": prompt_tokens + 20}
    }));

    writer.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
          cache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n",
    )?;
    for event in &events {
        write_chunk(writer, &format!("data: {event}\n\n"))?;
    }
    write_chunk(writer, "data: [DONE]\n\n")?;
    writer.write_all(b"0\r\n\r\n")?;
    writer.flush()
}

/// `text` cut into pieces of about [`ARGUMENT_PIECE`] bytes, on char boundaries.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + ARGUMENT_PIECE).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// One HTTP/1.1 chunk, written at once: each SSE event reaches the client
/// as its own read, as from a server that streams tokens.
fn write_chunk(writer: &mut TcpStream, data: &str) -> io::Result<()> {
    writer.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
}

fn respond(writer: &mut TcpStream, status: &str, content_type: &str, body: &str) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    writer.write_all(head.as_bytes())?;
    writer.write_all(body.as_bytes())?;
    writer.flush()
}

fn report_json(server: &Server) -> String {
    let records = server.records.lock().map(|records| {
        records
            .iter()
            .map(|record| {
                json!({
                    "path": record.path,
                    "step": record.step,
                    "arrived_ms": record.arrived_ms,
                    "arrived_unix_ms": record.arrived_unix_ms,
                    "body_bytes": record.body_bytes,
                    "tool_error": record.tool_error,
                    "answered_ms": record.answered_ms,
                })
            })
            .collect::<Vec<_>>()
    });
    let report = json!({
        "started_unix_ms": server.started_unix_ms,
        "requests": records.unwrap_or_default(),
    });
    serde_json::to_string_pretty(&report).unwrap_or_default()
}

fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |since| since.as_secs_f64() * 1000.0)
}
