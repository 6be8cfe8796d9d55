//! `fold_commands`: what a turn's commands changed — the turn's two
//! snapshots compared — turned into entries of the turn's record. The
//! before-state of each path comes from oy's own snapshot (its bytes
//! checked against their git id, its real permission bits); a path the
//! first snapshot did not hold but that was there — git ignored it, or it
//! was too large — is "unknown before", so undo never removes it.

use oy_boundary::Workspace;

use crate::blobs::digest_of;
use crate::capture::{Captured, capture_single, size};
use crate::checkpoints::{Inner, MAX_COMMAND_PATHS};
use crate::error::CheckpointError;
use crate::git::{Snapshot, TreeChange};
use crate::index::{Commands, Entry, NotKept, Source, State};

/// Folds the commands of turn `at` into its entries. A path a tool saved
/// before the first command keeps the tool's before-state; otherwise the
/// first snapshot's.
pub(crate) fn fold_commands(
    inner: &mut Inner,
    ws: &Workspace,
    at: usize,
) -> Result<(), CheckpointError> {
    let Commands::Git {
        after_tree: None,
        seq,
        ..
    } = inner.index.turns[at].commands.clone()
    else {
        return Ok(());
    };
    let before = inner.before.take().ok_or_else(|| {
        CheckpointError::NotUndoable(
            "the snapshot before the turn's first command was not taken by this oy".to_owned(),
        )
    })?;
    let git = inner
        .git(ws)
        .map_err(|no| CheckpointError::NotUndoable(no.why))?;
    let max_file = inner.limits.max_file_bytes;
    let after = git.snapshot(max_file, false)?;
    let changes = git.changes(&before.tree, &after.tree)?;
    if changes.len() > MAX_COMMAND_PATHS {
        return Err(CheckpointError::NotUndoable(format!(
            "the turn's commands changed {} paths, more than the {MAX_COMMAND_PATHS} a checkpoint keeps",
            changes.len()
        )));
    }
    let needed: Vec<&TreeChange> = changes
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
    let mut blobs = git.blobs(&ids, max_file)?.into_iter();
    let mut not_kept = Vec::new();
    let mut befores = Vec::new();
    for change in &needed {
        let before_state = match &change.before {
            None => match before.held_outside(&change.path) {
                Some(why) => State::Unknown {
                    why: format!("it was there before the turn but not in its snapshot: {why}"),
                },
                None => new_or_moved(ws, &before, &change.path),
            },
            Some((mode, id)) if is_blob_mode(*mode) => {
                let blob = blobs
                    .next()
                    .ok_or_else(|| CheckpointError::damaged("blob list"))?;
                let mode = real_mode(&before, &change.path, *mode);
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
                                size(blob.size),
                                size(max_file)
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
        befores.push((change.path.clone(), before_state));
    }
    // Paths the turn's commands made that the second snapshot does not
    // hold (too large, not a file, a nested repository, a name that is not
    // UTF-8, or ignored by git — perhaps by a `.gitignore` the commands
    // wrote): a file undo can address becomes an entry (absent before), so
    // undo removes it; anything else is named, never silently left.
    let changed: std::collections::HashSet<&str> =
        changes.iter().map(|change| change.path.as_str()).collect();
    let mut made_outside = Vec::new();
    for (path, why) in after
        .left_out
        .iter()
        .map(|(path, why)| (path.clone(), why.clone()))
        .chain(after.ignored.iter().map(|path| {
            (
                path.trim_end_matches('/').to_owned(),
                "git ignores it".to_owned(),
            )
        }))
    {
        // A path the trees compare (it has its true before), one already
        // recorded, or one that was there: never "made".
        if changed.contains(path.as_str())
            || before.held_outside(&path).is_some()
            || inner.index.turns[at].entries.contains_key(&path)
        {
            continue;
        }
        made_outside.push((path, why));
    }
    for name in after
        .not_utf8
        .iter()
        .filter(|name| !before.not_utf8.contains(name))
    {
        not_kept.push(NotKept {
            path: name.clone(),
            why: "a command made it and its name is not UTF-8: undo leaves it".to_owned(),
        });
    }
    if needed.len() + made_outside.len() > MAX_COMMAND_PATHS {
        return Err(CheckpointError::NotUndoable(format!(
            "the turn's commands changed {} paths, more than the {MAX_COMMAND_PATHS} a checkpoint keeps",
            needed.len() + made_outside.len()
        )));
    }
    for (path, why) in made_outside {
        let file = ws.path(&path).ok().and_then(|at_path| {
            let limits = inner.limits;
            let found = capture_or_other(ws, &at_path, &limits, &mut Vec::new());
            matches!(found.state, State::File { .. }).then_some(path.clone())
        });
        match file {
            Some(path) => {
                let state = new_or_moved(ws, &before, &path);
                befores.push((path, state));
            }
            None => not_kept.push(NotKept {
                path,
                why: format!("a command made it and {why}: undo leaves it"),
            }),
        }
    }
    for (path, before_state) in befores {
        let Ok(at_path) = ws.path(&path) else {
            continue;
        };
        let limits = inner.limits;
        let found = capture_or_other(ws, &at_path, &limits, &mut not_kept);
        let after_state = inner.keep(&path, found.state, found.bytes, &mut not_kept)?;
        inner.index.seq += 1;
        let seq = inner.index.seq;
        inner.index.turns[at].entries.insert(
            path,
            Entry {
                before: before_state,
                after: Some(after_state),
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
        let found = capture_or_other(ws, &at_path, &limits, &mut not_kept);
        let after_state = inner.keep(&change.path, found.state, found.bytes, &mut not_kept)?;
        if let Some(entry) = inner.index.turns[at].entries.get_mut(&change.path) {
            entry.after = Some(after_state);
        }
    }
    inner.note(at, not_kept);
    if let Commands::Git {
        after_tree: slot, ..
    } = &mut inner.index.turns[at].commands
    {
        *slot = Some(after.tree);
    }
    Ok(())
}

/// The permission bits `path` had at the snapshot, or git's default for
/// its mode when it was not a plain file then.
fn real_mode(before: &Snapshot, path: &str, git_mode: u32) -> u32 {
    before
        .modes
        .get(path)
        .copied()
        .unwrap_or(if git_mode & 0o111 != 0 { 0o755 } else { 0o644 })
}

fn is_blob_mode(mode: u32) -> bool {
    mode & 0o170_000 == 0o100_000
}

/// What is at `path` now; a path that cannot be read (beneath a link that
/// leaves the root, say) is recorded as such rather than ending the fold,
/// so the turn's other changes are still kept.
pub(crate) fn capture_or_other(
    ws: &Workspace,
    path: &oy_boundary::WorkspacePath,
    limits: &crate::checkpoints::Limits,
    not_kept: &mut Vec<NotKept>,
) -> Captured {
    capture_single(ws, path, limits, not_kept).unwrap_or_else(|error| Captured {
        path: crate::capture::key(path),
        state: State::Other {
            what: format!("path that could not be read ({error})"),
        },
        bytes: None,
    })
}

/// `Absent` for a file the turn's commands made; `Unknown` for one that is
/// a file that was there before under another name (moved or linked from
/// a file the snapshot did not hold: same device and inode), which undo
/// must never remove.
fn new_or_moved(ws: &Workspace, before: &Snapshot, path: &str) -> State {
    let moved = ws
        .path(path)
        .ok()
        .and_then(|at| ws.symlink_metadata(&at).ok())
        .is_some_and(|meta| before.inodes.contains(&meta.file_id));
    if moved {
        State::Unknown {
            why: "it is a file that was there before the turn under another name".to_owned(),
        }
    } else {
        State::Absent
    }
}
