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
use super::{Change, ChangeJournal, RECORD_SUFFIX, Record, VERSION, remove, rename};
use crate::state::content_digest;

/// Files larger than this are not a patch's text: never read whole here.
const MAX_TEXT: u64 = 256 * 1024 * 1024;

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
            RecoveryOutcome::Incomplete => format!(
                "{what} half way; undoing it failed for {} (restored: {}); oy tries again at its next start",
                self.failed.join(", "),
                if self.restored.is_empty() {
                    "nothing".to_owned()
                } else {
                    self.restored.join(", ")
                }
            ),
            RecoveryOutcome::Unreadable => format!(
                "the record of an interrupted change could not be read (damaged); it was set aside as {}: check the files it names",
                self.record.display()
            ),
        };
        if !self.left.is_empty() {
            text.push_str(&format!(
                "; left as they are (not the change's own text): {}",
                self.left.join(", ")
            ));
        }
        text
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
        // Oldest first: the name starts with the pid, then the time.
        names.sort_by_key(|name| started_at(name));
        let mut recovered = Vec::new();
        for name in names {
            let path = self.dir.join(&name);
            if name.starts_with('.') && name.ends_with(".tmp") {
                remove_stale_temporary(&path, &name);
            } else if name.ends_with(RECORD_SUFFIX)
                && let Some(done) = recover_record(ws, &path)
            {
                recovered.push(done);
            }
        }
        recovered
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
    // Another start finished it while this one waited to open it.
    if file.metadata().ok()?.nlink() == 0 {
        return None;
    }
    let mut text = Vec::new();
    let record: Option<Record> = file
        .read_to_end(&mut text)
        .ok()
        .and_then(|_| serde_json::from_slice(&text).ok());
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
    if record.version != VERSION || Path::new(&record.workspace) != ws.root() {
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
    let states: Vec<State> = record
        .changes
        .iter()
        .map(|change| state(ws, change))
        .collect();
    let mut recovered = Recovered {
        tool: record.tool.clone(),
        call_id: record.call_id.clone(),
        outcome: RecoveryOutcome::RolledBack,
        restored: Vec::new(),
        left: Vec::new(),
        failed: Vec::new(),
        record: std::path::PathBuf::new(),
    };
    if states.iter().all(|state| matches!(state, State::Done)) {
        recovered.outcome = RecoveryOutcome::Landed;
        return recovered;
    }
    if states.iter().all(|state| matches!(state, State::NotDone)) {
        recovered.outcome = RecoveryOutcome::NothingChanged;
        return recovered;
    }
    for (change, state) in record.changes.iter().zip(&states).rev() {
        let shown = shown(change);
        match (state, undo(ws, change, state)) {
            (State::NotDone, _) => {
                if !holds_old_state(ws, change) {
                    recovered.left.push(shown);
                }
            }
            (_, Ok(())) => recovered.restored.push(shown),
            (_, Err(error)) => recovered.failed.push(format!("{shown} ({error})")),
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
        Change::Move { to, .. } => path(to).is_some_and(|p| is_absent(ws, &p)),
        Change::Delete { path: p, .. } => path(p).is_some_and(|p| !is_absent(ws, &p)),
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

fn undo(ws: &Workspace, change: &Change, state: &State) -> Result<(), String> {
    let path = |text: &str| ws.path(text).map_err(|e| e.to_string());
    let failed = |e: BoundaryError| e.to_string();
    match (change, state) {
        (_, State::NotDone) => Ok(()),
        (
            Change::Create {
                path: p, new_dirs, ..
            },
            _,
        ) => {
            ws.remove_exactly(&path(p)?, false).map_err(failed)?;
            remove_empty_dirs(ws, new_dirs);
            Ok(())
        }
        (Change::Replace { path: p, undo, .. }, _) => {
            let p = path(p)?;
            restore_text(ws, &p, &p, undo)
        }
        (
            Change::Delete {
                path: p,
                old_text,
                mode,
            },
            _,
        ) => ws
            .restore_file(&path(p)?, old_text.as_bytes(), *mode)
            .map(drop)
            .map_err(failed),
        (
            Change::Move {
                from,
                to,
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
                restore_text(ws, &from, &from, undo)?;
            }
            remove_empty_dirs(ws, new_dirs);
            Ok(())
        }
    }
}

/// Puts back the old text of the file at `read` (which holds the new
/// text) at `write`, keeping its mode.
fn restore_text(
    ws: &Workspace,
    read: &WorkspacePath,
    write: &WorkspacePath,
    undo: &[super::Splice],
) -> Result<(), String> {
    if undo.is_empty() {
        return Ok(());
    }
    let meta = ws.symlink_metadata(read).map_err(|e| e.to_string())?;
    let new = ws.read_bytes(read, MAX_TEXT).map_err(|e| e.to_string())?;
    let old = apply_undo(&new, undo)
        .ok_or_else(|| "the recorded undo does not fit the file".to_owned())?;
    ws.restore_file(write, &old, meta.mode)
        .map(drop)
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
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}
