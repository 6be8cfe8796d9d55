//! The `Approver` and `Asker` traits a frontend implements, and what they
//! are shown.

use serde::Serialize;

use crate::session_allow::SessionScope;
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
    /// What an [`Answer::ApproveForSession`] would allow from then on,
    /// computed from exactly what is shown (`None`: only yes or no).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_scope: Option<SessionScope>,
}

/// A person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// Go ahead.
    Approve,
    /// Go ahead, and allow the request's `session_scope` without asking
    /// for the rest of the session. Without a scope it is [`Self::Approve`].
    ApproveForSession,
    /// Do not.
    Deny,
}

/// A person's answer, with what they said about a no.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reply {
    /// Yes or no.
    pub answer: Answer,
    /// For a no: why, in the person's words. It goes back to the model
    /// (as the refusal's recovery), and the turn goes on so the model can
    /// act on it; a no without a reason ends the turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl From<Answer> for Reply {
    fn from(answer: Answer) -> Self {
        Self {
            answer,
            reason: None,
        }
    }
}

/// Implemented by an interactive frontend to approve actions the mode
/// marks "ask". Called on the tool's thread; it may block.
pub trait Approver: Send + Sync {
    /// Shows `request` and returns the person's answer.
    fn approve(&self, request: &ApprovalRequest) -> Answer;

    /// Like [`Self::approve`], with the reason a person gave for a no.
    /// The tool layer calls this one; the default has no reasons.
    fn reply(&self, request: &ApprovalRequest) -> Reply {
        self.approve(request).into()
    }
}

/// Why an action the mode asks about did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusedBy {
    /// The person answered no.
    Person,
    /// No one could be asked (not interactive).
    NoOneToAsk,
}

/// An approval that was refused: by whom, and what would allow it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// The person, or nobody to ask.
    pub by: RefusedBy,
    /// The flag or mode that would let it run (for the person's `hint:` line).
    pub hint: String,
}

/// Implemented by an interactive frontend for the `ask` tool.
pub trait Asker: Send + Sync {
    /// Puts `question` to the person; `None` when they gave no answer.
    fn ask(&self, question: &str) -> Option<String>;
}
