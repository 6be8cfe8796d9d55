//! The intent journal: how a change of several files (a multi-file
//! `patch`) lands whole or not at all even when oy is killed or the power
//! fails half way (docs/crash-safety.md).
//!
//! Before the first file changes, the tool writes a record of every step
//! to a file in oy's private data directory (never in the workspace): for
//! each path, the SHA-256 of the text it is about to hold and what undoes
//! it (the old bytes of the regions that change, see `splice.rs`). The
//! record is `fsync`ed, and so is its directory, before anything in the
//! workspace moves; it is removed once every change is durable. The
//! writing process holds an exclusive `flock` on it all along, so a
//! record nobody holds belongs to a process that died: the next start of
//! oy in that workspace (and `oy doctor`) finishes it in `recover.rs`.

mod recover;
mod splice;

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub use recover::{Recovered, RecoveryOutcome};
pub(crate) use splice::{Splice, undo_splices};

#[cfg(test)]
mod tests;

/// The name of the directory, under a frontend's data directory, that
/// holds the journals (one subdirectory per workspace).
pub const JOURNAL_DIR: &str = "journal";

/// The record format; a record of another version is left alone.
pub(crate) const VERSION: u32 = 1;

/// The ending of a record that is in effect (a `.tmp` file is one being
/// written).
const RECORD_SUFFIX: &str = ".journal";

/// The intent journal of one workspace: a private directory holding one
/// record per change in progress.
#[derive(Debug, Clone)]
pub struct ChangeJournal {
    dir: PathBuf,
    /// How long [`Self::lock`] waits ([`LOCK_WAIT`]; shorter in tests).
    lock_wait: std::time::Duration,
}

/// Why a record could not be written: the change is then not made.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the change's journal in {}: {source}", dir.display())]
pub struct JournalError {
    dir: PathBuf,
    #[source]
    source: std::io::Error,
}

/// What one multi-file change is about to do, as written to its record.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) version: u32,
    /// The workspace root the paths are relative to.
    pub(crate) workspace: String,
    pub(crate) tool: String,
    pub(crate) call_id: String,
    /// The process making the change: its temp files are known by it.
    pub(crate) pid: u32,
    pub(crate) started_ms: u64,
    /// In the order they are made.
    pub(crate) changes: Vec<Change>,
}

/// One step of a change. `new` is the SHA-256 (hex) of the text the
/// destination holds once the step is done: a file holding exactly that
/// is the step's work, anything else is not (and is never touched).
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Change {
    /// A file made where there was none (and the directories made for it,
    /// deepest first).
    Create {
        path: String,
        new: String,
        new_dirs: Vec<String>,
    },
    /// A file's text replaced: `undo` turns the new text back into the
    /// old, `old_len` bytes long.
    Replace {
        path: String,
        new: String,
        old_len: u64,
        undo: Vec<Splice>,
    },
    /// A file renamed (and maybe changed): `old` is the SHA-256 of its
    /// text before, so a rename done without its rewrite is recognised.
    Move {
        from: String,
        to: String,
        old: String,
        new: String,
        new_dirs: Vec<String>,
        undo: Vec<Splice>,
    },
    /// A file removed: its whole text and mode.
    Delete {
        path: String,
        old_text: String,
        mode: u32,
    },
}

/// How [`ChangeJournal::lock`] holds the workspace's lock file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LockKind {
    /// A change landing: many at once.
    Shared,
    /// Recovery: alone.
    Exclusive,
}

/// How long a start waits for changes landing (or another start's
/// recovery) before it leaves recovery to the next start.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A record in effect: held (locked) by this process until
/// [`Self::finish`]. Dropped without finishing (the change failed and
/// could not be fully undone), it stays for the next start to complete.
#[derive(Debug)]
pub(crate) struct Intent {
    path: PathBuf,
    /// Holds the `flock` that tells others this change is alive.
    _file: File,
    /// Holds the workspace's lock shared: no recovery runs meanwhile.
    _landing: File,
}

impl ChangeJournal {
    /// The journal of the workspace at `root` (its canonical path) under
    /// `base` (the frontend's private data directory for journals): one
    /// subdirectory per workspace, named by a digest of the root.
    pub fn for_workspace(base: &Path, root: &Path) -> Self {
        let digest = crate::state::content_digest(root.as_os_str().as_encoded_bytes());
        Self {
            dir: base.join(digest.get(..16).unwrap_or(&digest)),
            lock_wait: LOCK_WAIT,
        }
    }

    /// The same journal, waiting at most `wait` for the workspace's lock.
    #[cfg(test)]
    pub(crate) fn with_lock_wait(mut self, wait: std::time::Duration) -> Self {
        self.lock_wait = wait;
        self
    }

    /// The directory holding this workspace's records.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `record` durably (file and directory `fsync`ed) and holds
    /// it. Nothing in the workspace may change before this returns `Ok`.
    pub(crate) fn begin(&self, record: &Record) -> Result<Intent, JournalError> {
        let fail = |source| JournalError {
            dir: self.dir.clone(),
            source,
        };
        crate::trust::private_dir(&self.dir, None).map_err(|e| fail(std::io::Error::other(e)))?;
        let landing = self.lock(LockKind::Shared).ok_or_else(|| {
            fail(std::io::Error::other(
                "another oy is completing an interrupted change here",
            ))
        })?;
        let stem = format!(
            "{}-{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        let temporary = self.dir.join(format!(".{stem}.tmp"));
        let path = self.dir.join(format!("{stem}{RECORD_SUFFIX}"));
        let file = create_private(&temporary).map_err(fail)?;
        let written = (|| {
            // Held before the record has its name, so no one ever sees
            // it unheld while this process lives.
            file.lock()?;
            let mut text = serde_json::to_vec(record).map_err(std::io::Error::other)?;
            text.push(b'\n');
            (&file).write_all(&text)?;
            file.sync_all()?;
            rename(&temporary, &path)?;
            sync_dir(&self.dir)
        })();
        if let Err(error) = written {
            let _ = remove(&temporary);
            let _ = remove(&path);
            return Err(fail(error));
        }
        Ok(Intent {
            path,
            _file: file,
            _landing: landing,
        })
    }

    /// The workspace's lock file (`lock` in the journal's directory),
    /// held as `kind`, waiting a bounded time ([`LOCK_WAIT`]); `None` when
    /// it cannot be had.
    pub(crate) fn lock(&self, kind: LockKind) -> Option<File> {
        let file = open_lock(&self.dir.join("lock")).ok()?;
        let deadline = std::time::Instant::now() + self.lock_wait;
        loop {
            let tried = match kind {
                LockKind::Shared => file.try_lock_shared(),
                LockKind::Exclusive => file.try_lock(),
            };
            match tried {
                Ok(()) => return Some(file),
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(_) => return None,
            }
        }
    }
}

impl Intent {
    /// The change is complete (or fully undone) and durable: forgets it.
    /// When the record cannot be removed, the next start finds every step
    /// done (or none) and removes it then.
    pub(crate) fn finish(self) {
        let _ = remove(&self.path);
    }
}

/// Milliseconds since the epoch, for the record.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[expect(
    clippy::disallowed_methods,
    reason = "the journal lives in oy's private data directory, outside every workspace"
)]
fn create_private(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the journal lives in oy's private data directory, outside every workspace"
)]
fn open_lock(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the journal lives in oy's private data directory, outside every workspace"
)]
fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::rename(from, to)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the journal lives in oy's private data directory, outside every workspace"
)]
fn remove(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(path)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the journal lives in oy's private data directory, outside every workspace"
)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}
