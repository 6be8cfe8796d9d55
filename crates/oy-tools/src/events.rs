//! The tool-call events (started, approval, live output, finished) and the
//! sink trait a frontend implements to receive them. These are the one vocabulary for a
//! tool call: the agent forwards them as they are (`docs/events.md`), and
//! every one carries the provider's call id, the same id the transcript
//! and the ledger use.

use serde::Serialize;

use crate::session_allow::SessionGrant;

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
    /// On `given`: the session permission involved — the one the
    /// person's "always" answer just added, or an earlier one that allowed
    /// the call without asking anyone (then no `asked` came before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionGrant>,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// It did what was asked. A command that ran and exited non-zero is
    /// `ok` too: the model got its output and exit code.
    Ok,
    /// A `TOOL_ERROR` that is none of the below (bad arguments, a missing
    /// file, a user tool that failed).
    Failed,
    /// The mode or a person refused it.
    Denied,
    /// The turn was cancelled (Ctrl-C): the call was refused before it
    /// acted, or its command was killed.
    Cancelled,
    /// Its command ran past its timeout and was killed.
    TimedOut,
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
    /// How the call ended.
    pub status: CallStatus,
    /// For a command that ended (`bash`, `exec`, user tools, a PTY
    /// session whose process exited): its exit code, 124 after a timeout,
    /// 130 after a cancellation, 128 + N after signal N.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// For a file change that was applied, whatever the mode: its unified
    /// diff (a `rename from`/`rename to` header for a move), at most 64 KiB,
    /// cut at a line with a last line `… N more diff lines`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// Which output stream of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    /// Standard output (or a PTY session's terminal).
    Stdout,
    /// Standard error.
    Stderr,
}

/// Output a running command printed since the last delta of its stream.
/// Coalesced at the source: at most one per stream every 100 ms, at most
/// 4 KiB of the newest text each (the older bytes counted in
/// `skipped_bytes`), and a last one with what is left before the call's
/// `tool_call_finished`. The text is raw: a renderer makes it safe for a
/// terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolOutputDelta {
    /// The provider's call id.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// `stdout` or `stderr`.
    pub stream: OutputStream,
    /// The newest output (invalid UTF-8 replaced, never a split character).
    pub text: String,
    /// Bytes printed since the last delta that `text` leaves out (before it).
    pub skipped_bytes: u64,
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
    /// A running command printed output.
    ToolOutput(ToolOutputDelta),
    /// A call ended.
    ToolCallFinished(ToolCallFinished),
}

/// Receives tool events. Must not block for long: it runs on the tool's thread.
pub trait EventSink: Send + Sync {
    /// Handles one event.
    fn emit(&self, event: &ToolEvent);

    /// Whether `tool_call_finished` should carry the change's diff. A sink
    /// that drops every event says no, and the file tools then make none
    /// (for a 200-file patch, a second thread's worth of work; for a
    /// removal, a read of what is removed).
    fn wants_diffs(&self) -> bool {
        true
    }
}

/// A sink that drops everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: &ToolEvent) {}

    fn wants_diffs(&self) -> bool {
        false
    }
}
