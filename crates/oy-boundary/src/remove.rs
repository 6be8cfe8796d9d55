//! Removal: a symlink is unlinked as a link (its target untouched), the root
//! can never be removed, and recursive removal works on directory handles
//! without following any link it meets.

use crate::atomic::sync_dir_after_commit;
use crate::error::{BoundaryError, Result};
use crate::metadata::FileKind;
use crate::path::WorkspacePath;
use crate::read::cap_rel;
use crate::resolve::Follow;
use crate::workspace::Workspace;

impl Workspace {
    /// Removes `path` and returns what it was. A directory needs
    /// `recursive` unless it is empty.
    pub fn remove(&self, path: &WorkspacePath, recursive: bool) -> Result<FileKind> {
        self.remove_target(&self.target(path, Follow::NotFinal)?, recursive)
    }

    /// [`Self::remove`] with no link followed anywhere in `path` (a parent
    /// that is a link, even inside the root, is refused), for undoing a
    /// change exactly where it was made.
    pub fn remove_exactly(&self, path: &WorkspacePath, recursive: bool) -> Result<FileKind> {
        self.remove_target(&self.exact_target(path, "remove")?, recursive)
    }

    fn remove_target(
        &self,
        target: &crate::resolve::Target<'_>,
        recursive: bool,
    ) -> Result<FileKind> {
        let rel = &target.rel;
        if self.contains_root(rel) {
            return Err(BoundaryError::RootProtected {
                operation: "remove",
            });
        }
        self.guard(target, "remove", true)?;
        let io_err = |e| self.os_error(target, "remove", e);
        let meta = self.dir.symlink_metadata(rel).map_err(io_err)?;
        let kind = FileKind::of(meta.file_type());
        if kind == FileKind::Directory && recursive {
            self.refuse_protected_beneath(target)?;
        }
        // The parent is opened without following any link, and the entry
        // removed by its one name in it: a directory swapped for a link
        // (into `.git`, say) since the checks makes this fail instead of
        // removing something there.
        let (parent, name) = self.parent_dir(target, "remove")?;
        match kind {
            FileKind::Directory if recursive => parent.remove_dir_all(name),
            FileKind::Directory => parent.remove_dir(name),
            // Files, symlinks (the link itself), FIFOs, sockets, devices.
            _ => parent.remove_file(name),
        }
        .map_err(io_err)?;
        // The entry is gone: syncing its directory is best effort (see
        // `sync_dir_after_commit`).
        sync_dir_after_commit(&parent);
        Ok(kind)
    }

    /// Walks the directory at `target` (never following a link) and
    /// refuses the removal when a protected name lies beneath it, such as a
    /// nested repository's `.git`. A tree too large to check is refused
    /// rather than removed unchecked.
    fn refuse_protected_beneath(&self, target: &crate::resolve::Target<'_>) -> Result<()> {
        let mut pending = vec![target.rel.clone()];
        let mut seen = 0usize;
        while let Some(dir) = pending.pop() {
            let entries = self
                .dir
                .read_dir(cap_rel(&dir))
                .map_err(|e| self.os_error(target, "remove", e))?;
            for entry in entries {
                let entry = entry.map_err(|e| self.os_error(target, "remove", e))?;
                seen += 1;
                if seen > MAX_CHECKED_ENTRIES {
                    return Err(BoundaryError::Protected {
                        path: target.shown.clone(),
                        operation: "remove",
                        why: format!(
                            "it holds more than {MAX_CHECKED_ENTRIES} entries, too many to check for protected paths such as `.git`"
                        ),
                    });
                }
                let child = dir.join(entry.file_name());
                self.guard_rel(&child, target, "remove")?;
                let is_dir = entry
                    .file_type()
                    .is_ok_and(|kind| kind.is_dir() && !kind.is_symlink());
                if is_dir {
                    pending.push(child);
                }
            }
        }
        Ok(())
    }
}

/// Entries a recursive removal checks for protected names, at most.
const MAX_CHECKED_ENTRIES: usize = 1_000_000;
