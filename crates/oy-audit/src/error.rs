//! `AuditError`: what stops an audit, each with advice for the person.

use oy_provider::ProviderError;

use crate::chunk::Stop;

/// A failed audit.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The workspace or a path in it could not be read.
    #[error(transparent)]
    Boundary(#[from] oy_boundary::BoundaryError),
    /// The plan cannot be reviewed, for every reason listed (see
    /// [`Stop`]): a file too large for a chunk, too many chunks, a window
    /// too small, nothing to review.
    #[error("{}", join(stops))]
    CannotReview {
        /// Every reason, in the order the plan checks them.
        stops: Vec<Stop>,
    },
    /// An exclude pattern is malformed.
    #[error("{pattern:?} is not a valid exclude pattern: {why}")]
    BadExclude {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        why: String,
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
    /// The workspace is the filesystem's root or the home directory, and
    /// the person did not name it: it is audited only when asked for.
    #[error(
        "{} is {what}; auditing all of it is refused unless you name it", root.display()
    )]
    BroadRoot {
        /// The workspace root.
        root: std::path::PathBuf,
        /// `the home directory` or `the filesystem's root`.
        what: &'static str,
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
    /// The report path holds a file oy did not write: replacing it could
    /// lose the person's own notes.
    #[error("{path} exists and was not written by oy; oy will not replace it")]
    ReportNotOurs {
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
                | Self::BroadRoot { .. }
                | Self::BadExclude { .. }
                | Self::ReportOutside { .. }
                | Self::ReportInVcs { .. }
                | Self::ReportSymlink { .. }
                | Self::ReportNotFile { .. }
                | Self::ReportNotOurs { .. }
        )
    }
}

fn join(stops: &[Stop]) -> String {
    let messages: Vec<String> = stops.iter().map(ToString::to_string).collect();
    messages.join("; and ")
}
