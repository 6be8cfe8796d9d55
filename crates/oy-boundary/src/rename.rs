//! Move/rename with both ends inside the root. The last component of each
//! end is not followed: moving a symlink moves the link, and moving over a
//! symlink replaces the link, never what it points to.

use std::io;

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
        let from_shown = from.to_text();
        let to_shown = to.to_text();
        let from_rel = self.resolve(from, Follow::NotFinal)?;
        let to_rel = self.resolve(to, Follow::NotFinal)?;
        if self.contains_root(&from_rel) || self.contains_root(&to_rel) {
            return Err(BoundaryError::RootProtected { operation: "move" });
        }
        if let Err(e) = self.dir.symlink_metadata(&from_rel) {
            return Err(BoundaryError::from_io("move", &from_shown, e));
        }
        if to_rel.starts_with(&from_rel) && to_rel != from_rel {
            return Err(BoundaryError::Io {
                operation: "move",
                path: from_shown,
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("cannot move a directory into itself ({to_shown})"),
                ),
            });
        }
        let (from_dir, from_name) = self.parent_dir(&from_rel, &from_shown, "move")?;
        let (to_dir, to_name) = self.parent_dir(&to_rel, &to_shown, "move")?;
        let io_err = |e: io::Error| BoundaryError::from_io("move", &to_shown, e);
        if overwrite {
            from_dir
                .rename(from_name, &to_dir, to_name)
                .map_err(io_err)?;
        } else {
            crate::atomic::rename_no_replace(&from_dir, from_name, &to_dir, to_name)
                .map_err(io_err)?;
        }
        crate::atomic::sync_dir(&to_dir).map_err(io_err)?;
        crate::atomic::sync_dir(&from_dir).map_err(io_err)?;
        Ok(())
    }
}
