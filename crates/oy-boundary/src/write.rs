//! Writes: atomic create/overwrite (temp file in the same directory, fsync,
//! rename, fsync the directory), append, and directory creation — all inside
//! the root, never through a symlink that leaves it.

use std::path::Path;

use cap_std::fs::{Dir, PermissionsExt};

use crate::atomic::{Existing, write_new_inode};
use crate::error::{BoundaryError, Result};
use crate::metadata::FileKind;
use crate::path::WorkspacePath;
use crate::read::cap_rel;
use crate::resolve::{Follow, is_absent};
use crate::workspace::Workspace;

/// Appending rewrites the file atomically, so it reads the old content
/// first; files above this size are refused rather than copied.
pub const APPEND_LIMIT_BYTES: u64 = 256 * 1024 * 1024;

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOutcome {
    /// Bytes the caller asked to write (for append: the appended bytes).
    pub bytes_written: u64,
    /// True when the file did not exist before.
    pub created: bool,
}

impl Workspace {
    /// Creates or replaces a file atomically: readers see the old content or
    /// the new, never a mix, even if the process dies mid-write. Missing
    /// parent directories are created (inside the root only); an existing
    /// file keeps its permission bits. A symlink at `path` is written
    /// through only when its target stays inside the root.
    pub fn write(&self, path: &WorkspacePath, contents: &[u8]) -> Result<WriteOutcome> {
        let rel = self.resolve(path, Follow::Final)?;
        self.replace_atomically(&rel, &path.to_text(), contents, Existing::Replace)
    }

    /// Like [`Self::write`], but fails with [`BoundaryError::AlreadyExists`]
    /// when something is already at `path`.
    pub fn create_new(&self, path: &WorkspacePath, contents: &[u8]) -> Result<WriteOutcome> {
        let rel = self.resolve(path, Follow::NotFinal)?;
        self.replace_atomically(&rel, &path.to_text(), contents, Existing::Refuse)
    }

    /// Appends to a file (creating it if missing). Done as an atomic rewrite
    /// of old + new content, so a crash never leaves a half-appended file and
    /// a hard link to a file outside the root is never modified in place.
    pub fn append(&self, path: &WorkspacePath, contents: &[u8]) -> Result<WriteOutcome> {
        let shown = path.to_text();
        let rel = self.resolve(path, Follow::Final)?;
        let mut combined = match self.read_resolved(&rel, &shown, APPEND_LIMIT_BYTES) {
            Ok(old) => old,
            Err(BoundaryError::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(e),
        };
        combined.extend_from_slice(contents);
        let outcome = self.replace_atomically(&rel, &shown, &combined, Existing::Replace)?;
        Ok(WriteOutcome {
            bytes_written: contents.len() as u64,
            created: outcome.created,
        })
    }

    /// Creates a directory and any missing parents, inside the root only.
    pub fn create_dir_all(&self, path: &WorkspacePath) -> Result<()> {
        let shown = path.to_text();
        let rel = self.resolve(path, Follow::Final)?;
        self.create_dirs(&rel, &shown)
    }

    pub(crate) fn create_dirs(&self, rel: &Path, shown: &str) -> Result<()> {
        // Find the deepest existing ancestor; anything but a directory there
        // is a typed error naming it, rather than a bare ENOTDIR.
        let mut existing_depth = 0;
        for (depth, prefix) in rel
            .ancestors()
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .enumerate()
        {
            if prefix.as_os_str().is_empty() {
                continue;
            }
            match self.dir.symlink_metadata(prefix) {
                Ok(meta) if meta.is_dir() => existing_depth = depth,
                Ok(meta) => {
                    return Err(BoundaryError::NotADirectory {
                        path: self.anchor.at_base_rel(prefix.to_path_buf()).to_text(),
                        kind: FileKind::of(meta.file_type()),
                    });
                }
                Err(e) if is_absent(&e) => break,
                Err(e) => return Err(BoundaryError::from_io("stat", shown, e)),
            }
        }
        if existing_depth == rel.components().count() {
            return Ok(());
        }
        self.dir
            .create_dir_all(rel)
            .map_err(|e| BoundaryError::from_io("create directory", shown, e))
    }

    /// Opens the parent directory of `rel` (creating it if needed) and
    /// returns it with the final name.
    pub(crate) fn parent_dir<'a>(
        &self,
        rel: &'a Path,
        shown: &str,
        operation: &'static str,
    ) -> Result<(Dir, &'a std::ffi::OsStr)> {
        let name = rel
            .file_name()
            .ok_or(BoundaryError::RootProtected { operation })?;
        let parent = rel.parent().unwrap_or(Path::new(""));
        self.create_dirs(parent, shown)?;
        let dir = self
            .dir
            .open_dir(cap_rel(parent))
            .map_err(|e| BoundaryError::from_io(operation, shown, e))?;
        Ok((dir, name))
    }

    fn replace_atomically(
        &self,
        rel: &Path,
        shown: &str,
        contents: &[u8],
        existing: Existing,
    ) -> Result<WriteOutcome> {
        let (parent, name) = self.parent_dir(rel, shown, "write")?;
        let io_err = |e| BoundaryError::from_io("write", shown, e);
        let mode = match parent.symlink_metadata(name) {
            Ok(_) if existing == Existing::Refuse => {
                return Err(BoundaryError::AlreadyExists {
                    path: shown.to_owned(),
                });
            }
            Ok(meta) if meta.is_file() => Some(meta.permissions().mode()),
            Ok(meta) => {
                return Err(BoundaryError::NotAFile {
                    path: shown.to_owned(),
                    kind: FileKind::of(meta.file_type()),
                });
            }
            Err(e) if is_absent(&e) => None,
            Err(e) => return Err(io_err(e)),
        };
        write_new_inode(&parent, name, contents, mode, existing).map_err(io_err)?;
        Ok(WriteOutcome {
            bytes_written: contents.len() as u64,
            created: mode.is_none(),
        })
    }
}
