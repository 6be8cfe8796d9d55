//! Finishing the changes of processes that died: every record in the
//! journal that no live process holds is read, and its change made whole
//! or undone whole (docs/crash-safety.md).
//!
//! Each step is judged by what its paths hold now. A step whose
//! destination holds exactly the new text (by SHA-256) is done; one whose
//! destination is missing or holds anything else is not. When every step
//! is done the change had landed whole and only its record is removed.
//! Otherwise the steps that are done are undone, last first — and only
//! those: a file holding anything but the change's own new text (edited
//! since, or never reached) is left exactly as it is. Undoing never
//! follows a link (`Workspace::restore_file`, `remove_exactly`).

use std::fs::{File, TryLockError};
use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;
use std::time::{Duration, SystemTime};

use oy_boundary::{BoundaryError, FileKind, Workspace, WorkspacePath};
use serde::Serialize;

use super::splice::apply_undo;
use super::{Change, ChangeJournal, LockKind, RECORD_SUFFIX, Record, VERSION, remove, rename};
use crate::state::content_digest;

/// Files larger than this are not a patch's text: never read whole here.
const MAX_TEXT: u64 = 256 * 1024 * 1024;

/// A record larger than this is not one oy wrote (a patch's files are
/// each at most a few MiB): left alone.
const MAX_RECORD: u64 = 1024 * 1024 * 1024;

/// A `.tmp` record nobody holds and older than this was never put in
/// effect by a live process: it is removed.
const STALE_TEMPORARY: Duration = Duration::from_secs(60);

/// What became of an interrupted change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RecoveryOutcome {
    /// Every step had been done: it stands, whole.
    Landed,
    /// No step had been done: nothing to undo.
    NothingChanged,
    /// The steps that were done have been undone.
    RolledBack,
    /// Files it touched were changed by someone since: nothing was undone
    /// (that could make their work half), and they are named.
    ChangedSince,
    /// Undoing some steps failed: the record is kept and the next start
    /// tries again.
    Incomplete,
    /// The record could not be read (damaged: one is only put in effect
    /// once wholly written and `fsync`ed): set aside, renamed to end in
    /// `.damaged`, for a person to look at.
    Unreadable,
}

/// One interrupted change, and what was done about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recovered {
    /// The tool that made the change (`patch`).
    pub tool: String,
    /// The provider's id for the call.
    pub call_id: String,
    /// What became of it.
    pub outcome: RecoveryOutcome,
    /// Paths put back as they were before the change.
    pub restored: Vec<String>,
    /// Paths the change touched that hold something else now (edited
    /// since, or never reached): left as they are.
    pub left: Vec<String>,
    /// Paths that could not be put back, with why.
    pub failed: Vec<String>,
    /// The record's file (where an unreadable one was set aside).
    pub record: std::path::PathBuf,
}

impl Recovered {
    /// One paragraph for people.
    pub fn message(&self) -> String {
        let what = format!(
            "a `{}` change (call {}) was interrupted when oy stopped",
            self.tool, self.call_id
        );
        let mut text = match self.outcome {
            RecoveryOutcome::Landed => format!("{what}; it had landed whole and stands"),
            RecoveryOutcome::NothingChanged => {
                format!("{what} before it changed anything; nothing to undo")
            }
            RecoveryOutcome::RolledBack => format!(
                "{what} half way; undone, so none of it applies (restored: {})",
                self.restored.join(", ")
            ),
            RecoveryOutcome::ChangedSince => format!(
                "{what} half way, and files it touched were changed since; nothing was undone: check {} (it had changed: {})",
                self.left.join(", "),
                if self.restored.is_empty() {
                    "nothing".to_owned()
                } else {
                    self.restored.join(", ")
                }
            ),
            RecoveryOutcome::Incomplete => format!(
                "{what} half way; undoing it failed for {} (restored: {}); oy tries again at its next start (to stop that, remove {})",
                self.failed.join(", "),
                if self.restored.is_empty() {
                    "nothing".to_owned()
                } else {
                    self.restored.join(", ")
                },
                self.record.display()
            ),
            RecoveryOutcome::Unreadable => format!(
                "the record of an interrupted change could not be read (damaged); it was set aside as {}: check the files it names",
                self.record.display()
            ),
        };
        if !self.left.is_empty() && self.outcome != RecoveryOutcome::ChangedSince {
            text.push_str(&format!(
                "; left as they are (not the change's own text): {}",
                self.left.join(", ")
            ));
        }
        // One line: a call id or a file name cannot start another.
        text.chars()
            .map(|c| if c.is_control() { '\u{fffd}' } else { c })
            .collect()
    }
}

impl ChangeJournal {
    /// Completes every change in this journal that no live process holds,
    /// in `ws` (which must be the workspace the journal belongs to), and
    /// says what became of each. A journal that was never written to
    /// costs one failed directory read.
    pub fn recover(&self, ws: &Workspace) -> Vec<Recovered> {
        let Ok(entries) = read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .collect();
        // Records that were being written when their process died: no
        // lock needed, each is checked on its own.
        names.retain(|name| {
            let temporary = name.starts_with('.') && name.ends_with(".tmp");
            if temporary {
                remove_stale_temporary(&self.dir.join(name), name);
            }
            name.ends_with(RECORD_SUFFIX)
        });
        if names.is_empty() {
            return Vec::new();
        }
        // No change of this workspace lands while recovery runs, and two
        // starts never recover at once: the second waits, then finds the
        // work done (see `ChangeJournal::begin`).
        let Some(_exclusive) = self.lock(LockKind::Exclusive) else {
            return Vec::new();
        };
        // Newest first, as undo goes: a later change was made on top of
        // an earlier one's result (the name is `PID-NANOS`).
        names.sort_by_key(|name| std::cmp::Reverse(started_at(name)));
        names
            .iter()
            .filter_map(|name| recover_record(ws, &self.dir.join(name)))
            .collect()
    }
}

/// The nanoseconds in a record's name (`PID-NANOS.journal`).
fn started_at(name: &str) -> u128 {
    name.trim_start_matches('.')
        .split(['-', '.'])
        .nth(1)
        .and_then(|nanos| nanos.parse().ok())
        .unwrap_or(0)
}

/// Removes a record that was being written when its process died: one
/// nobody holds, whose process (named by the pid in the file name) is
/// gone — or, since a pid can be reused, that is older than a minute.
fn remove_stale_temporary(path: &Path, name: &str) {
    let Ok(file) = open(path) else { return };
    let writer_gone = name
        .trim_start_matches('.')
        .split('-')
        .next()
        .and_then(|pid| pid.parse::<i32>().ok())
        .and_then(rustix::process::Pid::from_raw)
        .is_some_and(|pid| rustix::process::test_kill_process(pid).is_err());
    let stale = writer_gone
        || file
            .metadata()
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| SystemTime::now().duration_since(modified).ok())
            .is_some_and(|age| age > STALE_TEMPORARY);
    if stale && file.try_lock().is_ok() {
        let _ = remove(path);
    }
}

/// Finishes one record, or `None` when a live process holds it (or it
/// belongs to another workspace or version).
fn recover_record(ws: &Workspace, path: &Path) -> Option<Recovered> {
    let mut file = open(path).ok()?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock | TryLockError::Error(_)) => return None,
    }
    // Only a record oy could have written: a regular file of this user's,
    // of a sane size; and not one another start finished meanwhile.
    let meta = file.metadata().ok()?;
    if !meta.is_file()
        || meta.uid() != rustix::process::geteuid().as_raw()
        || meta.len() > MAX_RECORD
        || meta.nlink() == 0
    {
        return None;
    }
    let mut text = Vec::new();
    file.read_to_end(&mut text).ok()?;
    // A record of another format is another oy's to finish.
    #[derive(serde::Deserialize)]
    struct Version {
        version: u32,
    }
    if serde_json::from_slice::<Version>(&text).is_ok_and(|found| found.version != VERSION) {
        return None;
    }
    let record: Option<Record> = serde_json::from_slice(&text).ok();
    let Some(record) = record else {
        let aside = path.with_extension("damaged");
        let _ = rename(path, &aside);
        return Some(Recovered {
            tool: String::new(),
            call_id: String::new(),
            outcome: RecoveryOutcome::Unreadable,
            restored: Vec::new(),
            left: Vec::new(),
            failed: Vec::new(),
            record: aside,
        });
    };
    if Path::new(&record.workspace) != ws.root() {
        return None;
    }
    let mut recovered = complete(ws, &record);
    recovered.record = path.to_path_buf();
    // A write killed between making its file and renaming it leaves a
    // hidden temp file named after the dead process: swept now.
    for change in &record.changes {
        for path in change.paths() {
            if let Ok(path) = ws.path(path) {
                let _ = ws.remove_write_debris(&path, record.pid);
            }
        }
    }
    if recovered.outcome != RecoveryOutcome::Incomplete {
        let _ = remove(path);
    }
    Some(recovered)
}

/// Where one step stands now.
enum State {
    Done,
    /// A move whose rename happened but not its rewrite (or whose undo
    /// did the rewrite but not the rename): renaming back suffices.
    Renamed,
    NotDone,
}

fn complete(ws: &Workspace, record: &Record) -> Recovered {
    let mut recovered = Recovered {
        tool: record.tool.clone(),
        call_id: record.call_id.clone(),
        outcome: RecoveryOutcome::RolledBack,
        restored: Vec::new(),
        left: Vec::new(),
        failed: Vec::new(),
        record: std::path::PathBuf::new(),
    };
    // The steps are recorded in the order they are made, so a process
    // killed half way leaves some first steps done (the last of them
    // perhaps half) and every later one as it was.
    let done = record
        .changes
        .iter()
        .take_while(|change| !matches!(state(ws, change), State::NotDone))
        .count();
    let (made, not_made) = record.changes.split_at(done);
    if not_made.is_empty() {
        recovered.outcome = RecoveryOutcome::Landed;
        return recovered;
    }
    // Anything else means someone changed these files since: nothing is
    // undone (that could make a whole of their work half), and they are
    // named.
    let changed: Vec<String> = not_made
        .iter()
        .filter(|change| !holds_old_state(ws, change))
        .map(shown)
        .collect();
    if !changed.is_empty() {
        recovered.outcome = RecoveryOutcome::ChangedSince;
        recovered.left = changed;
        recovered.restored = made.iter().map(shown).collect();
        return recovered;
    }
    if made.is_empty() {
        recovered.outcome = RecoveryOutcome::NothingChanged;
        return recovered;
    }
    for change in made.iter().rev() {
        let shown = shown(change);
        // Judged again right before acting: a file changed since the
        // first look is left alone.
        let state = state(ws, change);
        match undo(ws, change, &state) {
            Ok(true) => recovered.restored.push(shown),
            Ok(false) => recovered.left.push(shown),
            Err(error) => recovered.failed.push(format!("{shown} ({error})")),
        }
    }
    recovered.restored.reverse();
    recovered.left.reverse();
    recovered.failed.reverse();
    if !recovered.failed.is_empty() {
        recovered.outcome = RecoveryOutcome::Incomplete;
    }
    recovered
}

impl Change {
    /// Every path the step touches.
    fn paths(&self) -> Vec<&str> {
        match self {
            Self::Create { path, .. } | Self::Replace { path, .. } | Self::Delete { path, .. } => {
                vec![path]
            }
            Self::Move { from, to, .. } => vec![from, to],
        }
    }
}

fn shown(change: &Change) -> String {
    match change {
        Change::Create { path, .. }
        | Change::Replace { path, .. }
        | Change::Delete { path, .. } => path.clone(),
        Change::Move { from, to, .. } => format!("{to} (moved from {from})"),
    }
}

/// The SHA-256 of the file at `path`; `None` when there is no regular
/// file there (or it cannot be read).
fn digest_of(ws: &Workspace, path: &WorkspacePath) -> Option<String> {
    let meta = ws.symlink_metadata(path).ok()?;
    if meta.kind != FileKind::File || meta.len > MAX_TEXT {
        return None;
    }
    ws.read_bytes(path, MAX_TEXT)
        .ok()
        .map(|bytes| content_digest(&bytes))
}

fn is_absent(ws: &Workspace, path: &WorkspacePath) -> bool {
    matches!(
        ws.symlink_metadata(path),
        Err(BoundaryError::NotFound { .. })
    )
}

fn state(ws: &Workspace, change: &Change) -> State {
    let path = |text: &str| ws.path(text).ok();
    let done = match change {
        Change::Create { path: p, new, .. } | Change::Replace { path: p, new, .. } => {
            path(p).and_then(|p| digest_of(ws, &p)).as_ref() == Some(new)
        }
        Change::Delete { path: p, .. } => path(p).is_some_and(|p| is_absent(ws, &p)),
        Change::Move {
            from, to, old, new, ..
        } => {
            let (Some(from), Some(to)) = (path(from), path(to)) else {
                return State::NotDone;
            };
            let (at_from, at_to) = (digest_of(ws, &from), digest_of(ws, &to));
            let from_absent = at_from.is_none() && is_absent(ws, &from);
            let to_absent = at_to.is_none() && is_absent(ws, &to);
            if from_absent && at_to.as_ref() == Some(new) {
                true
            } else if old != new
                && ((from_absent && at_to.as_ref() == Some(old))
                    || (to_absent && at_from.as_ref() == Some(new)))
            {
                return State::Renamed;
            } else {
                false
            }
        }
    };
    if done { State::Done } else { State::NotDone }
}

/// True when a step that is not done leaves its path as it was before the
/// change (so it need not be named as left alone).
fn holds_old_state(ws: &Workspace, change: &Change) -> bool {
    let path = |text: &str| ws.path(text).ok();
    match change {
        Change::Create { path: p, .. } => path(p).is_some_and(|p| is_absent(ws, &p)),
        Change::Move { from, to, old, .. } => {
            path(to).is_some_and(|p| is_absent(ws, &p))
                && path(from).and_then(|p| digest_of(ws, &p)).as_ref() == Some(old)
        }
        Change::Delete { path: p, .. } => path(p).is_some_and(|p| {
            ws.symlink_metadata(&p)
                .is_ok_and(|meta| meta.kind == FileKind::File)
        }),
        Change::Replace {
            path: p,
            old_len,
            undo,
            ..
        } => path(p).is_some_and(|p| looks_old(ws, &p, *old_len, undo)),
    }
}

/// True when the file at `path` has the old text's length and the old
/// bytes where the change would have put new ones: the change never
/// reached it. Only for what is said; nothing is done on this ground.
fn looks_old(ws: &Workspace, path: &WorkspacePath, old_len: u64, undo: &[super::Splice]) -> bool {
    let Ok(meta) = ws.symlink_metadata(path) else {
        return false;
    };
    if meta.kind != FileKind::File || meta.len != old_len {
        return false;
    }
    let Ok(bytes) = ws.read_bytes(path, MAX_TEXT) else {
        return false;
    };
    // Where each splice's old bytes sit in the old text.
    let mut shift: i128 = 0;
    undo.iter().all(|splice| {
        let at = i128::try_from(splice.at).unwrap_or(i128::MAX) + shift;
        shift += splice.old.len() as i128 - splice.len as i128;
        usize::try_from(at)
            .ok()
            .and_then(|at| bytes.get(at..at.checked_add(splice.old.len())?))
            .is_some_and(|held| held == splice.old.as_bytes())
    })
}

/// Undoes one step that is done (`Ok(false)`: it is not, or its file
/// changed between the look and the act: left alone).
fn undo(ws: &Workspace, change: &Change, state: &State) -> Result<bool, String> {
    let path = |text: &str| ws.path(text).map_err(|e| e.to_string());
    let failed = |e: BoundaryError| e.to_string();
    match (change, state) {
        (_, State::NotDone) => Ok(false),
        (
            Change::Create {
                path: p,
                new,
                new_dirs,
            },
            _,
        ) => {
            let p = path(p)?;
            if digest_of(ws, &p).as_ref() != Some(new) {
                return Ok(false);
            }
            ws.remove_exactly(&p, false).map_err(failed)?;
            remove_empty_dirs(ws, new_dirs);
            Ok(true)
        }
        (
            Change::Replace {
                path: p, new, undo, ..
            },
            _,
        ) => {
            let p = path(p)?;
            restore_text(ws, &p, new, undo)
        }
        (
            Change::Delete {
                path: p,
                old_text,
                mode,
            },
            _,
        ) => {
            let p = path(p)?;
            if !is_absent(ws, &p) {
                return Ok(false);
            }
            ws.restore_file(&p, old_text.as_bytes(), *mode)
                .map_err(failed)?;
            Ok(true)
        }
        (
            Change::Move {
                from,
                to,
                new,
                undo,
                new_dirs,
                ..
            },
            state,
        ) => {
            let (from, to) = (path(from)?, path(to)?);
            let renamed_back = is_absent(ws, &to);
            if !renamed_back {
                ws.rename(&to, &from, false).map_err(failed)?;
            }
            if matches!(state, State::Done) || renamed_back {
                restore_text(ws, &from, new, undo)?;
            }
            remove_empty_dirs(ws, new_dirs);
            Ok(true)
        }
    }
}

/// Puts back the old text of the file at `path`, which must hold exactly
/// the new text (SHA-256 `new`) now — checked on the bytes the old text is
/// made from, a moment before the atomic write — keeping its mode.
/// `Ok(false)`: it holds something else, and is left alone.
fn restore_text(
    ws: &Workspace,
    path: &WorkspacePath,
    new: &str,
    undo: &[super::Splice],
) -> Result<bool, String> {
    if undo.is_empty() {
        return Ok(true);
    }
    let meta = ws.symlink_metadata(path).map_err(|e| e.to_string())?;
    if meta.kind != FileKind::File {
        return Ok(false);
    }
    let now = ws.read_bytes(path, MAX_TEXT).map_err(|e| e.to_string())?;
    if content_digest(&now) != new {
        return Ok(false);
    }
    let old = apply_undo(&now, undo)
        .ok_or_else(|| "the recorded undo does not fit the file".to_owned())?;
    ws.restore_file(path, &old, meta.mode)
        .map(|_| true)
        .map_err(|e| e.to_string())
}

/// Directories a step made, deepest first, removed when still empty.
fn remove_empty_dirs(ws: &Workspace, dirs: &[String]) {
    for dir in dirs {
        if let Ok(dir) = ws.path(dir)
            && ws
                .symlink_metadata(&dir)
                .is_ok_and(|meta| meta.kind == FileKind::Directory)
        {
            let _ = ws.remove_exactly(&dir, false);
        }
    }
}

#[expect(
    clippy::disallowed_methods,
    reason = "the journal lives in oy's private data directory, outside every workspace"
)]
fn read_dir(dir: &Path) -> std::io::Result<std::fs::ReadDir> {
    std::fs::read_dir(dir)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the journal lives in oy's private data directory, outside every workspace"
)]
fn open(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        // Never a link, and never stuck opening a FIFO.
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32)
        .open(path)
}
