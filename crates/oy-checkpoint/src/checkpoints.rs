//! `Checkpoints`: the recorder a session's tools report to. A turn opens
//! with [`Checkpoints::begin_turn`]; every file change is announced first
//! ([`Checkpoints::before_change`]) and every command too
//! ([`Checkpoints::before_command`]); after each call the touched paths'
//! new states are recorded ([`Checkpoints::after_call`]) and
//! [`Checkpoints::end_turn`] closes the turn, folding in what the turn's
//! commands changed. The index is saved after each step.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use oy_boundary::{Workspace, WorkspacePath};

use crate::blobs::Store;
use crate::capture::{Captured, capture, key};
use crate::error::CheckpointError;
use crate::git::Git;
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

/// The name of oy's own git object directory inside a checkpoint directory.
const GIT_OBJECTS: &str = "git-objects";

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
    git_env: Vec<(OsString, OsString)>,
    /// The repository, once asked (`Err`: why there is none).
    git: Option<Result<Git, String>>,
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
                git_env: Vec::new(),
                git: None,
                current: None,
                dirty: BTreeMap::new(),
            }),
        })
    }

    /// The environment git runs with for snapshots (the filtered child
    /// environment: git needs `PATH` and `HOME` for the user's config).
    #[must_use]
    pub fn with_git_env(self, env: Vec<(OsString, OsString)>) -> Self {
        self.lock().git_env = env;
        self
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens turn `turn`. A turn left open (oy died during it) is closed
    /// as it stands: its last changes are "unknown after", which undo
    /// accepts whatever is there now. Starting a turn ends the chance to
    /// redo an undo.
    pub fn begin_turn(&self, turn: u64) -> Result<(), CheckpointError> {
        let mut inner = self.lock();
        for record in &mut inner.index.turns {
            if record.state == TurnState::Open {
                record.state = TurnState::Closed;
            }
        }
        inner.index.redo = None;
        inner.index.turns.retain(|record| record.turn != turn);
        inner.index.turns.push(TurnRecord::new(turn));
        inner.current = Some(inner.index.turns.len() - 1);
        inner.dirty.clear();
        inner.save()
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
            for found in capture(ws, path, &limits, &mut not_kept)? {
                if !inner.index.turns[at].entries.contains_key(&found.path) {
                    let Captured { path, state, bytes } = found;
                    inner.insert_kept(at, &path, state, bytes, &mut not_kept)?;
                }
            }
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
                match git.snapshot(ws, max) {
                    Ok((tree, skipped)) => {
                        inner.index.seq += 1;
                        Commands::Git {
                            before_tree: tree,
                            after_tree: None,
                            seq: inner.index.seq,
                            skipped,
                        }
                    }
                    Err(error) => Commands::Untracked {
                        why: error.to_string(),
                    },
                }
            }
            Err(why) => Commands::Untracked { why },
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
        if let Err(error) = crate::restore::fold_commands(&mut inner, ws, at) {
            inner.index.turns[at].commands = Commands::Untracked {
                why: error.to_string(),
            };
        }
        inner.index.turns[at].state = TurnState::Closed;
        let _ = inner.save();
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
    pub(crate) fn save(&self) -> Result<(), CheckpointError> {
        self.store.save_index(&self.index)
    }

    /// The repository, asked once per session.
    pub(crate) fn git(&mut self, ws: &Workspace) -> Result<Git, String> {
        if self.git.is_none() {
            // git takes a missing object directory for no repository.
            let found = match self.store.ensure_dir(GIT_OBJECTS) {
                Ok(objects) => Git::discover(ws.root(), objects, &self.git_env),
                Err(error) => Err(error.to_string()),
            };
            self.git = Some(found);
        }
        self.git
            .clone()
            .unwrap_or_else(|| Err("git was not asked".to_owned()))
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

    fn note(&mut self, at: usize, not_kept: Vec<NotKept>) {
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
            let found = if deep {
                capture(ws, &path, &self.limits, &mut not_kept)?
            } else {
                vec![Captured {
                    path: name.clone(),
                    state: crate::capture::state_of(ws, &path)?,
                    bytes: None,
                }]
            };
            let mut seen = std::collections::BTreeSet::new();
            for Captured { path, state, bytes } in found {
                let state = self.keep(&path, state, bytes, &mut not_kept)?;
                seen.insert(path.clone());
                match self.index.turns[at].entries.get_mut(&path) {
                    Some(entry) => entry.after = Some(state),
                    None => self.insert(at, &path, State::Absent, Some(state), Source::Tool)?,
                }
            }
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
            let found = crate::capture::capture_single(ws, &path, &limits, &mut not_kept)?;
            let after = self.keep(&name, found.state, found.bytes, &mut not_kept)?;
            if let Some(entry) = self.index.turns[at].entries.get_mut(&name) {
                entry.after = Some(after);
            }
        }
        self.note(at, not_kept);
        Ok(())
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
