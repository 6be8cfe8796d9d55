//! `CheckpointError`: why a checkpoint could not be kept or an undo could
//! not be done.

use oy_boundary::BoundaryError;

/// A checkpoint or undo failure.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The checkpoint directory or a workspace path failed.
    #[error(transparent)]
    Boundary(#[from] BoundaryError),
    /// The index or a blob is not what oy wrote.
    #[error("the checkpoints are damaged: {0}")]
    Damaged(String),
    /// The whole session's checkpoints would grow past their bound.
    #[error("the session's checkpoints would pass {limit} bytes")]
    SessionFull {
        /// The bound.
        limit: u64,
    },
    /// Nothing left to undo or redo.
    #[error("{0}")]
    Nothing(String),
    /// What a turn's commands changed cannot be undone: why.
    #[error("{0}")]
    NotUndoable(String),
    /// A git command took longer than its bound and was killed.
    #[error("git {command} took longer than {seconds} s (is a .gitignore not a regular file?)")]
    GitTimedOut {
        /// Which git command.
        command: String,
        /// The bound.
        seconds: u64,
    },
    /// A git command failed.
    #[error("git {command} failed: {detail}")]
    Git {
        /// Which git command.
        command: String,
        /// Its error text (first line) or why it could not run.
        detail: String,
    },
}

impl CheckpointError {
    pub(crate) fn damaged(what: impl Into<String>) -> Self {
        Self::Damaged(what.into())
    }
}
