//! Undo and redo: a plan of what each path goes back to, checked against
//! what is there now (a path someone else changed since is a conflict,
//! and nothing is done), then applied through `oy-boundary` — files
//! removed, directories removed and made, files written back — each step
//! atomic, so a kill leaves every file old or new and a second undo
//! finishes the work (a path already back counts as done).
//! `fold_commands` turns a turn's two git snapshots into entries.

use std::collections::BTreeMap;

use oy_boundary::{BoundaryError, Workspace};
use serde::Serialize;

use crate::blobs::digest_of;
use crate::capture::state_of;
use crate::checkpoints::{Checkpoints, Inner};
use crate::error::CheckpointError;
use crate::index::{Commands, Entry, NotKept, RedoRecord, Source, State, TurnState};

/// Which way a restore goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RestoreDirection {
    /// Back to before the turns.
    Undo,
    /// Forward again to what the undone turns left.
    Redo,
}

/// A path someone else changed since the turn: undo refuses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    /// The path.
    pub path: String,
    /// What the turn left there.
    pub expected: String,
    /// What is there now.
    pub found: String,
}

/// A path that cannot be put back, and why; it is left as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unrestorable {
    /// The path.
    pub path: String,
    /// Why.
    pub why: String,
}

/// What an undo or redo did, or would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UndoReport {
    /// Undo or redo.
    pub direction: RestoreDirection,
    /// The turns, newest first.
    pub turns: Vec<u64>,
    /// True when nothing was changed because this was a dry run.
    pub dry_run: bool,
    /// True when the paths were put back (not a dry run, no conflict).
    pub applied: bool,
    /// The paths put back (or to be), sorted.
    pub paths: Vec<String>,
    /// Paths changed since by someone else: nothing was done.
    pub conflicts: Vec<Conflict>,
    /// Paths left as they are, and why.
    pub unrestorable: Vec<Unrestorable>,
    /// Why the turns' commands' changes cannot be undone, when so.
    pub commands_not_undone: Vec<String>,
    /// The unified diff the restore applies (current → restored).
    pub diff: String,
}

/// One path's step.
#[derive(Debug, Clone)]
struct Step {
    path: String,
    target: State,
    current: State,
}

impl Checkpoints {
    /// Undoes the last `count` turns that changed something (newest
    /// first), or says what it would do (`dry_run`).
    pub fn undo(
        &self,
        ws: &Workspace,
        count: usize,
        dry_run: bool,
    ) -> Result<UndoReport, CheckpointError> {
        let mut inner = self.lock();
        close_left_open(&mut inner, ws);
        let picked: Vec<usize> = (0..inner.index.turns.len())
            .rev()
            .filter(|&at| {
                let record = &inner.index.turns[at];
                record.state != TurnState::Undone && record.changed_anything()
            })
            .take(count.max(1))
            .collect();
        if picked.is_empty() {
            return Err(CheckpointError::Nothing(
                "nothing to undo: no turn of this session changed a file".to_owned(),
            ));
        }
        let report = restore(&mut inner, ws, &picked, RestoreDirection::Undo, dry_run)?;
        if report.applied {
            for &at in &picked {
                inner.index.turns[at].state = TurnState::Undone;
            }
            inner.index.redo = Some(RedoRecord {
                turns: report.turns.clone(),
            });
            inner.save()?;
        }
        Ok(report)
    }

    /// Redoes the last undo, once, if no turn ran since.
    pub fn redo(&self, ws: &Workspace, dry_run: bool) -> Result<UndoReport, CheckpointError> {
        let mut inner = self.lock();
        let Some(redo) = inner.index.redo.clone() else {
            return Err(CheckpointError::Nothing(
                "nothing to redo: redo follows an undo, before the next turn".to_owned(),
            ));
        };
        let picked: Vec<usize> = redo
            .turns
            .iter()
            .filter_map(|turn| inner.index.turns.iter().position(|r| r.turn == *turn))
            .filter(|&at| inner.index.turns[at].state == TurnState::Undone)
            .collect();
        if picked.is_empty() {
            return Err(CheckpointError::Nothing("nothing to redo".to_owned()));
        }
        let report = restore(&mut inner, ws, &picked, RestoreDirection::Redo, dry_run)?;
        if report.applied {
            for &at in &picked {
                inner.index.turns[at].state = TurnState::Closed;
            }
            inner.index.redo = None;
            inner.save()?;
        }
        Ok(report)
    }
}

/// Turns oy never finished (it was killed) are closed as they stand.
fn close_left_open(inner: &mut Inner, ws: &Workspace) {
    let open: Vec<usize> = (0..inner.index.turns.len())
        .filter(|&at| inner.index.turns[at].state == TurnState::Open)
        .collect();
    for at in open {
        if let Err(error) = fold_commands(inner, ws, at) {
            inner.index.turns[at].commands = Commands::Untracked {
                why: error.to_string(),
            };
        }
        inner.index.turns[at].state = TurnState::Closed;
    }
}

/// `picked` are positions in the index, newest first.
fn restore(
    inner: &mut Inner,
    ws: &Workspace,
    picked: &[usize],
    direction: RestoreDirection,
    dry_run: bool,
) -> Result<UndoReport, CheckpointError> {
    // Per path: where it goes (the oldest turn's before, or for a redo
    // the newest turn's after) and what the last step should have left.
    let mut plan: BTreeMap<String, (State, Option<State>)> = BTreeMap::new();
    let mut commands_not_undone = Vec::new();
    for &at in picked.iter().rev() {
        let record = &inner.index.turns[at];
        if let Commands::Untracked { why } = &record.commands {
            commands_not_undone.push(format!("turn {}: {why}", record.turn));
        }
        for (path, entry) in &record.entries {
            let (target, expected) = match direction {
                RestoreDirection::Undo => (entry.before.clone(), entry.after.clone()),
                RestoreDirection::Redo => match &entry.after {
                    Some(after) => (after.clone(), Some(entry.before.clone())),
                    None => continue,
                },
            };
            plan.entry(path.clone())
                .and_modify(|slot| match direction {
                    RestoreDirection::Undo => slot.1 = expected.clone(),
                    RestoreDirection::Redo => slot.0 = target.clone(),
                })
                .or_insert((target, expected));
        }
    }
    let mut report = UndoReport {
        direction,
        turns: picked
            .iter()
            .map(|&at| inner.index.turns[at].turn)
            .collect(),
        dry_run,
        applied: false,
        paths: Vec::new(),
        conflicts: Vec::new(),
        unrestorable: Vec::new(),
        commands_not_undone,
        diff: String::new(),
    };
    let mut steps = Vec::new();
    for (path, (target, expected)) in plan {
        let current = match ws.path(&path) {
            Ok(at) => state_of(ws, &at)?,
            Err(error) => {
                report.unrestorable.push(Unrestorable {
                    path,
                    why: error.to_string(),
                });
                continue;
            }
        };
        if current.same_as(&target) {
            continue;
        }
        if let Some(expected) = &expected
            && !current.same_as(expected)
        {
            report.conflicts.push(Conflict {
                path,
                expected: expected.describe(),
                found: current.describe(),
            });
            continue;
        }
        match (&target, &current) {
            (State::File { kept: false, .. }, _) => report.unrestorable.push(Unrestorable {
                path,
                why: "its old content was too large to keep".to_owned(),
            }),
            (State::Other { what }, _) => report.unrestorable.push(Unrestorable {
                path,
                why: format!("it was a {what}, which a checkpoint does not restore"),
            }),
            (_, State::Other { what }) => report.unrestorable.push(Unrestorable {
                path,
                why: format!("it is now a {what}"),
            }),
            (State::File { .. }, State::Dir { .. }) => report.unrestorable.push(Unrestorable {
                path,
                why: "it is now a directory".to_owned(),
            }),
            _ => steps.push(Step {
                path,
                target,
                current,
            }),
        }
    }
    report.diff = crate::session_diff::steps_diff(
        &inner.store,
        ws,
        crate::session_diff::Direction::FromWorkspace,
        steps
            .iter()
            .map(|step| (step.path.as_str(), &step.current, &step.target)),
    );
    report.paths = steps.iter().map(|step| step.path.clone()).collect();
    if dry_run || !report.conflicts.is_empty() {
        return Ok(report);
    }
    apply(inner, ws, &steps, &mut report)?;
    report.applied = true;
    Ok(report)
}

/// Removals first (files, then directories deepest first), then new
/// directories (shallowest first), then file contents.
fn apply(
    inner: &Inner,
    ws: &Workspace,
    steps: &[Step],
    report: &mut UndoReport,
) -> Result<(), CheckpointError> {
    // Every saved copy is read (and checked) before anything changes: a
    // damaged one stops the restore while the workspace is untouched.
    let mut contents = Vec::new();
    for step in steps {
        if let State::File { digest, len, .. } = &step.target {
            contents.push((step, inner.store.get(digest, *len)?));
        }
    }
    let depth = |step: &&Step| step.path.matches('/').count();
    let mut removals: Vec<&Step> = steps
        .iter()
        .filter(|step| step.target == State::Absent)
        .collect();
    removals.sort_by_key(|step| {
        (
            matches!(step.current, State::Dir { .. }),
            std::cmp::Reverse(depth(step)),
        )
    });
    for step in removals {
        let path = ws.path(&step.path)?;
        match ws.remove(&path, false) {
            Ok(_) | Err(BoundaryError::NotFound { .. }) => {}
            Err(error) if matches!(step.current, State::Dir { .. }) => {
                report.unrestorable.push(Unrestorable {
                    path: step.path.clone(),
                    why: format!("the directory was left: {error}"),
                });
            }
            Err(error) => return Err(error.into()),
        }
    }
    let mut dirs: Vec<&Step> = steps
        .iter()
        .filter(|step| matches!(step.target, State::Dir { .. }))
        .collect();
    dirs.sort_by_key(depth);
    for step in dirs {
        let path = ws.path(&step.path)?;
        ws.create_dir_all(&path)?;
    }
    for (step, bytes) in contents {
        if let State::File { mode, .. } = &step.target {
            let path = ws.path(&step.path)?;
            ws.restore_file(&path, &bytes, *mode)?;
        }
    }
    Ok(())
}

/// Folds what a turn's commands changed (its two snapshots compared) into
/// its entries. A path a tool saved before the first command keeps the
/// tool's before-state; otherwise the first snapshot's.
pub(crate) fn fold_commands(
    inner: &mut Inner,
    ws: &Workspace,
    at: usize,
) -> Result<(), CheckpointError> {
    let Commands::Git {
        before_tree,
        after_tree: None,
        seq,
        skipped,
    } = inner.index.turns[at].commands.clone()
    else {
        return Ok(());
    };
    let git = inner.git(ws).map_err(|why| CheckpointError::Git {
        command: "rev-parse".to_owned(),
        detail: why,
    })?;
    let (after_tree, _) = git.snapshot(ws, inner.limits.max_file_bytes)?;
    let changes = git.changes(&before_tree, &after_tree)?;
    let needed: Vec<&crate::git::TreeChange> = changes
        .iter()
        .filter(|change| {
            inner.index.turns[at]
                .entries
                .get(&change.path)
                .is_none_or(|entry| entry.seq > seq)
        })
        .collect();
    let ids: Vec<String> = needed
        .iter()
        .filter_map(|change| change.before.as_ref())
        .filter(|(mode, _)| is_blob_mode(*mode))
        .map(|(_, id)| id.clone())
        .collect();
    let mut blobs = git.blobs(&ids, inner.limits.max_file_bytes)?.into_iter();
    let mut not_kept = Vec::new();
    let mut befores = Vec::new();
    for change in &needed {
        let before = match &change.before {
            _ if skipped.contains(&change.path) => State::Other {
                what: "untracked file too large to keep".to_owned(),
            },
            None => State::Absent,
            Some((mode, id)) if is_blob_mode(*mode) => {
                let blob = blobs
                    .next()
                    .ok_or_else(|| CheckpointError::damaged("blob list"))?;
                let mode = if mode & 0o111 != 0 { 0o755 } else { 0o644 };
                match blob.bytes {
                    Some(bytes) => {
                        let state = State::File {
                            digest: digest_of(&bytes),
                            mode,
                            len: blob.size,
                            kept: true,
                        };
                        inner.keep(&change.path, state, Some(bytes), &mut not_kept)?
                    }
                    None => {
                        not_kept.push(NotKept {
                            path: change.path.clone(),
                            why: format!(
                                "{}, over the {} a checkpoint keeps of one file",
                                crate::capture::size(blob.size),
                                crate::capture::size(inner.limits.max_file_bytes)
                            ),
                        });
                        State::File {
                            digest: format!("git:{id}"),
                            mode,
                            len: blob.size,
                            kept: false,
                        }
                    }
                }
            }
            Some((mode, _)) => State::Other {
                what: if *mode == 0o120_000 {
                    "symlink"
                } else {
                    "submodule"
                }
                .to_owned(),
            },
        };
        befores.push((change.path.clone(), before));
    }
    for (path, before) in befores {
        let Ok(at_path) = ws.path(&path) else {
            continue;
        };
        let limits = inner.limits;
        let found = crate::capture::capture_single(ws, &at_path, &limits, &mut not_kept)?;
        let after = inner.keep(&path, found.state, found.bytes, &mut not_kept)?;
        inner.index.seq += 1;
        let seq = inner.index.seq;
        inner.index.turns[at].entries.insert(
            path,
            Entry {
                before,
                after: Some(after),
                seq,
                source: Source::Command,
            },
        );
    }
    // Paths a tool saved before the first command keep that before; what
    // the commands left is their after.
    for change in &changes {
        let Some(entry) = inner.index.turns[at].entries.get(&change.path) else {
            continue;
        };
        if entry.source != Source::Tool {
            continue;
        }
        let Ok(at_path) = ws.path(&change.path) else {
            continue;
        };
        let limits = inner.limits;
        let found = crate::capture::capture_single(ws, &at_path, &limits, &mut not_kept)?;
        let after = inner.keep(&change.path, found.state, found.bytes, &mut not_kept)?;
        if let Some(entry) = inner.index.turns[at].entries.get_mut(&change.path) {
            entry.after = Some(after);
        }
    }
    inner.index.turns[at].not_kept.extend(not_kept);
    if let Commands::Git {
        after_tree: slot, ..
    } = &mut inner.index.turns[at].commands
    {
        *slot = Some(after_tree);
    }
    Ok(())
}

fn is_blob_mode(mode: u32) -> bool {
    mode & 0o170_000 == 0o100_000
}
