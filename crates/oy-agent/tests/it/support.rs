//! Fixtures: a temp workspace, scripted model answers, an agent wired to
//! them, and checks over the requests the provider recorded.

use std::fs;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use oy_agent::{AgentBuilder, AgentEvent, CollectedEvents};
use oy_boundary::Workspace;
use oy_provider::{
    BoxFuture, ErrorKind, Event, EventStream, Message, ModelInfo, Provider, ProviderError, Request,
    ScriptedProvider, ScriptedReply, StopReason, ToolCall, Usage,
};
use oy_tools::{Answer, ApprovalRequest, Approver, Mode, Policy};

/// A temp workspace; `root` is canonical (what the agent reports).
pub struct Ws {
    pub _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub workspace: Arc<Workspace>,
}

impl Ws {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap().join("ws");
        fs::create_dir_all(&root).unwrap();
        let workspace = Arc::new(Workspace::open(&root).unwrap());
        Self {
            _tmp: tmp,
            root,
            workspace,
        }
    }

    /// Writes a fixture file (parents created).
    pub fn file(&self, rel: &str, text: &str) -> &Self {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.root.join(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).exists()
    }

    pub fn root_str(&self) -> String {
        self.root.display().to_string()
    }
}

/// A tool call as a model would send it.
pub fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments: arguments.to_owned(),
    }
}

/// Usage every scripted answer reports, so sums are exact.
pub const USAGE: Usage = Usage {
    input_tokens: 100,
    output_tokens: 10,
    cached_input_tokens: 0,
};

/// An answer of `text` and `calls`, streamed the way a backend does.
pub fn answer(text: &str, calls: &[ToolCall]) -> ScriptedReply {
    let mut items = Vec::new();
    if !text.is_empty() {
        // Two deltas, so the text arrives in pieces.
        let mid = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map_or(0, |(i, _)| i);
        for piece in [&text[..mid], &text[mid..]] {
            if !piece.is_empty() {
                items.push(Ok(Event::TextDelta {
                    text: piece.to_owned(),
                }));
            }
        }
    }
    for (index, call) in calls.iter().enumerate() {
        items.push(Ok(Event::ToolCallStarted {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
        }));
        items.push(Ok(Event::ToolCallArgumentsDelta {
            index,
            delta: call.arguments.clone(),
        }));
        items.push(Ok(Event::ToolCallDone {
            index,
            call: call.clone(),
        }));
    }
    items.push(Ok(Event::Usage { usage: USAGE }));
    items.push(Ok(Event::Finished {
        reason: if calls.is_empty() {
            StopReason::EndTurn
        } else {
            StopReason::ToolUse
        },
    }));
    ScriptedReply::Stream(items)
}

/// A final text answer.
pub fn text(text: &str) -> ScriptedReply {
    answer(text, &[])
}

/// A tool-only answer.
pub fn calls(calls: &[ToolCall]) -> ScriptedReply {
    answer("", calls)
}

/// A request that fails before any event with a transient error.
pub fn connect_failure() -> ScriptedReply {
    ScriptedReply::Fail(ProviderError::new(ErrorKind::Connect, "connection refused"))
}

pub fn scripted(replies: impl IntoIterator<Item = ScriptedReply>) -> Arc<ScriptedProvider> {
    Arc::new(ScriptedProvider::new(replies))
}

/// A builder on `provider` in `ws` with `mode` (non-interactive), its
/// events collected.
pub fn builder(
    provider: Arc<dyn Provider>,
    ws: &Ws,
    mode: Mode,
) -> (AgentBuilder, Arc<CollectedEvents>) {
    let events = Arc::new(CollectedEvents::default());
    let builder = AgentBuilder::new(provider, "test-model")
        .workspace(Arc::clone(&ws.workspace))
        .policy(Policy::new(mode, false))
        .events(events.clone());
    (builder, events)
}

/// Every tool-result message of `request`, as (call id, output, is_error).
pub fn results(request: &Request) -> Vec<(String, String, bool)> {
    request
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::ToolResult {
                call_id,
                output,
                is_error,
            } => Some((call_id.clone(), output.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

/// The output the request carries for call `id`.
pub fn result_for(request: &Request, id: &str) -> (String, bool) {
    results(request)
        .into_iter()
        .find(|(call_id, _, _)| call_id == id)
        .map(|(_, output, is_error)| (output, is_error))
        .unwrap_or_else(|| panic!("no result for call {id} in {:#?}", request.messages))
}

/// Asserts that in `request` every assistant message with tool calls is
/// followed at once by one result per call, in order, and that no result
/// stands anywhere else.
pub fn assert_paired(request: &Request) {
    let messages = &request.messages;
    let mut index = 0;
    while index < messages.len() {
        match &messages[index] {
            Message::Assistant { tool_calls, .. } => {
                for (offset, call) in tool_calls.iter().enumerate() {
                    match messages.get(index + 1 + offset) {
                        Some(Message::ToolResult { call_id, .. }) if *call_id == call.id => {}
                        other => panic!(
                            "call {} at message {index} is followed by {other:?}, not its result",
                            call.id
                        ),
                    }
                }
                index += 1 + tool_calls.len();
            }
            Message::ToolResult { call_id, .. } => {
                panic!("result of {call_id} at message {index} without its call")
            }
            _ => index += 1,
        }
    }
}

/// The type names of `events`, in order (`session_started`, …).
pub fn kinds(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            serde_json::to_value(event).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// An approver that gives one fixed answer and remembers what it was asked.
pub struct FixedApprover {
    pub answer: Answer,
    pub asked: Mutex<Vec<ApprovalRequest>>,
}

impl FixedApprover {
    pub fn new(answer: Answer) -> Arc<Self> {
        Arc::new(Self {
            answer,
            asked: Mutex::new(Vec::new()),
        })
    }
}

impl Approver for FixedApprover {
    fn approve(&self, request: &ApprovalRequest) -> Answer {
        self.asked.lock().unwrap().push(request.clone());
        self.answer
    }
}

/// Routes summary requests (no tools, instructions starting "Summarise")
/// to `summaries` and everything else to `main`, and records all requests
/// in order — so a test need not know when compaction will ask.
pub struct RoutingProvider {
    pub main: ScriptedProvider,
    pub summaries: ScriptedProvider,
    pub all: Mutex<Vec<Request>>,
}

impl RoutingProvider {
    pub fn new(
        main: impl IntoIterator<Item = ScriptedReply>,
        summaries: impl IntoIterator<Item = ScriptedReply>,
    ) -> Arc<Self> {
        Arc::new(Self {
            main: ScriptedProvider::new(main),
            summaries: ScriptedProvider::new(summaries),
            all: Mutex::new(Vec::new()),
        })
    }

    pub fn requests(&self) -> Vec<Request> {
        self.all.lock().unwrap().clone()
    }
}

pub fn is_summary_request(request: &Request) -> bool {
    request.tools.is_empty()
        && request
            .instructions
            .as_deref()
            .is_some_and(|text| text.starts_with("Summarise"))
}

impl Provider for RoutingProvider {
    fn name(&self) -> &str {
        "routing"
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        self.all.lock().unwrap().push(request.clone());
        if is_summary_request(request) {
            self.summaries.stream(request)
        } else {
            self.main.stream(request)
        }
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        self.main.list_models()
    }
}

/// A provider whose answer never comes (a stalled server).
pub struct SilentProvider;

impl Provider for SilentProvider {
    fn name(&self) -> &str {
        "silent"
    }

    fn stream<'a>(
        &'a self,
        _request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        Box::pin(std::future::pending())
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// Bytes of the messages a request carries (what compaction shrinks).
pub fn message_bytes(request: &Request) -> usize {
    serde_json::to_string(&request.messages).unwrap().len()
}
