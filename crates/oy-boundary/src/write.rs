//! Writes: atomic create/overwrite (temp file in the same directory, fsync,
//! rename, fsync the directory), append, and directory creation — all inside
//! the root, never through a symlink that leaves it.

use std::path::Path;

use cap_std::fs::{Dir, PermissionsExt};

use crate::atomic::{Existing, write_new_inode};
use crate::error::{BoundaryError, InvalidPathReason, Result};
use crate::metadata::FileKind;
use crate::path::WorkspacePath;
use crate::read::cap_rel;
use crate::resolve::{Follow, Target, is_absent};
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
        let target = self.file_target(path, Follow::Final)?;
        self.replace_atomically(&target, contents, Existing::Replace, None)
    }

    /// Like [`Self::write`], but the file ends up with mode `0600` (owner
    /// read/write only) whether it existed or not: for session and config
    /// files that may hold private data.
    pub fn write_private(&self, path: &WorkspacePath, contents: &[u8]) -> Result<WriteOutcome> {
        let target = self.file_target(path, Follow::Final)?;
        self.replace_atomically(&target, contents, Existing::Replace, Some(0o600))
    }

    /// Puts a file back as it was: `contents` with `mode`'s
    /// permission bits, atomically, never through a link at `path` (a link
    /// there, or a directory, is refused). For undoing a change (a
    /// checkpoint's saved state), where the old mode matters as much as the
    /// bytes.
    pub fn restore_file(
        &self,
        path: &WorkspacePath,
        contents: &[u8],
        mode: u32,
    ) -> Result<WriteOutcome> {
        if path.names_directory() {
            return Err(BoundaryError::InvalidPath {
                path: path.to_text(),
                reason: InvalidPathReason::TrailingSlashOnFile,
            });
        }
        let target = self.exact_target(path, "restore")?;
        self.replace_atomically(&target, contents, Existing::Replace, Some(mode & 0o777))
    }

    /// `path` resolved with no link followed anywhere in it — not a final
    /// one, and not a parent, even one that stays inside the root — for
    /// putting back a saved state, which must land exactly where it was
    /// taken. The parent is then opened with `RESOLVE_NO_SYMLINKS`, so a
    /// link swapped in after this check makes the operation fail.
    pub(crate) fn exact_target<'p>(
        &self,
        path: &'p WorkspacePath,
        operation: &'static str,
    ) -> Result<Target<'p>> {
        let target = self.target(path, Follow::NotFinal)?;
        if self.anchor.at_base_rel(target.rel.clone()).as_path() != path.as_path() {
            return Err(BoundaryError::Protected {
                path: target.shown.clone(),
                operation,
                why: "a parent is a symbolic link".to_owned(),
            });
        }
        Ok(target)
    }

    /// Like [`Self::write`], but fails with [`BoundaryError::AlreadyExists`]
    /// when something is already at `path`.
    pub fn create_new(&self, path: &WorkspacePath, contents: &[u8]) -> Result<WriteOutcome> {
        let target = self.file_target(path, Follow::NotFinal)?;
        self.replace_atomically(&target, contents, Existing::Refuse, None)
    }

    /// Appends to a file (creating it if missing). Done as an atomic rewrite
    /// of old + new content, so a crash never leaves a half-appended file and
    /// a hard link to a file outside the root is never modified in place.
    pub fn append(&self, path: &WorkspacePath, contents: &[u8]) -> Result<WriteOutcome> {
        let target = self.file_target(path, Follow::Final)?;
        let mut combined = match self.read_resolved(&target, APPEND_LIMIT_BYTES) {
            Ok(old) => old,
            Err(BoundaryError::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(e),
        };
        combined.extend_from_slice(contents);
        let outcome = self.replace_atomically(&target, &combined, Existing::Replace, None)?;
        Ok(WriteOutcome {
            bytes_written: contents.len() as u64,
            created: outcome.created,
        })
    }

    /// Runs `changes` (writes, moves, removals of this workspace or any
    /// other, on this thread) as one batch for durability: each file's
    /// bytes are still made durable before its name changes, but each
    /// directory a change touched is `fsync`ed once, at the end, instead of
    /// after every change. For a caller landing many files at once (a
    /// patch), which only reports success after the batch ends anyway.
    pub fn batch<T>(&self, changes: impl FnOnce() -> T) -> T {
        crate::atomic::batch(changes)
    }

    /// Creates a directory and any missing parents, inside the root only.
    pub fn create_dir_all(&self, path: &WorkspacePath) -> Result<()> {
        let target = self.target(path, Follow::Final)?;
        self.guard(&target, "create", false)?;
        self.create_dirs(&target, &target.rel)
    }

    /// Makes the directory at `path` (and any missing parent) with exactly
    /// `mode`'s permission bits (no setuid, setgid or sticky bit), for
    /// putting back a directory that was removed. Never through any link
    /// (see `exact_target`): the bits are set on the directory opened
    /// without following one.
    pub fn restore_dir(&self, path: &WorkspacePath, mode: u32) -> Result<()> {
        let target = self.exact_target(path, "restore")?;
        self.guard(&target, "create", false)?;
        self.create_dirs(&target, &target.rel)?;
        let handle = self
            .open_dir_exactly(&target.rel)
            .map_err(|e| self.os_error(&target, "open", e))?;
        // cap-std's handle is `O_PATH`, which cannot be changed: reopen it.
        let opened = rustix::fs::openat(
            &handle,
            ".",
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .map_err(|e| self.os_error(&target, "open", e.into()))?;
        rustix::fs::fchmod(&opened, rustix::fs::Mode::from_raw_mode(mode & 0o777))
            .map_err(|e| self.os_error(&target, "chmod", e.into()))
    }

    /// Resolves a path a file is about to be written at. A trailing `/`
    /// names a directory, so it is refused before anything is touched
    /// (the kernel would fail with `EISDIR` only after creating parents).
    pub(crate) fn file_target<'p>(
        &self,
        path: &'p WorkspacePath,
        follow: Follow,
    ) -> Result<Target<'p>> {
        if path.names_directory() {
            return Err(BoundaryError::InvalidPath {
                path: path.to_text(),
                reason: InvalidPathReason::TrailingSlashOnFile,
            });
        }
        self.target(path, follow)
    }

    /// Creates `rel` (a prefix of `target.rel`) and its missing parents.
    pub(crate) fn create_dirs(&self, target: &Target<'_>, rel: &Path) -> Result<()> {
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
                    let error = BoundaryError::NotADirectory {
                        path: self.anchor.at_base_rel(prefix.to_path_buf()).to_text(),
                        kind: FileKind::of(meta.file_type()),
                    };
                    // Resolution left no link here: one now means a race.
                    return Err(if meta.file_type().is_symlink() {
                        self.recheck(target, error)
                    } else {
                        error
                    });
                }
                Err(e) if is_absent(&e) => break,
                Err(e) => return Err(self.os_error(target, "stat", e)),
            }
        }
        if existing_depth == rel.components().count() {
            return Ok(());
        }
        self.dir
            .create_dir_all(rel)
            .map_err(|e| self.os_error(target, "create directory", e))
    }

    /// Opens the parent directory of `target` (creating it if needed) and
    /// returns it with the final name.
    pub(crate) fn parent_dir<'t>(
        &self,
        target: &'t Target<'_>,
        operation: &'static str,
    ) -> Result<(Dir, &'t std::ffi::OsStr)> {
        let name = target
            .rel
            .file_name()
            .ok_or(BoundaryError::RootProtected { operation })?;
        let parent = target.rel.parent().unwrap_or(Path::new(""));
        // Usually the parent is there: opened as below, it needs no
        // ancestor-by-ancestor look first. Any failure takes the long way,
        // which names what is wrong.
        if let Ok(dir) = self.open_dir_exactly(parent) {
            return Ok((dir, name));
        }
        self.create_dirs(target, parent)?;
        let dir = self
            .open_dir_exactly(parent)
            .map_err(|e| self.os_error(target, operation, e))?;
        Ok((dir, name))
    }

    /// Opens the directory at `rel`, which resolution left free of links,
    /// without following any link at all: a link swapped in since then
    /// (to a protected directory, say) fails with `ELOOP`, which
    /// [`Self::os_error`] treats as the race it is. Kernels without
    /// `openat2` get cap-std's own open, which still never leaves the root.
    pub(crate) fn open_dir_exactly(&self, rel: &Path) -> std::io::Result<Dir> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        let rel = cap_rel(rel);
        match rustix::fs::openat2(
            &self.dir,
            rel,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        ) {
            Ok(fd) => Ok(Dir::from_std_file(std::fs::File::from(fd))),
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => self.dir.open_dir(rel),
            Err(e) => Err(e.into()),
        }
    }

    /// `mode_override` replaces the permission bits; otherwise an existing
    /// file keeps its own and a new one gets the umask default.
    pub(crate) fn replace_atomically(
        &self,
        target: &Target<'_>,
        contents: &[u8],
        existing: Existing,
        mode_override: Option<u32>,
    ) -> Result<WriteOutcome> {
        self.guard(target, "write", false)?;
        let (parent, name) = self.parent_dir(target, "write")?;
        let mode = self.existing_mode(target, &parent, name, existing)?;
        let created = mode.is_none();
        write_new_inode(&parent, name, contents, mode_override.or(mode), existing)
            .map_err(|e| self.os_error(target, "write", e))?;
        Ok(WriteOutcome {
            bytes_written: contents.len() as u64,
            created,
        })
    }

    /// The permission bits of the file at `name` in `parent` that a write
    /// replaces (`None`: nothing there yet), refusing what may not be
    /// replaced: anything with [`Existing::Refuse`], a file the caller may
    /// not write, anything but a regular file.
    pub(crate) fn existing_mode(
        &self,
        target: &Target<'_>,
        parent: &Dir,
        name: &std::ffi::OsStr,
        existing: Existing,
    ) -> Result<Option<u32>> {
        let shown = &target.shown;
        let io_err = |e| self.os_error(target, "write", e);
        Ok(match parent.symlink_metadata(name) {
            Ok(_) if existing == Existing::Refuse => {
                return Err(BoundaryError::AlreadyExists {
                    path: shown.clone(),
                });
            }
            Ok(meta) if meta.is_file() => {
                let mode = meta.permissions().mode() & 0o7777;
                // The atomic rename only needs the directory's permission;
                // the file's own must be honoured as an in-place write
                // would (root passes, as it does there).
                let writable = rustix::fs::accessat(
                    parent,
                    name,
                    rustix::fs::Access::WRITE_OK,
                    rustix::fs::AtFlags::EACCESS | rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                );
                if writable == Err(rustix::io::Errno::ACCESS) {
                    return Err(BoundaryError::PermissionDenied {
                        path: shown.clone(),
                        mode,
                    });
                }
                Some(mode)
            }
            Ok(meta) => {
                return Err(BoundaryError::NotAFile {
                    path: shown.clone(),
                    kind: FileKind::of(meta.file_type()),
                });
            }
            Err(e) if is_absent(&e) => None,
            Err(e) => return Err(io_err(e)),
        })
    }
}
