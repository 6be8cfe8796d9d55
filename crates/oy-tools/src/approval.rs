//! The `Approver` and `Asker` traits a frontend implements, and what they
//! are shown.

use serde::Serialize;

use crate::spec::Effect;

/// The exact change an approval is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "text", rename_all = "snake_case")]
pub enum Preview {
    /// A unified diff of the file change(s).
    Diff(String),
    /// The exact command line to run.
    Command(String),
    /// A one-line description when nothing more exact exists.
    Summary(String),
}

/// One action waiting for a person's yes or no.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApprovalRequest {
    /// The tool asking.
    pub tool: String,
    /// The kind of effect.
    pub effect: Effect,
    /// One line: what will happen.
    pub summary: String,
    /// The exact change.
    pub preview: Preview,
}

/// A person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Go ahead.
    Approve,
    /// Do not.
    Deny,
}

/// Implemented by an interactive frontend to approve actions the mode
/// marks "ask". Called on the tool's thread; it may block.
pub trait Approver: Send + Sync {
    /// Shows `request` and returns the person's answer.
    fn approve(&self, request: &ApprovalRequest) -> Answer;
}

/// Implemented by an interactive frontend for the `ask` tool.
pub trait Asker: Send + Sync {
    /// Puts `question` to the person; `None` when they gave no answer.
    fn ask(&self, question: &str) -> Option<String>;
}
