//! "Approve what you saw": what a file held when a change's preview was
//! computed, and the check, after the approval, that it still holds it. A
//! person may save the file while the prompt waits; their edit must not be
//! overwritten by a change computed from the old text.

use oy_boundary::{BoundaryError, Workspace, WorkspacePath};

use crate::error::ToolError;
use crate::state::content_digest;
use crate::tools::read::EDITABLE_BYTES;

/// A file's state when the preview was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Nothing was there.
    Missing,
    /// These bytes (by digest).
    Content(String),
    /// A file too large (or unreadable as a whole) to hash: its size and
    /// modification time.
    Stat(u64, Option<std::time::SystemTime>),
}

impl Seen {
    /// What `path` holds now.
    pub(crate) fn now(ws: &Workspace, path: &WorkspacePath) -> Result<Self, ToolError> {
        match ws.read_bytes(path, EDITABLE_BYTES) {
            Ok(bytes) => Ok(Self::Content(content_digest(&bytes))),
            Err(BoundaryError::NotFound { .. }) => Ok(Self::Missing),
            Err(BoundaryError::TooLarge { .. }) => {
                let meta = ws.metadata(path)?;
                Ok(Self::Stat(meta.len, meta.modified_at))
            }
            Err(other) => Err(other.into()),
        }
    }

    /// The state of a file whose bytes the caller already holds.
    pub(crate) fn of_bytes(bytes: &[u8]) -> Self {
        Self::Content(content_digest(bytes))
    }

    /// `Err` when `path` no longer holds what it held: nothing may be
    /// written from a preview of other content.
    pub(crate) fn unchanged(&self, ws: &Workspace, path: &WorkspacePath) -> Result<(), ToolError> {
        if Self::now(ws, path)? == *self {
            return Ok(());
        }
        Err(ToolError::failed(
            format!(
                "{path} changed while the change was waiting for approval (someone saved it); nothing was written"
            ),
            format!(
                "read {path} again and make the change against its current content; the user's edit must be kept"
            ),
        ))
    }
}
