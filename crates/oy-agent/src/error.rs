//! `AgentError`: what ends a turn or a session without an answer — as
//! opposed to a tool failure, which is data for the model.
//!
//! `Display` and `Error` are written out rather than derived with
//! `thiserror`: `PromptTooLarge` has a field named `source` (where the
//! window came from), which the derive would take for the error's cause.

use std::fmt;

use oy_provider::ProviderError;

/// A failure the caller must handle (a tool failure never becomes one).
#[derive(Debug)]
#[non_exhaustive]
pub enum AgentError {
    /// The provider failed after retries, or a retry was not allowed
    /// because a side effect was already attempted.
    Provider(ProviderError),
    /// The agent was built with missing or inconsistent parts.
    Build(String),
    /// A saved session cannot be used.
    Session {
        /// What is wrong, and what to do instead.
        message: String,
    },
    /// The prompt cannot fit the model's context window even in an empty
    /// conversation (with the instructions and tool definitions): it was
    /// refused before any request, and nothing of the turn was recorded.
    PromptTooLarge {
        /// The estimated tokens of the instructions, tool definitions and
        /// prompt.
        prompt_tokens: u64,
        /// The window in tokens.
        window: u64,
        /// Where the window came from: `configured`, `the model table`,
        /// `the server` or `default`.
        source: String,
    },
    /// A saved session belongs to another workspace: resuming it here would
    /// point its paths at the wrong files.
    ForeignSession {
        /// The session id.
        id: String,
        /// The workspace it was saved in.
        saved_in: String,
        /// The workspace it was asked to resume in.
        root: String,
    },
    /// The session store failed to read or write.
    Store(oy_boundary::BoundaryError),
    /// Checkpoints could not be kept, or an undo could not be done.
    Checkpoint(oy_checkpoint::CheckpointError),
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Provider(error) => write!(f, "{error}"),
            Self::Build(message) | Self::Session { message } => f.write_str(message),
            Self::PromptTooLarge {
                prompt_tokens,
                window,
                source,
            } => write!(
                f,
                "the prompt does not fit the model's context window: about {prompt_tokens} tokens \
                 with the instructions and tool definitions, and the window is {window} tokens \
                 ({source}); shorten the prompt or attach less, or use a model with a larger window"
            ),
            Self::ForeignSession { id, saved_in, root } => write!(
                f,
                "session {id} was saved in workspace {saved_in}, not {root}; resume it from that workspace"
            ),
            Self::Store(error) => write!(f, "session store: {error}"),
            Self::Checkpoint(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for AgentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // As the derive made them (`#[from]` fields are the cause).
            Self::Provider(error) => Some(error),
            Self::Store(error) => Some(error),
            Self::Checkpoint(error) => Some(error),
            _ => None,
        }
    }
}

impl From<ProviderError> for AgentError {
    fn from(error: ProviderError) -> Self {
        Self::Provider(error)
    }
}

impl From<oy_boundary::BoundaryError> for AgentError {
    fn from(error: oy_boundary::BoundaryError) -> Self {
        Self::Store(error)
    }
}

impl From<oy_checkpoint::CheckpointError> for AgentError {
    fn from(error: oy_checkpoint::CheckpointError) -> Self {
        Self::Checkpoint(error)
    }
}

impl AgentError {
    pub(crate) fn session(message: impl Into<String>) -> Self {
        Self::Session {
            message: message.into(),
        }
    }
}
