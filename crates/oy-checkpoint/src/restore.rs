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

use crate::capture::state_of;
use crate::checkpoints::{Checkpoints, Inner};
use crate::error::CheckpointError;
use crate::index::{Commands, RedoRecord, State, TurnState};

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
        crate::checkpoints::close_unfinished(&mut inner.index.turns);
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
            inner.save_all()?;
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
            inner.save_all()?;
        }
        Ok(report)
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
        commands_not_undone: Vec::new(),
        diff: String::new(),
    };
    let plan = plan(inner, picked, direction, &mut report);
    // What the turns saw but could not keep stays as it is: say so.
    for &at in picked {
        for item in &inner.index.turns[at].not_kept {
            if !plan.contains_key(&item.path)
                && !report
                    .unrestorable
                    .iter()
                    .any(|known| known.path == item.path)
            {
                report.unrestorable.push(Unrestorable {
                    path: item.path.clone(),
                    why: item.why.clone(),
                });
            }
        }
    }
    let mut steps = Vec::new();
    for (path, goal) in plan {
        if let Some(step) = check(ws, path, goal, &mut report)? {
            steps.push(step);
        }
    }
    // Every saved copy is read (and checked) before anything changes: a
    // damaged one leaves its path as it is, and nothing else is affected.
    let mut ready = Vec::new();
    for step in steps {
        let bytes = match &step.target {
            State::File { digest, len, .. } => match inner.store.get(digest, *len) {
                Ok(bytes) => Some(bytes),
                Err(error) => {
                    report.unrestorable.push(Unrestorable {
                        path: step.path,
                        why: error.to_string(),
                    });
                    continue;
                }
            },
            _ => None,
        };
        ready.push((step, bytes));
    }
    report.diff = crate::session_diff::steps_diff(
        &inner.store,
        ws,
        crate::session_diff::Direction::FromWorkspace,
        ready
            .iter()
            .map(|(step, _)| (step.path.as_str(), &step.current, &step.target)),
    );
    report.paths = ready.iter().map(|(step, _)| step.path.clone()).collect();
    if dry_run || !report.conflicts.is_empty() {
        return Ok(report);
    }
    apply(ws, &ready, &mut report);
    report.unrestorable.sort_by(|a, b| a.path.cmp(&b.path));
    report.applied = true;
    Ok(report)
}

/// Where one path goes, and what the turns should have left there.
struct Goal {
    target: State,
    /// `None`: the turn never recorded what it left.
    expected: Option<State>,
}

/// Per path: where it goes (the oldest turn's before, or for a redo the
/// newest turn's after) and what the last turn should have left. Between
/// two turns a path must have stayed as the earlier one left it: a change
/// made in between (by the person) is a conflict, never silently undone.
fn plan(
    inner: &Inner,
    picked: &[usize],
    direction: RestoreDirection,
    report: &mut UndoReport,
) -> BTreeMap<String, Goal> {
    let mut plan: BTreeMap<String, Goal> = BTreeMap::new();
    // The turn that last touched each path, for the gap check.
    let mut last_turn: BTreeMap<String, u64> = BTreeMap::new();
    let mut gaps = BTreeMap::new();
    for &at in picked.iter().rev() {
        let record = &inner.index.turns[at];
        if let Commands::Untracked { why, .. } = &record.commands {
            report
                .commands_not_undone
                .push(format!("turn {}: {why}", record.turn));
        }
        for (path, entry) in &record.entries {
            let (target, expected) = match direction {
                RestoreDirection::Undo => (entry.before.clone(), entry.after.clone()),
                RestoreDirection::Redo => match &entry.after {
                    Some(after) => (after.clone(), Some(entry.before.clone())),
                    None => continue,
                },
            };
            match plan.get_mut(path) {
                None => {
                    plan.insert(path.clone(), Goal { target, expected });
                }
                Some(goal) => {
                    // Oldest first: the earlier turn's after must be this
                    // turn's before (for a redo, the same the other way).
                    let joins = match direction {
                        RestoreDirection::Undo => goal.expected.as_ref(),
                        RestoreDirection::Redo => Some(&goal.target),
                    }
                    .is_some_and(|earlier| earlier.same_as(&entry.before));
                    if !joins {
                        let earlier = last_turn.get(path).copied().unwrap_or_default();
                        gaps.insert(
                            path.clone(),
                            Conflict {
                                path: path.clone(),
                                expected: format!("it at the end of turn {earlier}"),
                                found: format!(
                                    "changed before turn {} began (by someone else)",
                                    record.turn
                                ),
                            },
                        );
                    }
                    match direction {
                        RestoreDirection::Undo => goal.expected = expected,
                        RestoreDirection::Redo => goal.target = target,
                    }
                }
            }
            last_turn.insert(path.clone(), record.turn);
        }
    }
    for (path, conflict) in gaps {
        plan.remove(&path);
        report.conflicts.push(conflict);
    }
    plan
}

/// One path's step, once checked.
#[derive(Debug, Clone)]
struct Step {
    path: String,
    target: State,
    current: State,
}

/// Checks one path: `Ok(None)` when there is nothing to do (it is back
/// already, or it cannot be put back: then the report says why), a
/// conflict when someone changed it since.
fn check(
    ws: &Workspace,
    path: String,
    goal: Goal,
    report: &mut UndoReport,
) -> Result<Option<Step>, CheckpointError> {
    let left = |report: &mut UndoReport, path: String, why: String| {
        report.unrestorable.push(Unrestorable { path, why });
        Ok(None)
    };
    let at = match ws.path(&path) {
        Ok(at) => at,
        Err(error) => return left(report, path, error.to_string()),
    };
    // Never through a link: a parent that is now a symbolic link (even one
    // that stays inside the root) would put the bytes somewhere else.
    match ws.resolved(&at, false) {
        Ok(real) if real.as_path() == at.as_path() => {}
        Ok(_) => return left(report, path, "a parent is now a symbolic link".to_owned()),
        Err(error) => return left(report, path, error.to_string()),
    }
    match ws.protected_reason(&at, false) {
        Ok(None) => {}
        Ok(Some(why)) => return left(report, path, format!("it is protected: {why}")),
        Err(error) => return left(report, path, error.to_string()),
    }
    let current = match state_of(ws, &at) {
        Ok(current) => current,
        Err(error) => return left(report, path, error.to_string()),
    };
    if current.same_as(&goal.target) {
        return Ok(None);
    }
    let Some(expected) = goal.expected else {
        return left(
            report,
            path,
            "oy stopped before it recorded what the change left".to_owned(),
        );
    };
    if !current.same_as(&expected) {
        report.conflicts.push(Conflict {
            path,
            expected: expected.describe(),
            found: current.describe(),
        });
        return Ok(None);
    }
    let why = match (&goal.target, &current) {
        (State::Unknown { why }, _) => why.clone(),
        (State::File { kept: false, .. }, _) => "its old content was too large to keep".to_owned(),
        (State::Other { what }, _) => {
            format!("it was a {what}, which a checkpoint does not restore")
        }
        // A link, FIFO or socket the turn made (nothing was there): the
        // entry itself is removed, never what a link points to.
        (State::Absent, State::Other { what })
            if matches!(what.as_str(), "symlink" | "FIFO" | "socket") =>
        {
            return Ok(Some(Step {
                path,
                target: goal.target,
                current,
            }));
        }
        (_, State::Other { what }) => format!("it is now a {what}"),
        (_, State::Unknown { why }) => why.clone(),
        _ => {
            return Ok(Some(Step {
                path,
                target: goal.target,
                current,
            }));
        }
    };
    left(report, path, why)
}

/// Removals first (files, then directories deepest first; also what is in
/// the way of a different kind), then directories (shallowest first, with
/// their modes), then file contents. A step that fails leaves its path as
/// it is and is reported; the others still happen, so one bad path never
/// blocks the undo of the rest.
fn apply(ws: &Workspace, ready: &[(Step, Option<Vec<u8>>)], report: &mut UndoReport) {
    let depth = |step: &Step| step.path.matches('/').count();
    let in_the_way = |step: &Step| {
        matches!(
            (&step.target, &step.current),
            (State::Absent, _)
                | (State::File { .. }, State::Dir { .. })
                | (State::Dir { .. }, State::File { .. })
        )
    };
    let mut failed = std::collections::BTreeSet::new();
    let mut removals: Vec<&Step> = ready
        .iter()
        .map(|(step, _)| step)
        .filter(|step| in_the_way(step))
        .collect();
    removals.sort_by_key(|step| {
        (
            matches!(step.current, State::Dir { .. }),
            std::cmp::Reverse(depth(step)),
        )
    });
    for step in removals {
        let result = ws
            .path(&step.path)
            .and_then(|path| ws.remove_exactly(&path, false));
        match result {
            Ok(_) | Err(BoundaryError::NotFound { .. }) => {}
            Err(error) => {
                failed.insert(step.path.clone());
                report.unrestorable.push(Unrestorable {
                    path: step.path.clone(),
                    why: format!("it could not be removed: {error}"),
                });
            }
        }
    }
    let mut dirs: Vec<&Step> = ready
        .iter()
        .map(|(step, _)| step)
        .filter(|step| matches!(step.target, State::Dir { .. }) && !failed.contains(&step.path))
        .collect();
    dirs.sort_by_key(|step| depth(step));
    for step in dirs {
        let State::Dir { mode } = step.target else {
            continue;
        };
        let result = ws
            .path(&step.path)
            .and_then(|path| ws.restore_dir(&path, mode));
        if let Err(error) = result {
            failed.insert(step.path.clone());
            report.unrestorable.push(Unrestorable {
                path: step.path.clone(),
                why: format!("the directory could not be made: {error}"),
            });
        }
    }
    for (step, bytes) in ready {
        let (State::File { mode, .. }, Some(bytes)) = (&step.target, bytes) else {
            continue;
        };
        if failed.contains(&step.path) {
            continue;
        }
        let result = ws
            .path(&step.path)
            .and_then(|path| ws.restore_file(&path, bytes, *mode));
        if let Err(error) = result {
            report.unrestorable.push(Unrestorable {
                path: step.path.clone(),
                why: format!("it could not be written: {error}"),
            });
        }
    }
    let unrestored: std::collections::BTreeSet<&str> = report
        .unrestorable
        .iter()
        .map(|item| item.path.as_str())
        .collect();
    let unrestored: Vec<String> = unrestored.into_iter().map(str::to_owned).collect();
    report.paths.retain(|path| !unrestored.contains(path));
}
