//! `Checkpoints`: the recorder a session's tools report to. A turn opens
//! with [`Checkpoints::begin_turn`]; every file change is announced first
//! ([`Checkpoints::before_change`]) and every command too
//! ([`Checkpoints::before_command`]); after each call the touched paths'
//! new states are recorded ([`Checkpoints::after_call`]) and
//! [`Checkpoints::end_turn`] closes the turn, folding in what the turn's
//! commands changed. The index is saved after each step.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use oy_boundary::{Workspace, WorkspacePath};

use crate::blobs::Store;
use crate::capture::{Captured, capture, key};
use crate::error::CheckpointError;
use crate::git::{Git, NoSnapshots, Snapshot};
use crate::index::{
    Commands, Entry, Index, NotKept, Source, State, TurnRecord, TurnState, TurnSummary,
};

/// How much a session's checkpoints keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest file whose bytes are kept (larger ones are recognised
    /// by digest, and their changes cannot be undone).
    pub max_file_bytes: u64,
    /// All kept bytes of one session together.
    pub max_session_bytes: u64,
    /// The most entries kept of one directory tree.
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 16 * 1024 * 1024,
            max_session_bytes: 1024 * 1024 * 1024,
            max_entries: 20_000,
        }
    }
}

/// The name of oy's own git directory inside a checkpoint directory.
const GIT_DIR: &str = "git";

/// The most paths a turn's commands may change and still be undone.
pub(crate) const MAX_COMMAND_PATHS: usize = 5_000;

/// One session's checkpoints. Shared by the tools' threads.
#[derive(Debug)]
pub struct Checkpoints {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) store: Store,
    pub(crate) index: Index,
    pub(crate) limits: Limits,
    git_program: Option<PathBuf>,
    git_env: Vec<(OsString, OsString)>,
    /// The private git directory, once made (`Err`: why there is none).
    git: Option<Result<Git, NoSnapshots>>,
    /// The open turn's snapshot before its first command.
    pub(crate) before: Option<Snapshot>,
    /// A digest of each turn record as last written (unchanged ones are
    /// not written again).
    written: std::collections::HashMap<u64, u64>,
    /// The open turn's position in `index.turns`.
    current: Option<usize>,
    /// Paths of the open turn whose new state is still to be recorded
    /// (true: with everything below it).
    dirty: BTreeMap<String, bool>,
}

impl Checkpoints {
    /// Opens (or starts) the checkpoints kept in `dir`, an existing
    /// private directory for one session.
    pub fn open(dir: &Path, limits: Limits) -> Result<Self, CheckpointError> {
        let store = Store::new(Workspace::open(dir)?);
        let index = store.load_index()?;
        Ok(Self {
            inner: Mutex::new(Inner {
                store,
                index,
                limits,
                git_program: None,
                git_env: Vec::new(),
                git: None,
                before: None,
                written: std::collections::HashMap::new(),
                current: None,
                dirty: BTreeMap::new(),
            }),
        })
    }

    /// The git that takes snapshots — an absolute path outside the
    /// workspace (`None`: there is none, and command changes cannot be
    /// undone) — and the environment it runs with (the filtered child
    /// environment; every `GIT_*` variable in it is dropped).
    #[must_use]
    pub fn with_git(self, program: Option<PathBuf>, env: Vec<(OsString, OsString)>) -> Self {
        {
            let mut inner = self.lock();
            inner.git_program = program;
            inner.git_env = env;
        }
        self
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a turn numbered `turn` (or, when an earlier record already
    /// has that number — a turn oy was killed in —, the next free one),
    /// and returns the number used. A turn left open is closed as it
    /// stands: its tool changes keep what each call recorded, and its
    /// commands' changes, never seen at a turn end, cannot be undone.
    /// Starting a turn ends the chance to redo an undo.
    pub fn begin_turn(&self, turn: u64) -> Result<u64, CheckpointError> {
        let mut inner = self.lock();
        close_unfinished(&mut inner.index.turns);
        inner.index.redo = None;
        let last = inner.index.turns.iter().map(|record| record.turn).max();
        let turn = last.map_or(turn, |last| turn.max(last + 1));
        inner.index.turns.push(TurnRecord::new(turn));
        inner.current = Some(inner.index.turns.len() - 1);
        inner.dirty.clear();
        inner.before = None;
        inner.save_all()?;
        Ok(turn)
    }

    /// Saves what is at `paths` (each a tree when it is a directory, and
    /// any missing parent) before a tool changes them, once per turn. An
    /// error means nothing could be kept: the change must not happen.
    pub fn before_change(
        &self,
        ws: &Workspace,
        paths: &[WorkspacePath],
    ) -> Result<(), CheckpointError> {
        let mut inner = self.lock();
        let Some(at) = inner.current else {
            return Ok(());
        };
        let mut not_kept = Vec::new();
        for path in paths {
            for parent in missing_parents(ws, path) {
                let name = key(&parent);
                if !inner.index.turns[at].entries.contains_key(&name) {
                    inner.insert(at, &name, State::Absent, None, Source::Tool)?;
                    inner.dirty.entry(name).or_insert(false);
                }
            }
            let name = key(path);
            if inner.index.turns[at].entries.contains_key(&name) {
                inner.dirty.insert(name, true);
                continue;
            }
            let limits = inner.limits;
            let mut kept_out = Vec::new();
            capture(ws, path, &limits, &mut not_kept, &mut |found| {
                if !inner.index.turns[at].entries.contains_key(&found.path) {
                    let Captured { path, state, bytes } = found;
                    inner.insert_kept(at, &path, state, bytes, &mut kept_out)?;
                }
                Ok(())
            })?;
            not_kept.append(&mut kept_out);
            inner.dirty.insert(name, true);
        }
        inner.note(at, not_kept);
        inner.save()
    }

    /// Snapshots the working tree before the turn's first command, when
    /// the workspace is in git; otherwise records that the turn's command
    /// changes cannot be undone. Never fails the command: a failed
    /// snapshot is recorded as the reason.
    pub fn before_command(&self, ws: &Workspace) {
        let mut inner = self.lock();
        let Some(at) = inner.current else {
            return;
        };
        if inner.index.turns[at].commands != Commands::None {
            return;
        }
        let commands = match inner.git(ws) {
            Ok(git) => {
                let max = inner.limits.max_file_bytes;
                match git.snapshot(max, true) {
                    Ok(snapshot) => {
                        inner.index.seq += 1;
                        let commands = Commands::Git {
                            before_tree: snapshot.tree.clone(),
                            after_tree: None,
                            seq: inner.index.seq,
                            skipped: snapshot.left_out.keys().cloned().collect(),
                        };
                        inner.before = Some(snapshot);
                        commands
                    }
                    Err(error) => {
                        // One hang is enough: later turns of this run do
                        // not wait for it again.
                        if matches!(error, CheckpointError::GitTimedOut { .. }) {
                            inner.git = Some(Err(NoSnapshots::failed(format!(
                                "{error}; snapshots are off for the rest of this run"
                            ))));
                        }
                        Commands::Untracked {
                            why: error.to_string(),
                            outside_git: false,
                        }
                    }
                }
            }
            Err(no) => Commands::Untracked {
                why: no.why,
                outside_git: no.outside_git,
            },
        };
        inner.index.turns[at].commands = commands;
        let _ = inner.save();
    }

    /// Records the new state of every path announced since the last call.
    pub fn after_call(&self, ws: &Workspace) -> Result<(), CheckpointError> {
        let mut inner = self.lock();
        inner.record_after(ws)?;
        inner.save()
    }

    /// Closes the open turn: records the last states and what its
    /// commands changed (a second snapshot, compared with the first).
    /// `None` when no turn is open.
    pub fn end_turn(&self, ws: &Workspace) -> Option<TurnSummary> {
        let mut inner = self.lock();
        let at = inner.current.take()?;
        let _ = inner.record_after(ws);
        // What the turn left is how its paths are at its end: a command
        // may have changed a file a tool changed before it.
        let _ = inner.record_final(ws, at);
        if let Err(error) = crate::fold::fold_commands(&mut inner, ws, at) {
            inner.index.turns[at].commands = Commands::Untracked {
                why: error.to_string(),
                outside_git: false,
            };
        }
        inner.index.turns[at].state = TurnState::Closed;
        let _ = inner.save_turn(at);
        Some(inner.index.turns[at].summary())
    }

    /// Every turn's summary, oldest first.
    pub fn turns(&self) -> Vec<TurnSummary> {
        self.lock()
            .index
            .turns
            .iter()
            .map(TurnRecord::summary)
            .collect()
    }
}

impl Inner {
    /// Saves the open turn's record and the header.
    pub(crate) fn save(&mut self) -> Result<(), CheckpointError> {
        let turns: Vec<usize> = self.current.into_iter().collect();
        self.store
            .save_index(&self.index, &turns, &mut self.written)
    }

    /// Saves the record of the turn at `at` and the header.
    pub(crate) fn save_turn(&mut self, at: usize) -> Result<(), CheckpointError> {
        self.store.save_index(&self.index, &[at], &mut self.written)
    }

    /// Saves every turn's record that changed, and the header.
    pub(crate) fn save_all(&mut self) -> Result<(), CheckpointError> {
        let turns: Vec<usize> = (0..self.index.turns.len()).collect();
        self.store
            .save_index(&self.index, &turns, &mut self.written)
    }

    /// The private git directory, made once per process — never in a
    /// session that began outside git.
    pub(crate) fn git(&mut self, ws: &Workspace) -> Result<Git, NoSnapshots> {
        if self.git.is_none() {
            let found = if self.index.outside_git {
                Err(NoSnapshots {
                    why: "the workspace was not in a git repository when the session began"
                        .to_owned(),
                    outside_git: true,
                })
            } else {
                match self.store.ensure_dir(GIT_DIR) {
                    Ok(dir) => {
                        Git::open(self.git_program.as_deref(), ws.root(), dir, &self.git_env)
                    }
                    Err(error) => Err(NoSnapshots::failed(error.to_string())),
                }
            };
            if found.as_ref().is_err_and(|no| no.outside_git) {
                self.index.outside_git = true;
            }
            self.git = Some(found);
        }
        self.git
            .clone()
            .unwrap_or_else(|| Err(NoSnapshots::failed("git was not asked")))
    }

    fn insert(
        &mut self,
        at: usize,
        path: &str,
        before: State,
        after: Option<State>,
        source: Source,
    ) -> Result<(), CheckpointError> {
        self.index.seq += 1;
        let seq = self.index.seq;
        self.index.turns[at].entries.insert(
            path.to_owned(),
            Entry {
                before,
                after,
                seq,
                source,
            },
        );
        Ok(())
    }

    /// Inserts a before-state, keeping its bytes within the bounds.
    fn insert_kept(
        &mut self,
        at: usize,
        path: &str,
        state: State,
        bytes: Option<Vec<u8>>,
        not_kept: &mut Vec<NotKept>,
    ) -> Result<(), CheckpointError> {
        let state = self.keep(path, state, bytes, not_kept)?;
        self.insert(at, path, state, None, Source::Tool)
    }

    /// Stores `bytes` for `state` when the session's bound allows, else
    /// marks the state not kept and says why.
    pub(crate) fn keep(
        &mut self,
        path: &str,
        mut state: State,
        bytes: Option<Vec<u8>>,
        not_kept: &mut Vec<NotKept>,
    ) -> Result<State, CheckpointError> {
        let (State::File { digest, kept, .. }, Some(bytes)) = (&mut state, bytes) else {
            return Ok(state);
        };
        let len = bytes.len() as u64;
        if self.index.kept_bytes.saturating_add(len) > self.limits.max_session_bytes {
            *kept = false;
            not_kept.push(NotKept {
                path: path.to_owned(),
                why: format!(
                    "the session's checkpoints are full ({})",
                    crate::capture::size(self.limits.max_session_bytes)
                ),
            });
            return Ok(state);
        }
        if self.store.put(digest, &bytes)? {
            self.index.kept_bytes += len;
        }
        Ok(state)
    }

    pub(crate) fn note(&mut self, at: usize, not_kept: Vec<NotKept>) {
        let list = &mut self.index.turns[at].not_kept;
        for item in not_kept {
            if !list.iter().any(|known| known.path == item.path) {
                list.push(item);
            }
        }
    }

    /// The after-states of the dirty paths; a directory's new entries are
    /// recorded as new (absent before), its vanished ones as absent.
    fn record_after(&mut self, ws: &Workspace) -> Result<(), CheckpointError> {
        let Some(at) = self.current else {
            return Ok(());
        };
        let dirty = std::mem::take(&mut self.dirty);
        let mut not_kept = Vec::new();
        for (name, deep) in dirty {
            let Ok(path) = ws.path(&name) else { continue };
            let mut seen = std::collections::BTreeSet::new();
            let mut kept_out = Vec::new();
            let limits = self.limits;
            let mut record = |found: Captured| -> Result<(), CheckpointError> {
                let Captured { path, state, bytes } = found;
                let state = self.keep(&path, state, bytes, &mut kept_out)?;
                seen.insert(path.clone());
                match self.index.turns[at].entries.get_mut(&path) {
                    Some(entry) => entry.after = Some(state),
                    None => self.insert(at, &path, State::Absent, Some(state), Source::Tool)?,
                }
                Ok(())
            };
            if deep {
                capture(ws, &path, &limits, &mut not_kept, &mut record)?;
            } else {
                record(Captured {
                    path: name.clone(),
                    state: crate::capture::state_of(ws, &path)?,
                    bytes: None,
                })?;
            }
            not_kept.append(&mut kept_out);
            if deep {
                let prefix = format!("{name}/");
                for (path, entry) in &mut self.index.turns[at].entries {
                    if (path == &name || path.starts_with(&prefix)) && !seen.contains(path) {
                        entry.after = Some(State::Absent);
                    }
                }
            }
        }
        self.note(at, not_kept);
        Ok(())
    }
}

impl Inner {
    /// Every file and absent path of turn `at` as it is now (directories
    /// keep what `record_after` saw).
    fn record_final(&mut self, ws: &Workspace, at: usize) -> Result<(), CheckpointError> {
        let names: Vec<String> = self.index.turns[at]
            .entries
            .iter()
            .filter(|(_, entry)| !matches!(entry.after, Some(State::Dir { .. })))
            .map(|(name, _)| name.clone())
            .collect();
        let mut not_kept = Vec::new();
        for name in names {
            let Ok(path) = ws.path(&name) else { continue };
            let limits = self.limits;
            let found = crate::fold::capture_or_other(ws, &path, &limits, &mut not_kept);
            let after = self.keep(&name, found.state, found.bytes, &mut not_kept)?;
            if let Some(entry) = self.index.turns[at].entries.get_mut(&name) {
                entry.after = Some(after);
            }
        }
        self.note(at, not_kept);
        Ok(())
    }
}

/// Closes turns left open by an earlier process (oy was killed): what
/// their commands changed was never compared at a turn end, so it cannot
/// be undone; their tool changes keep what each call recorded.
pub(crate) fn close_unfinished(turns: &mut [TurnRecord]) {
    for record in turns
        .iter_mut()
        .filter(|record| record.state == TurnState::Open)
    {
        record.state = TurnState::Closed;
        if let Commands::Git {
            after_tree: None, ..
        } = record.commands
        {
            record.commands = Commands::Untracked {
                why: format!(
                    "oy stopped before turn {} ended, so what its commands changed was never recorded",
                    record.turn
                ),
                outside_git: false,
            };
        }
    }
}

/// The parents of `path` that do not exist yet (a write creates them),
/// nearest the root first.
fn missing_parents(ws: &Workspace, path: &WorkspacePath) -> Vec<WorkspacePath> {
    let mut missing = Vec::new();
    let mut current = path.as_path().parent();
    while let Some(dir) = current.filter(|dir| !dir.as_os_str().is_empty()) {
        let Ok(parent) = ws.path(dir) else { break };
        if ws.symlink_metadata(&parent).is_ok() {
            break;
        }
        missing.push(parent);
        current = dir.parent();
    }
    missing.reverse();
    missing
}
