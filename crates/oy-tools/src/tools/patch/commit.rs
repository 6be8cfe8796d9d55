//! Landing a validated patch as one unit: each step uses the boundary's
//! atomic primitives, and when one fails the steps already taken are undone
//! in reverse (old bytes written back, moves reversed, added files removed,
//! deleted files recreated), so the whole patch lands or nothing does.

use oy_boundary::{BoundaryError, FileKind, Staged, Workspace, WorkspacePath};

use crate::error::ToolError;

/// One file change, with what is needed to undo it.
#[derive(Debug)]
pub(crate) enum Step {
    /// Create a file that does not exist (nor do `new_dirs`, deepest first).
    Create {
        path: WorkspacePath,
        bytes: String,
        new_dirs: Vec<WorkspacePath>,
    },
    /// Replace a file's content.
    Replace {
        path: WorkspacePath,
        old: String,
        bytes: String,
    },
    /// Rename `from` to `to`, then write `bytes` there when the content changes.
    Move {
        from: WorkspacePath,
        to: WorkspacePath,
        old: String,
        bytes: Option<String>,
        new_dirs: Vec<WorkspacePath>,
    },
    /// Remove a regular file.
    Delete { path: WorkspacePath, old: String },
}

/// Why a commit failed, and whether everything it had done was undone
/// (`false`: some files may be left patched).
#[derive(Debug)]
pub(crate) struct Failed {
    pub(crate) error: ToolError,
    pub(crate) undone: bool,
}

/// How to take back one completed action.
enum Undo<'s> {
    Remove(&'s WorkspacePath),
    RemoveDirs(&'s [WorkspacePath]),
    Restore(&'s WorkspacePath, &'s [u8]),
    RenameBack {
        from: &'s WorkspacePath,
        to: &'s WorkspacePath,
    },
    Recreate(&'s WorkspacePath, &'s [u8]),
}

impl Undo<'_> {
    fn run(&self, ws: &Workspace) -> Result<(), (String, BoundaryError)> {
        fn named(path: &WorkspacePath) -> impl FnOnce(BoundaryError) -> (String, BoundaryError) {
            let text = path.to_text();
            move |e| (text, e)
        }
        match self {
            Self::Remove(path) => ws.remove(path, false).map(drop).map_err(named(path)),
            Self::RemoveDirs(dirs) => {
                for dir in *dirs {
                    // Only directories this patch created, and only if empty.
                    let is_dir = ws
                        .symlink_metadata(dir)
                        .is_ok_and(|meta| meta.kind == FileKind::Directory);
                    if !is_dir {
                        continue;
                    }
                    match ws.remove(dir, false) {
                        Ok(_)
                        | Err(
                            BoundaryError::NotFound { .. }
                            | BoundaryError::DirectoryNotEmpty { .. },
                        ) => {}
                        Err(e) => return Err(named(dir)(e)),
                    }
                }
                Ok(())
            }
            Self::Restore(path, old) => ws.write(path, old).map(drop).map_err(named(path)),
            Self::RenameBack { from, to } => ws.rename(from, to, false).map_err(named(from)),
            Self::Recreate(path, old) => ws.create_new(path, old).map(drop).map_err(named(path)),
        }
    }
}

/// Runs `steps` (deletions last, so a failure rarely has a file to
/// recreate) and returns the bytes written. On failure everything done so
/// far is undone, and the error says whether that fully worked.
///
/// The new bytes of every created or replaced file are staged and made
/// durable together first (see `Workspace::stage`), so the files do not
/// each wait for their own `fsync`; nothing visible changes until the
/// steps run. A file that cannot be staged is written as usual.
///
/// `before_first_change` runs once everything is staged and before any
/// file changes (the journal's record is made durable there); its error
/// stops the commit with nothing changed.
pub(crate) fn commit(
    ws: &Workspace,
    steps: &[&Step],
    before_first_change: impl FnOnce() -> Result<(), ToolError>,
) -> Result<u64, Failed> {
    let is_delete = |step: &&&Step| matches!(step, Step::Delete { .. });
    let ordered: Vec<&Step> = steps
        .iter()
        .filter(|step| !is_delete(step))
        .chain(steps.iter().filter(is_delete))
        .copied()
        .collect();
    let mut staged: Vec<Option<Staged<'_>>> = ordered
        .iter()
        .map(|step| match step {
            Step::Create { path, bytes, .. } | Step::Replace { path, bytes, .. } => {
                ws.stage(path, bytes.as_bytes()).ok()
            }
            _ => None,
        })
        .collect();
    if ws.sync_staged(staged.iter_mut().flatten()).is_err() {
        // Each write then makes (and reports) its own bytes durable.
        staged.clear();
    }
    before_first_change().map_err(|error| Failed {
        error,
        undone: true,
    })?;
    let mut done: Vec<Undo<'_>> = Vec::new();
    let mut written = 0;
    for (at, step) in ordered.into_iter().enumerate() {
        let staged = staged.get_mut(at).and_then(Option::take);
        if let Err((what, error)) = run(ws, step, staged, &mut done, &mut written) {
            return Err(rolled_back(ws, done, &what, error));
        }
    }
    Ok(written)
}

fn run<'s>(
    ws: &Workspace,
    step: &'s Step,
    staged: Option<Staged<'_>>,
    done: &mut Vec<Undo<'s>>,
    written: &mut u64,
) -> Result<(), (String, BoundaryError)> {
    let fail = |what: String| move |e| (what, e);
    match step {
        Step::Create {
            path,
            bytes,
            new_dirs,
        } => {
            done.push(Undo::RemoveDirs(new_dirs));
            let outcome = match staged {
                Some(staged) => ws.commit_staged(staged, false),
                None => ws.create_new(path, bytes.as_bytes()),
            }
            .map_err(fail(format!("creating {path}")))?;
            done.push(Undo::Remove(path));
            *written += outcome.bytes_written;
        }
        Step::Replace { path, old, bytes } => {
            let outcome = match staged {
                Some(staged) => ws.commit_staged(staged, true),
                None => ws.write(path, bytes.as_bytes()),
            }
            .map_err(fail(format!("writing {path}")))?;
            done.push(Undo::Restore(path, old.as_bytes()));
            *written += outcome.bytes_written;
        }
        Step::Move {
            from,
            to,
            old,
            bytes,
            new_dirs,
        } => {
            done.push(Undo::RemoveDirs(new_dirs));
            ws.rename(from, to, false)
                .map_err(fail(format!("moving {from} to {to}")))?;
            done.push(Undo::RenameBack { from: to, to: from });
            if let Some(bytes) = bytes {
                let outcome = ws
                    .write(to, bytes.as_bytes())
                    .map_err(fail(format!("writing {to}")))?;
                done.push(Undo::Restore(to, old.as_bytes()));
                *written += outcome.bytes_written;
            }
        }
        Step::Delete { path, old } => {
            ws.remove(path, false)
                .map_err(fail(format!("deleting {path}")))?;
            done.push(Undo::Recreate(path, old.as_bytes()));
        }
    }
    Ok(())
}

fn rolled_back(ws: &Workspace, done: Vec<Undo<'_>>, what: &str, error: BoundaryError) -> Failed {
    let cause = error.to_string();
    let recovery = ToolError::Boundary(error).recovery();
    let failures: Vec<String> = done
        .iter()
        .rev()
        .filter_map(|undo| undo.run(ws).err())
        .map(|(path, e)| format!("{path} ({e})"))
        .collect();
    let undone = failures.is_empty();
    let error = if undone {
        ToolError::failed(
            format!(
                "{what} failed: {cause}; the patch was not applied (changes already made were undone)"
            ),
            recovery,
        )
    } else {
        ToolError::failed(
            format!(
                "{what} failed: {cause}; undoing the changes already made also failed for: {}, which may be left patched",
                failures.join(", ")
            ),
            "read the files listed to see their state, fix them, and tell the user what happened",
        )
    };
    Failed { error, undone }
}
