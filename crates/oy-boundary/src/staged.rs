//! Staged writes: many files' new bytes written and made durable together,
//! then each put in place as [`Workspace::write`] or
//! [`Workspace::create_new`] would.
//!
//! A write makes its file's bytes durable (`fsync`) before the rename that
//! publishes them. On a journalling filesystem each such `fsync` waits for
//! its own journal commit, so a caller landing 200 files pays 200 commits
//! in a row. Staging splits the write in three: [`Workspace::stage`] fills
//! a fresh unnamed inode (`O_TMPFILE`, never reachable by any name),
//! [`Workspace::sync_staged`] `fsync`s all of them at once from several
//! threads (the filesystem joins concurrent `fsync`s into few commits), and
//! [`Workspace::commit_staged`] resolves, checks and links each one in
//! place exactly as a write does at that moment. A staged inode is only
//! ever linked once its bytes are durable: committing one that was not
//! synced syncs it first. One that is dropped uncommitted vanishes with
//! its handle. Where `O_TMPFILE` is missing, or anything about the
//! destination changed since staging, the commit simply writes the bytes
//! as [`Workspace::write`] does.

use std::fs::File;
use std::io::Write;

use crate::atomic::{Existing, link_anonymous, open_anonymous, write_new_inode};
use crate::error::{BoundaryError, Result};
use crate::path::WorkspacePath;
use crate::resolve::{Follow, is_absent};
use crate::workspace::Workspace;
use crate::write::WriteOutcome;

/// Threads that `fsync` staged files at once, at most.
const SYNC_THREADS: usize = 8;

/// One file's new bytes, staged by [`Workspace::stage`] and not yet put
/// in place.
#[derive(Debug)]
pub struct Staged<'c> {
    path: WorkspacePath,
    contents: &'c [u8],
    /// The unnamed inode holding `contents`, and the permission bits it
    /// was made with (those of the file it replaces, if one was there).
    inode: Option<(File, Option<u32>)>,
    synced: bool,
}

impl Staged<'_> {
    /// The path the bytes are for.
    pub fn path(&self) -> &WorkspacePath {
        &self.path
    }
}

impl Workspace {
    /// Writes `contents` for `path` to a fresh unnamed inode in the
    /// directory `path` would land in, changing nothing anyone can see.
    /// When that is not possible (no such directory yet, no `O_TMPFILE`,
    /// anything but a regular file or nothing at `path`), the staged
    /// write carries only the bytes and [`Self::commit_staged`] writes
    /// them then.
    pub fn stage<'c>(&self, path: &WorkspacePath, contents: &'c [u8]) -> Result<Staged<'c>> {
        let target = self.file_target(path, Follow::Final)?;
        let mut staged = Staged {
            path: path.clone(),
            contents,
            inode: None,
            synced: false,
        };
        let (Some(name), Some(parent)) = (target.rel.file_name(), target.rel.parent()) else {
            return Ok(staged);
        };
        let Ok(dir) = self.open_dir_exactly(parent) else {
            return Ok(staged);
        };
        let mode = match dir.symlink_metadata(name) {
            Ok(meta) if meta.is_file() => {
                Some(cap_std::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777)
            }
            Err(e) if is_absent(&e) => None,
            _ => return Ok(staged),
        };
        let Some(file) =
            open_anonymous(&dir, mode).map_err(|e| self.os_error(&target, "write", e))?
        else {
            return Ok(staged);
        };
        (&file)
            .write_all(contents)
            .map_err(|e| self.os_error(&target, "write", e))?;
        staged.inode = Some((file, mode));
        Ok(staged)
    }

    /// Makes the bytes of every staged write durable, `fsync`ing them
    /// from several threads at once.
    pub fn sync_staged<'s, 'c: 's>(
        &self,
        staged: impl IntoIterator<Item = &'s mut Staged<'c>>,
    ) -> Result<()> {
        let mut pending: Vec<&mut Staged<'c>> = staged
            .into_iter()
            .filter(|staged| !staged.synced && staged.inode.is_some())
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        let per_thread = pending.len().div_ceil(SYNC_THREADS);
        let failed = std::thread::scope(|scope| {
            let workers: Vec<_> = pending
                .chunks_mut(per_thread)
                .map(|chunk| {
                    scope.spawn(move || {
                        for staged in chunk {
                            if let Some((file, _)) = &staged.inode {
                                if let Err(e) = file.sync_all() {
                                    return Some((staged.path.to_text(), e));
                                }
                                staged.synced = true;
                            }
                        }
                        None
                    })
                })
                .collect();
            workers
                .into_iter()
                .find_map(|worker| worker.join().ok().flatten())
        });
        match failed {
            None => Ok(()),
            Some((shown, e)) => Err(BoundaryError::from_io("write", &shown, e)),
        }
    }

    /// Puts a staged write in place: with [`Existing`] replacing, as
    /// [`Self::write`] does now (the path resolved, guarded, its parent
    /// created and opened again); else, as [`Self::create_new`] does. The
    /// staged inode is linked in only when its file's kind and mode are
    /// what they were at staging; otherwise the bytes are written anew.
    pub fn commit_staged(&self, staged: Staged<'_>, replace: bool) -> Result<WriteOutcome> {
        let (follow, existing) = if replace {
            (Follow::Final, Existing::Replace)
        } else {
            (Follow::NotFinal, Existing::Refuse)
        };
        let Staged {
            path,
            contents,
            inode,
            synced,
        } = staged;
        let target = self.file_target(&path, follow)?;
        self.guard(&target, "write", false)?;
        let (parent, name) = self.parent_dir(&target, "write")?;
        let mode = self.existing_mode(&target, &parent, name, existing)?;
        let outcome = WriteOutcome {
            bytes_written: contents.len() as u64,
            created: mode.is_none(),
        };
        if let Some((file, staged_mode)) = inode
            && staged_mode == mode
        {
            let linked = (|| {
                if !synced {
                    file.sync_all()?;
                }
                link_anonymous(&file, &parent, name, existing)
            })();
            match linked {
                Ok(true) => {
                    crate::atomic::sync_dir_after_commit(&parent);
                    return Ok(outcome);
                }
                // No procfs, or another filesystem here now: write anew.
                Ok(false) => {}
                Err(e) if e.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error()) => {}
                Err(e) => return Err(self.os_error(&target, "write", e)),
            }
        }
        write_new_inode(&parent, name, contents, mode, existing)
            .map_err(|e| self.os_error(&target, "write", e))?;
        Ok(outcome)
    }
}
