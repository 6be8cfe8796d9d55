//! `AgentError`: what ends a turn or a session without an answer — as
//! opposed to a tool failure, which is data for the model.

use oy_provider::ProviderError;

/// A failure the caller must handle (a tool failure never becomes one).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The provider failed after retries, or a retry was not allowed
    /// because a side effect was already attempted.
    #[error("{0}")]
    Provider(#[from] ProviderError),
    /// The agent was built with missing or inconsistent parts.
    #[error("{0}")]
    Build(String),
    /// A saved session cannot be used.
    #[error("{message}")]
    Session {
        /// What is wrong, and what to do instead.
        message: String,
    },
    /// A saved session belongs to another workspace: resuming it here would
    /// point its paths at the wrong files.
    #[error(
        "session {id} was saved in workspace {saved_in}, not {root}; resume it from that workspace"
    )]
    ForeignSession {
        /// The session id.
        id: String,
        /// The workspace it was saved in.
        saved_in: String,
        /// The workspace it was asked to resume in.
        root: String,
    },
    /// The session store failed to read or write.
    #[error("session store: {0}")]
    Store(#[from] oy_boundary::BoundaryError),
}

impl AgentError {
    pub(crate) fn session(message: impl Into<String>) -> Self {
        Self::Session {
            message: message.into(),
        }
    }
}
