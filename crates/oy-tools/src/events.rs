//! The tool-call events (started, approval, finished) and the sink trait a
//! frontend implements to receive them. These are the one vocabulary for a
//! tool call: the agent forwards them as they are (`docs/events.md`), and
//! every one carries the provider's call id, the same id the transcript
//! and the ledger use.

use serde::Serialize;

/// Where an approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStage {
    /// The person was asked.
    Asked,
    /// They (or the mode) said yes.
    Given,
    /// They, the mode, or the lack of a person said no.
    Denied,
}

/// A tool call is about to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCallStarted {
    /// The provider's call id.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// The arguments as the model sent them (raw JSON text).
    pub arguments: String,
    /// For a tool that starts a process: the sandbox it runs under
    /// (`sandbox: full, workspace-write, network off`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

/// An approval was asked, given or denied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalEvent {
    /// The provider's call id.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// `asked`, `given` or `denied`.
    pub stage: ApprovalStage,
    /// One line: what it is about.
    pub summary: String,
}

/// A tool call ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCallFinished {
    /// The provider's call id.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// False for a `TOOL_ERROR`.
    pub ok: bool,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// Bytes of model-visible output.
    pub output_bytes: usize,
    /// True when the output was cut before the model saw it.
    pub truncated: bool,
    /// The model-visible output.
    pub output: String,
}

/// One event from a tool call. Exhaustive on purpose: the agent forwards
/// every variant, so a new one must be placed in its vocabulary too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolEvent {
    /// A call began.
    ToolCallStarted(ToolCallStarted),
    /// An approval was asked, given or denied.
    Approval(ApprovalEvent),
    /// A call ended.
    ToolCallFinished(ToolCallFinished),
}

/// Receives tool events. Must not block for long: it runs on the tool's thread.
pub trait EventSink: Send + Sync {
    /// Handles one event.
    fn emit(&self, event: &ToolEvent);
}

/// A sink that drops everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: &ToolEvent) {}
}
