//! The checkpoint directory: content-addressed blobs (`blobs/ab/cdef…`,
//! named by SHA-256, 0600) and the index, both written through
//! `oy-boundary` into a directory the frontend created private.

use oy_boundary::{BoundaryError, Workspace};
use sha2::{Digest, Sha256};

use crate::error::CheckpointError;
use crate::index::{INDEX_VERSION, Index};

/// The index's file name in the checkpoint directory.
const INDEX_FILE: &str = "index.json";

/// The largest index read back (far above any real session's).
const MAX_INDEX_BYTES: u64 = 64 * 1024 * 1024;

/// The lowercase hex SHA-256 of `bytes`.
pub(crate) fn digest_of(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// One session's checkpoint directory.
#[derive(Debug)]
pub(crate) struct Store {
    dir: Workspace,
}

impl Store {
    pub(crate) fn new(dir: Workspace) -> Self {
        Self { dir }
    }

    /// Makes the directory `name` in the checkpoint directory.
    pub(crate) fn ensure_dir(&self, name: &str) -> Result<std::path::PathBuf, CheckpointError> {
        let path = self.dir.path(name)?;
        self.dir.create_dir_all(&path)?;
        Ok(self.dir.host_path(&path))
    }

    fn blob_path(&self, digest: &str) -> Result<oy_boundary::WorkspacePath, CheckpointError> {
        if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CheckpointError::damaged(format!(
                "`{digest}` is not a blob name"
            )));
        }
        Ok(self
            .dir
            .path(format!("blobs/{}/{}", &digest[..2], &digest[2..]))?)
    }

    /// Keeps `bytes` under their digest; returns true when they were new
    /// (the caller counts them against the session's bound).
    pub(crate) fn put(&self, digest: &str, bytes: &[u8]) -> Result<bool, CheckpointError> {
        let path = self.blob_path(digest)?;
        match self.dir.symlink_metadata(&path) {
            Ok(meta) if meta.len == bytes.len() as u64 => return Ok(false),
            Ok(_) | Err(BoundaryError::NotFound { .. }) => {}
            Err(error) => return Err(error.into()),
        }
        self.dir.write_private(&path, bytes)?;
        Ok(true)
    }

    /// The bytes kept under `digest`, checked against it: a blob changed
    /// since it was kept (by anyone) is never restored.
    pub(crate) fn get(&self, digest: &str, len: u64) -> Result<Vec<u8>, CheckpointError> {
        let path = self.blob_path(digest)?;
        let bytes = match self.dir.read_bytes(&path, len.max(1)) {
            Ok(bytes) => bytes,
            Err(BoundaryError::NotFound { .. }) => {
                return Err(CheckpointError::damaged(format!(
                    "the saved copy {digest} is missing"
                )));
            }
            Err(error) => return Err(error.into()),
        };
        if digest_of(&bytes) != digest {
            return Err(CheckpointError::damaged(format!(
                "the saved copy {digest} was changed after it was saved"
            )));
        }
        Ok(bytes)
    }

    /// The index, or an empty one when there is none yet.
    pub(crate) fn load_index(&self) -> Result<Index, CheckpointError> {
        let path = self.dir.path(INDEX_FILE)?;
        let text = match self.dir.read_text(&path, MAX_INDEX_BYTES) {
            Ok(text) => text,
            Err(BoundaryError::NotFound { .. }) => return Ok(Index::default()),
            Err(error) => return Err(error.into()),
        };
        let index: Index = serde_json::from_str(&text)
            .map_err(|error| CheckpointError::damaged(format!("{INDEX_FILE}: {error}")))?;
        if index.version > INDEX_VERSION {
            return Err(CheckpointError::damaged(format!(
                "{INDEX_FILE} was written by a newer oy (format {})",
                index.version
            )));
        }
        Ok(index)
    }

    /// Writes the index atomically, 0600.
    pub(crate) fn save_index(&self, index: &Index) -> Result<(), CheckpointError> {
        let text = serde_json::to_string(index)
            .map_err(|error| CheckpointError::damaged(format!("cannot encode: {error}")))?;
        let path = self.dir.path(INDEX_FILE)?;
        self.dir.write_private(&path, text.as_bytes())?;
        Ok(())
    }
}
