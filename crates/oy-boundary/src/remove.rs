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
        let target = self.target(path, Follow::NotFinal)?;
        let rel = &target.rel;
        if self.contains_root(rel) {
            return Err(BoundaryError::RootProtected {
                operation: "remove",
            });
        }
        let io_err = |e| self.os_error(&target, "remove", e);
        let meta = self.dir.symlink_metadata(rel).map_err(io_err)?;
        let kind = FileKind::of(meta.file_type());
        match kind {
            FileKind::Directory if recursive => self.dir.remove_dir_all(rel),
            FileKind::Directory => self.dir.remove_dir(rel),
            // Files, symlinks (the link itself), FIFOs, sockets, devices.
            _ => self.dir.remove_file(rel),
        }
        .map_err(io_err)?;
        // The entry is gone: syncing its directory is best effort (see
        // `sync_dir_after_commit`), and so is opening it for that.
        if let Some(parent) = rel.parent()
            && let Ok(parent) = self.dir.open_dir(cap_rel(parent))
        {
            sync_dir_after_commit(&parent);
        }
        Ok(kind)
    }
}
