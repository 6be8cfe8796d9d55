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

    /// Removes what a write of `path` by process `pid`, killed between
    /// making its new file and renaming it into place, can have left: its
    /// hidden temp files beside `path` (`.NAME.oy-tmp.<pid>.<n>`, see
    /// `atomic.rs`) — regular files of exactly that form, nothing else,
    /// with no link followed to reach them. For a caller that knows `pid`
    /// died mid-write (a journal whose process is gone); a live writer's
    /// temp file removed by mistake only makes that write fail. Returns
    /// how many were removed.
    pub fn remove_write_debris(&self, path: &WorkspacePath, pid: u32) -> Result<usize> {
        let target = self.exact_target(path, "remove")?;
        self.guard(&target, "remove", true)?;
        let Some(name) = target.rel.file_name() else {
            return Ok(0);
        };
        // No directory, no debris (and none is made to look).
        let parent_rel = target.rel.parent().unwrap_or(std::path::Path::new(""));
        let Ok(parent) = self.open_dir_exactly(parent_rel) else {
            return Ok(0);
        };
        let prefix = crate::atomic::temp_prefix(name, pid);
        let io_err = |e| self.os_error(&target, "remove", e);
        let mut removed = 0;
        for entry in parent.entries().map_err(io_err)? {
            let entry = entry.map_err(io_err)?;
            let file_name = entry.file_name();
            let is_debris = file_name
                .as_encoded_bytes()
                .strip_prefix(prefix.as_encoded_bytes())
                .is_some_and(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit));
            if is_debris
                && entry.file_type().is_ok_and(|kind| kind.is_file())
                && parent.remove_file(&file_name).is_ok()
            {
                removed += 1;
            }
        }
        Ok(removed)
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
