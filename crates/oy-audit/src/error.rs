//! `AuditError`: what stops an audit, each with advice for the person.

use oy_provider::ProviderError;

/// A failed audit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The workspace or a path in it could not be read.
    #[error(transparent)]
    Boundary(#[from] oy_boundary::BoundaryError),
    /// One file is larger than a chunk may be: reviewing it would need
    /// truncation, which the audit never does.
    #[error(
        "{path} needs about {tokens} tokens but a chunk holds at most {budget}; narrow the audit to a smaller scope, or use a model with a larger context window"
    )]
    FileTooLarge {
        /// The file.
        path: String,
        /// Its estimated tokens.
        tokens: u64,
        /// What one chunk may hold.
        budget: u64,
    },
    /// The model's window leaves too little room for any file once the
    /// prompt and the answer are reserved.
    #[error(
        "a {context_window}-token context window leaves under {min} tokens per chunk after reserving {reserve_tokens} for the prompt and the answer; use a model with a larger context window"
    )]
    BudgetTooSmall {
        /// The window.
        context_window: u64,
        /// Tokens reserved.
        reserve_tokens: u64,
        /// The smallest chunk budget accepted.
        min: u64,
    },
    /// The repository needs more chunks than allowed.
    #[error(
        "the audit needs {needed} chunks, more than the limit of {max}; narrow it to a smaller scope or a focus, or use a model with a larger context window"
    )]
    TooManyChunks {
        /// Chunks needed.
        needed: usize,
        /// The limit.
        max: usize,
    },
    /// The scope cannot be audited: it leaves the workspace, does not
    /// exist, or goes through a symlink (`source` says which).
    #[error("{scope}: {source}")]
    Scope {
        /// The scope as given.
        scope: String,
        /// Why it was refused.
        source: Box<AuditError>,
    },
    /// The report path is not a path inside the workspace.
    #[error("{path}: {source}")]
    ReportOutside {
        /// The report path as given.
        path: String,
        /// Why it was refused.
        source: oy_boundary::BoundaryError,
    },
    /// The report path is inside version-control internals
    /// (`.git/hooks`, `.git/config`): writing there could run code.
    #[error("{path}: the report cannot go inside version-control internals")]
    ReportInVcs {
        /// The report path as given.
        path: String,
    },
    /// The report path is a symlink: the repository would choose which
    /// file the report replaces.
    #[error("{path} is a symlink; oy will not write the report through it")]
    ReportSymlink {
        /// The report path as given.
        path: String,
    },
    /// The report path exists and is not a regular file.
    #[error("{path} exists and is not a regular file")]
    ReportNotFile {
        /// The report path as given.
        path: String,
    },
    /// The scope goes through a symlink.
    #[error(
        "{path} is a symlink; the audit never follows links (its target could be a file the audit must not send): pass the real path"
    )]
    LinkedScope {
        /// The linked component.
        path: String,
    },
    /// Nothing reviewable was found.
    #[error("no reviewable files in scope ({0}); check the path, or what the skip counts say")]
    NothingToReview(String),
    /// The model provider failed (after retries).
    #[error("the provider failed: {0}")]
    Provider(#[from] ProviderError),
    /// The model's answer could not be used.
    #[error("the model's answer could not be used: {0}")]
    BadAnswer(String),
    /// The audit was cancelled.
    #[error("the audit was cancelled")]
    Cancelled,
}

impl AuditError {
    /// True when the request itself was wrong (the scope or the report
    /// path), as opposed to an audit that could not go on: nothing was
    /// collected or sent.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Self::Scope { .. }
                | Self::ReportOutside { .. }
                | Self::ReportInVcs { .. }
                | Self::ReportSymlink { .. }
                | Self::ReportNotFile { .. }
        )
    }
}
