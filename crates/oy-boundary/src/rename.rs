//! Move/rename with both ends inside the root. The last component of each
//! end is not followed: moving a symlink moves the link, and moving over a
//! symlink replaces the link, never what it points to.

use std::io;

use crate::atomic::{rename_no_replace, sync_dir_after_commit};
use crate::error::{BoundaryError, Result};
use crate::path::WorkspacePath;
use crate::resolve::Follow;
use crate::workspace::Workspace;

impl Workspace {
    /// Moves `from` to `to`. Without `overwrite`, an existing destination is
    /// [`BoundaryError::AlreadyExists`] (checked atomically by the kernel
    /// with `RENAME_NOREPLACE` where the filesystem supports it). Missing
    /// parent directories of `to` are created inside the root.
    pub fn rename(&self, from: &WorkspacePath, to: &WorkspacePath, overwrite: bool) -> Result<()> {
        let from = self.target(from, Follow::NotFinal)?;
        let to = self.target(to, Follow::NotFinal)?;
        if self.contains_root(&from.rel) || self.contains_root(&to.rel) {
            return Err(BoundaryError::RootProtected { operation: "move" });
        }
        self.guard(&from, "move", true)?;
        self.guard(&to, "move", true)?;
        if let Err(e) = self.dir.symlink_metadata(&from.rel) {
            return Err(self.os_error(&from, "move", e));
        }
        if to.rel.starts_with(&from.rel) && to.rel != from.rel {
            return Err(BoundaryError::Io {
                operation: "move",
                path: from.shown.clone(),
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("cannot move a directory into itself ({})", to.shown),
                ),
            });
        }
        let (from_dir, from_name) = self.parent_dir(&from, "move")?;
        let (to_dir, to_name) = self.parent_dir(&to, "move")?;
        // Both ends are single names in open directories: nothing here can
        // be redirected, so an error is the OS's own.
        let io_err = |e: io::Error| BoundaryError::from_io("move", &to.shown, e);
        if overwrite {
            from_dir
                .rename(from_name, &to_dir, to_name)
                .map_err(io_err)?;
        } else {
            rename_no_replace(&from_dir, from_name, &to_dir, to_name).map_err(io_err)?;
        }
        // The move is done: making it durable is best effort (see
        // `sync_dir_after_commit`).
        sync_dir_after_commit(&to_dir);
        sync_dir_after_commit(&from_dir);
        Ok(())
    }
}
