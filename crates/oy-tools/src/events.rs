//! Structured tool events (started, finished, approvals) and the sink
//! trait a frontend implements to receive them.

use std::time::Duration;

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

/// One event from a tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolEvent {
    /// A call began.
    ToolCallStarted {
        /// Unique per context.
        call_id: u64,
        /// The tool.
        tool: String,
    },
    /// An approval was asked, given or denied.
    Approval {
        /// The call.
        call_id: u64,
        /// The tool.
        tool: String,
        /// What happened.
        stage: ApprovalStage,
        /// One line: what the approval is about.
        summary: String,
    },
    /// A call ended.
    ToolCallFinished {
        /// The call.
        call_id: u64,
        /// The tool.
        tool: String,
        /// True when it did what was asked.
        ok: bool,
        /// Wall time.
        #[serde(serialize_with = "millis")]
        duration: Duration,
        /// Bytes of model-visible output.
        output_bytes: usize,
        /// True when the output was cut.
        truncated: bool,
    },
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

fn millis<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u128(duration.as_millis())
}
