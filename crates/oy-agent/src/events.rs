//! `AgentEvent`s (docs/events.md): what a frontend or an embedding program hears
//! from a session — the same objects `oy --json` prints one per line. Field
//! names are stable; `docs/events.md` documents each one.

use serde::Serialize;

use oy_tools::ToolEvent;

use crate::prompt::Attachment;
pub use oy_tools::{
    ApprovalEvent, ApprovalStage, CallStatus, OutputStream, ToolCallFinished, ToolCallStarted,
    ToolOutputDelta,
};

/// Token counts of a request, or of a turn (summed over its requests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TokenUsage {
    /// Prompt tokens (as reported; estimated when the server reports none).
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the server's cache.
    pub cached_input_tokens: u64,
    /// True when any figure above is an estimate.
    pub estimated: bool,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TurnStop {
    /// The model answered without asking for tools.
    Done,
    /// `max_turns` model requests were made without an answer.
    MaxTurns,
    /// The same failing call (tool and arguments) came three times in a row.
    RepeatedFailure,
    /// Too many tool-only answers in a row without a word to the person.
    ToolChurn,
    /// An approval the mode asks for was refused without a reason, or no
    /// one could answer.
    ApprovalDenied,
    /// The frontend cancelled the turn (Ctrl-C).
    Cancelled,
    /// The provider failed (after retries, or when a retry was not allowed).
    ProviderError,
    /// The model stopped at its output-token cap.
    MaxTokens,
}

impl TurnStop {
    /// True when the task was not finished for a reason the caller should
    /// report as a failure.
    pub fn is_failure(self) -> bool {
        !matches!(self, Self::Done)
    }
}

/// One event of a session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AgentEvent {
    /// A session began or was resumed.
    SessionStarted {
        /// The session id (`oy sessions` lists it).
        session_id: String,
        /// The workspace root.
        workspace: String,
        /// The provider's short name.
        provider: String,
        /// The model id.
        model: String,
        /// The safety mode.
        mode: String,
        /// The network switch.
        network: String,
        /// True when it continues a saved session.
        resumed: bool,
    },
    /// A prompt began a turn.
    TurnStarted {
        /// Counts from 1 within the session.
        turn: u64,
        /// The prompt, as the person typed it.
        prompt: String,
        /// What its `@path` mentions attached (path, kind, lines,
        /// truncated; not the content).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Attachment>,
    },
    /// A model request is about to be sent (a frontend shows that it
    /// waits for the model).
    RequestStarted {
        /// Counts from 1 within the turn (a request sent again after a cut
        /// stream counts again, as in `turn_finished`'s `requests`).
        request: u32,
    },
    /// A model request's answer was fully received. A request that
    /// failed, was cut or was cancelled has none: the `retry`, `error` or
    /// `turn_finished` that follows says how it ended.
    RequestFinished {
        /// The request, as in `request_started`.
        request: u32,
        /// Tokens of this request alone (estimated when the server
        /// reported none).
        usage: TokenUsage,
    },
    /// Streamed answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// The model's tool call is about to run.
    ToolCallStarted(ToolCallStarted),
    /// An approval was asked, given or denied.
    Approval(ApprovalEvent),
    /// A running command printed output (coalesced at the source).
    ToolOutput(ToolOutputDelta),
    /// A tool call ended.
    ToolCallFinished(ToolCallFinished),
    /// The transcript was compacted.
    Compaction {
        /// `auto` or `manual`.
        trigger: &'static str,
        /// Estimated context tokens before.
        tokens_before: u64,
        /// Estimated context tokens after.
        tokens_after: u64,
        /// Old tool outputs shortened.
        outputs_shrunk: usize,
        /// Entries replaced by a summary.
        entries_summarized: usize,
        /// `model`, `digest` (the model's summary failed) or `none`.
        summary_by: &'static str,
    },
    /// A provider request failed transiently and is retried.
    Retry {
        /// The attempt that failed (1 = the first).
        attempt: u32,
        /// Wait before the next attempt, in milliseconds.
        delay_ms: u64,
        /// What failed.
        error: String,
    },
    /// What a turn changed was kept for undo (docs/undo.md): sent at the
    /// end of a turn that changed files or ran commands, before
    /// `turn_finished`.
    Checkpoint {
        /// The turn.
        turn: u64,
        /// The paths it changed, sorted.
        files: Vec<String>,
        /// What became of its commands: `none` (it ran none), `git`
        /// (snapshotted: undoable), `outside_git` (the workspace is not in
        /// git) or `not_undoable` (something went wrong).
        commands: String,
        /// Why command changes cannot be undone (`outside_git`,
        /// `not_undoable`).
        #[serde(skip_serializing_if = "Option::is_none")]
        commands_note: Option<String>,
        /// Paths whose old content was not kept (too large), and why.
        not_kept: Vec<oy_checkpoint::NotKept>,
    },
    /// A change of several files that a process which died left half made
    /// was completed or undone whole when the session started
    /// (docs/crash-safety.md).
    InterruptedChange(oy_tools::Recovered),
    /// The resumed session's last turn was cut off (its process died before
    /// the turn was saved) after these tool calls had started: one entry per
    /// call, as it last stood (`succeeded` null: it may or may not have
    /// acted). Sent after `session_started`; the model is told too
    /// (docs/crash-safety.md).
    InterruptedTurn {
        /// The calls, in the order they started.
        effects: Vec<oy_tools::LedgerEntry>,
    },
    /// An undo or redo was done (`applied`) or refused (`conflicts`).
    Undo(oy_checkpoint::UndoReport),
    /// A turn ended.
    TurnFinished {
        /// The turn.
        turn: u64,
        /// Why it ended.
        stop: TurnStop,
        /// A sentence for people when it did not end with `done`.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// What would let a refused call run (`use the auto-approve mode …`).
        #[serde(skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
        /// Model requests made in the turn.
        requests: u32,
        /// Tokens used in the turn.
        usage: TokenUsage,
    },
    /// Something failed outside a tool (the provider, saving the session).
    Error {
        /// What went wrong, for people.
        message: String,
    },
}

impl From<ToolEvent> for AgentEvent {
    fn from(event: ToolEvent) -> Self {
        match event {
            ToolEvent::ToolCallStarted(started) => Self::ToolCallStarted(started),
            ToolEvent::Approval(approval) => Self::Approval(approval),
            ToolEvent::ToolOutput(delta) => Self::ToolOutput(delta),
            ToolEvent::ToolCallFinished(finished) => Self::ToolCallFinished(finished),
        }
    }
}

/// Receives a session's events. Runs on the agent's task: keep it quick.
pub trait AgentEventSink: Send + Sync {
    /// Handles one event.
    fn emit(&self, event: &AgentEvent);
}

/// A sink that drops everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAgentEvents;

impl AgentEventSink for NoAgentEvents {
    fn emit(&self, _event: &AgentEvent) {}
}

/// Collects events in memory (tests, embedding programs that want a log).
#[derive(Debug, Default)]
pub struct CollectedEvents(std::sync::Mutex<Vec<AgentEvent>>);

impl CollectedEvents {
    /// Everything received so far.
    pub fn events(&self) -> Vec<AgentEvent> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl AgentEventSink for CollectedEvents {
    fn emit(&self, event: &AgentEvent) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(event.clone());
    }
}
