//! The checkpoint directory: content-addressed blobs (`blobs/ab/cdef…`,
//! named by SHA-256, 0600), the index (`index.json`) and one record per
//! turn (`turns/N.json`), all written through `oy-boundary` into a
//! directory the frontend created private.

use oy_boundary::{BoundaryError, Workspace};
use sha2::{Digest, Sha256};

use crate::error::CheckpointError;
use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};

use serde::{Deserialize, Serialize};

use crate::index::{INDEX_VERSION, Index, RedoRecord, TurnRecord};

/// The index's file name in the checkpoint directory.
const INDEX_FILE: &str = "index.json";

/// The directory of the turns' records.
const TURNS_DIR: &str = "turns";

/// The largest index read back (an old format's, with every turn inline).
const MAX_INDEX_BYTES: u64 = 64 * 1024 * 1024;

/// The largest record of one turn, written or read.
const MAX_TURN_BYTES: u64 = 64 * 1024 * 1024;

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

    /// Makes the directory `name` in the checkpoint directory, 0700.
    pub(crate) fn ensure_dir(&self, name: &str) -> Result<std::path::PathBuf, CheckpointError> {
        let path = self.dir.path(name)?;
        // Private like the directory it is in.
        self.dir.restore_dir(&path, 0o700)?;
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
        // Its directories private too (a write would make them as the
        // umask says).
        self.ensure_dir("blobs")?;
        self.ensure_dir(&format!("blobs/{}", &digest[..2]))?;
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

    /// The index, or an empty one when there is none yet. Each turn's
    /// record is a file of its own (`turns/N.json`); one that cannot be
    /// read is left out and named in `Index::unreadable`, so one damaged
    /// or oversized turn never costs the others their undo. An index of
    /// format 1 or 2 (every turn inline) is read as it is.
    pub(crate) fn load_index(&self) -> Result<Index, CheckpointError> {
        let path = self.dir.path(INDEX_FILE)?;
        let text = match self.dir.read_text(&path, MAX_INDEX_BYTES) {
            Ok(text) => text,
            Err(BoundaryError::NotFound { .. }) => return Ok(Index::default()),
            Err(error) => return Err(error.into()),
        };
        let header: Header = serde_json::from_str(&text)
            .map_err(|error| CheckpointError::damaged(format!("{INDEX_FILE}: {error}")))?;
        if header.version > INDEX_VERSION {
            return Err(CheckpointError::damaged(format!(
                "{INDEX_FILE} was written by a newer oy (format {})",
                header.version
            )));
        }
        let mut index = Index {
            version: INDEX_VERSION,
            turns: header.turns,
            redo: header.redo,
            seq: header.seq,
            kept_bytes: header.kept_bytes,
            outside_git: header.outside_git,
            unreadable: Vec::new(),
        };
        for turn in header.turn_files {
            match self.load_turn(turn) {
                Ok(record) => index.turns.push(record),
                Err(error) => index.unreadable.push((turn, error.to_string())),
            }
        }
        Ok(index)
    }

    fn turn_path(&self, turn: u64) -> Result<oy_boundary::WorkspacePath, CheckpointError> {
        Ok(self.dir.path(format!("{TURNS_DIR}/{turn}.json"))?)
    }

    fn load_turn(&self, turn: u64) -> Result<TurnRecord, CheckpointError> {
        let text = self.dir.read_text(&self.turn_path(turn)?, MAX_TURN_BYTES)?;
        let record: TurnRecord = serde_json::from_str(&text)
            .map_err(|error| CheckpointError::damaged(format!("turn {turn}: {error}")))?;
        if record.turn != turn {
            return Err(CheckpointError::damaged(format!(
                "turns/{turn}.json holds turn {}",
                record.turn
            )));
        }
        Ok(record)
    }

    /// Writes the index's header and the records of `turns` (positions in
    /// `index.turns`) whose text changed since `written` saw them, each
    /// atomically, 0600. A record over the per-turn bound is refused: the
    /// change it was for does not happen.
    pub(crate) fn save_index(
        &self,
        index: &Index,
        turns: &[usize],
        written: &mut HashMap<u64, u64>,
    ) -> Result<(), CheckpointError> {
        self.ensure_dir(TURNS_DIR)?;
        for &at in turns {
            let Some(record) = index.turns.get(at) else {
                continue;
            };
            let text = serde_json::to_string(record)
                .map_err(|error| CheckpointError::damaged(format!("cannot encode: {error}")))?;
            if text.len() as u64 > MAX_TURN_BYTES {
                return Err(CheckpointError::SessionFull {
                    limit: MAX_TURN_BYTES,
                });
            }
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut hasher);
            let hash = hasher.finish();
            if written.get(&record.turn) == Some(&hash) {
                continue;
            }
            self.dir
                .write_private(&self.turn_path(record.turn)?, text.as_bytes())?;
            written.insert(record.turn, hash);
        }
        let header = Header {
            version: INDEX_VERSION,
            turns: Vec::new(),
            turn_files: index.turns.iter().map(|record| record.turn).collect(),
            redo: index.redo.clone(),
            seq: index.seq,
            kept_bytes: index.kept_bytes,
            outside_git: index.outside_git,
        };
        let text = serde_json::to_string(&header)
            .map_err(|error| CheckpointError::damaged(format!("cannot encode: {error}")))?;
        let path = self.dir.path(INDEX_FILE)?;
        self.dir.write_private(&path, text.as_bytes())?;
        Ok(())
    }
}

/// `index.json`: what the session's checkpoints hold, without the turns'
/// records (each in `turns/N.json`).
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    version: u32,
    /// Formats 1 and 2 kept every record here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    turns: Vec<TurnRecord>,
    #[serde(default)]
    turn_files: Vec<u64>,
    #[serde(default)]
    redo: Option<RedoRecord>,
    #[serde(default)]
    seq: u64,
    #[serde(default)]
    kept_bytes: u64,
    #[serde(default)]
    outside_git: bool,
}
