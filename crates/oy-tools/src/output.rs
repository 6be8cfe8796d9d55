//! `ToolOutput`: the one shape every tool call returns.

use serde::Serialize;

use crate::approval::Refusal;
use crate::diff::{EVENT_DIFF_BYTES, cap_diff};
use crate::error::ToolError;
use crate::events::CallStatus;

/// Files a mutating tool touched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChangeSummary {
    /// Paths created, changed, moved or removed (relative to the root).
    pub files: Vec<String>,
    /// Bytes written in total.
    pub bytes_written: u64,
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolOutput {
    /// True when the call did what was asked.
    pub ok: bool,
    /// What the model sees (capped; `TOOL_ERROR:`/`RECOVERY:` on failure).
    pub text: String,
    /// The uncapped text, when capping cut something (kept for sessions and callers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_text: Option<String>,
    /// True when `text` is a cut-down version of `full_text`.
    pub truncated: bool,
    /// For mutating tools: what changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<ChangeSummary>,
    /// Set when the mode asked for approval and the answer was a bare no
    /// (the person declined without a reason, or there was no one to ask):
    /// a frontend stops the turn there (exit 3) rather than let the model
    /// work around it.
    #[serde(skip)]
    pub refusal: Option<Refusal>,
    /// How the call ended, for the `tool_call_finished` event.
    #[serde(skip)]
    pub status: CallStatus,
    /// A command's exit code, for the event (see [`crate::ToolCallFinished`]).
    #[serde(skip)]
    pub exit_code: Option<i32>,
    /// The applied change's diff, for the event (capped at 64 KiB).
    #[serde(skip)]
    pub diff: Option<String>,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            ok: true,
            text: text.into(),
            full_text: None,
            truncated: false,
            changes: None,
            refusal: None,
            status: CallStatus::Ok,
            exit_code: None,
            diff: None,
        }
    }

    /// A successful result of a mutating tool.
    pub fn changed(text: impl Into<String>, changes: ChangeSummary) -> Self {
        Self {
            changes: Some(changes),
            ..Self::ok(text)
        }
    }

    /// A failure, rendered for the model: `denied` when a policy or a
    /// person refused it, else `failed` (a cancellation is marked by the
    /// registry, which knows the call saw one).
    pub fn error(error: &ToolError) -> Self {
        Self {
            ok: false,
            text: error.to_model_text(),
            full_text: None,
            truncated: false,
            changes: None,
            refusal: None,
            status: if error.is_denied() {
                CallStatus::Denied
            } else {
                CallStatus::Failed
            },
            exit_code: None,
            diff: None,
        }
    }

    /// Sets how the call ended.
    #[must_use]
    pub fn with_status(mut self, status: CallStatus) -> Self {
        self.status = status;
        self
    }

    /// Sets the exit code of the command the call ran.
    #[must_use]
    pub fn with_exit_code(mut self, code: i32) -> Self {
        self.exit_code = Some(code);
        self
    }

    /// Sets the diff of the change the call applied, cut to what an event
    /// carries (64 KiB at a line boundary).
    #[must_use]
    pub fn with_diff(mut self, diff: impl Into<Option<String>>) -> Self {
        self.diff = diff.into().map(|diff| {
            if diff.len() <= EVENT_DIFF_BYTES {
                diff
            } else {
                cap_diff(&diff)
            }
        });
        self
    }

    /// Marks the output as already cut by the tool itself (it said so in the text).
    pub fn with_truncated(mut self, truncated: bool) -> Self {
        self.truncated |= truncated;
        self
    }
}
