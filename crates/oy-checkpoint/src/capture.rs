//! What is at a workspace path now, as a checkpoint [`State`]: a file's
//! digest and mode (and its bytes when they fit the bound), a directory
//! with every entry below it, or absence. Everything is read through
//! `oy-boundary`; links are recorded, never followed.

use std::io::Read as _;

use oy_boundary::{BoundaryError, FileKind, WalkOptions, Workspace, WorkspacePath};
use sha2::{Digest, Sha256};

use crate::blobs::{digest_of, hex};
use crate::checkpoints::Limits;
use crate::error::CheckpointError;
use crate::index::{NotKept, State};

/// The largest file whose digest is computed (larger ones are recorded as
/// "a file over …", and undo leaves them as they are).
const MAX_HASHED_BYTES: u64 = 256 * 1024 * 1024;

/// One path's state, with the bytes to keep when they are kept.
#[derive(Debug)]
pub(crate) struct Captured {
    pub(crate) path: String,
    pub(crate) state: State,
    pub(crate) bytes: Option<Vec<u8>>,
}

/// The text a path is recorded under: relative to the root, no trailing
/// slash.
pub(crate) fn key(path: &WorkspacePath) -> String {
    path.to_text().trim_end_matches('/').to_owned()
}

/// The state of `path` and, for a directory, of everything below it,
/// each handed to `keep` as it is read (so a large tree is never held in
/// memory at once). Paths that cannot be kept whole go to `not_kept`.
pub(crate) fn capture(
    ws: &Workspace,
    path: &WorkspacePath,
    limits: &Limits,
    not_kept: &mut Vec<NotKept>,
    keep: &mut dyn FnMut(Captured) -> Result<(), CheckpointError>,
) -> Result<(), CheckpointError> {
    let mut out = Vec::new();
    let state = capture_one(ws, path, limits, &mut out, not_kept)?;
    for found in out.drain(..) {
        keep(found)?;
    }
    if matches!(state, State::Dir { .. }) {
        let mut options = WalkOptions::new(path.clone());
        options.respect_ignore_files = false;
        options.include_hidden = true;
        options.max_entries = Some(limits.max_entries);
        let walk = ws.walk(&options)?;
        if walk.truncated {
            not_kept.push(NotKept {
                path: key(path),
                why: format!(
                    "a directory of more than {} entries: only the first are kept",
                    limits.max_entries
                ),
            });
        }
        for entry in &walk.entries {
            if entry.kind == FileKind::Directory || entry.kind == FileKind::File {
                capture_one(ws, &entry.path, limits, &mut out, not_kept)?;
            } else {
                out.push(Captured {
                    path: key(&entry.path),
                    state: State::Other {
                        what: entry.kind.to_string(),
                    },
                    bytes: None,
                });
            }
            for found in out.drain(..) {
                keep(found)?;
            }
        }
    }
    Ok(())
}

/// The state of `path` alone, with its bytes when kept (a directory's
/// entries are not visited).
pub(crate) fn capture_single(
    ws: &Workspace,
    path: &WorkspacePath,
    limits: &Limits,
    not_kept: &mut Vec<NotKept>,
) -> Result<Captured, CheckpointError> {
    let mut out = Vec::new();
    capture_one(ws, path, limits, &mut out, not_kept)?;
    out.pop()
        .ok_or_else(|| CheckpointError::damaged("a capture found nothing"))
}

/// The state of `path` alone (a directory's entries are not visited).
pub(crate) fn state_of(ws: &Workspace, path: &WorkspacePath) -> Result<State, CheckpointError> {
    let mut sink = Vec::new();
    let limits = Limits {
        max_file_bytes: 0,
        ..Limits::default()
    };
    capture_one(ws, path, &limits, &mut sink, &mut Vec::new())
}

fn capture_one(
    ws: &Workspace,
    path: &WorkspacePath,
    limits: &Limits,
    out: &mut Vec<Captured>,
    not_kept: &mut Vec<NotKept>,
) -> Result<State, CheckpointError> {
    // A path beneath a link (even one that stays inside the root) is not
    // what was there: record that, never what the link leads to.
    let beneath_link = match ws.resolved(path, false) {
        Ok(real) => real.as_path() != path.as_path(),
        // A parent that leads out of the root: a link all the same.
        Err(error) if error.is_escape() => true,
        Err(error) => return Err(error.into()),
    };
    if beneath_link {
        let state = State::Other {
            what: "path beneath a symbolic link".to_owned(),
        };
        out.push(Captured {
            path: key(path),
            state: state.clone(),
            bytes: None,
        });
        return Ok(state);
    }
    let meta = match ws.symlink_metadata(path) {
        Ok(meta) => meta,
        Err(BoundaryError::NotFound { .. }) => {
            out.push(Captured {
                path: key(path),
                state: State::Absent,
                bytes: None,
            });
            return Ok(State::Absent);
        }
        Err(error) => return Err(error.into()),
    };
    let (state, bytes) = match meta.kind {
        FileKind::File if meta.len <= limits.max_file_bytes => {
            let bytes = ws.read_bytes(path, limits.max_file_bytes.max(1))?;
            let state = State::File {
                digest: digest_of(&bytes),
                mode: meta.mode,
                len: bytes.len() as u64,
                kept: true,
            };
            (state, Some(bytes))
        }
        // Not even hashed: reading it whole at every turn end would cost
        // minutes; its changes are "unknown", so undo never touches it.
        FileKind::File if meta.len > MAX_HASHED_BYTES => (
            State::Other {
                what: format!("file over {}", size(MAX_HASHED_BYTES)),
            },
            None,
        ),
        FileKind::File => {
            let digest = stream_digest(ws, path)?;
            if limits.max_file_bytes > 0 {
                not_kept.push(NotKept {
                    path: key(path),
                    why: format!(
                        "{}, over the {} a checkpoint keeps of one file",
                        size(meta.len),
                        size(limits.max_file_bytes)
                    ),
                });
            }
            let state = State::File {
                digest,
                mode: meta.mode,
                len: meta.len,
                kept: false,
            };
            (state, None)
        }
        FileKind::Directory => (State::Dir { mode: meta.mode }, None),
        other => (
            State::Other {
                what: other.to_string(),
            },
            None,
        ),
    };
    out.push(Captured {
        path: key(path),
        state: state.clone(),
        bytes,
    });
    Ok(state)
}

/// The SHA-256 of a file too large to hold, read in pieces.
fn stream_digest(ws: &Workspace, path: &WorkspacePath) -> Result<String, CheckpointError> {
    let mut file = ws.open_file(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        let read = file.read(&mut buffer).map_err(|error| {
            CheckpointError::Boundary(BoundaryError::Io {
                path: path.to_text(),
                operation: "read",
                source: error,
            })
        })?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex(&hasher.finalize()))
}

/// `12.0 MiB`.
pub(crate) fn size(bytes: u64) -> String {
    #[expect(clippy::cast_precision_loss, reason = "a size shown to people")]
    let mib = bytes as f64 / (1024.0 * 1024.0);
    if mib >= 1.0 {
        format!("{mib:.1} MiB")
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}
