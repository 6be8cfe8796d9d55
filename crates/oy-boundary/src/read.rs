//! Reads: metadata, whole files under a size cap, text detection, and an
//! opened handle for streaming readers. Special files are refused before
//! they are opened, and opened non-blocking in case one is swapped in.

use std::io::Read;
use std::path::Path;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{OpenOptions, OpenOptionsExt};

use crate::error::{BoundaryError, Result};
use crate::metadata::{FileKind, Metadata};
use crate::path::WorkspacePath;
use crate::resolve::Follow;
use crate::workspace::Workspace;

/// How many leading bytes are sniffed to tell text from binary (as git does).
pub(crate) const SNIFF_BYTES: usize = 8 * 1024;

impl Workspace {
    /// Metadata of what `path` names, following symlinks that stay inside.
    pub fn metadata(&self, path: &WorkspacePath) -> Result<Metadata> {
        self.lstat_resolved(path, Follow::Final)
    }

    /// Metadata of `path` itself: a symlink is reported as a symlink.
    pub fn symlink_metadata(&self, path: &WorkspacePath) -> Result<Metadata> {
        self.lstat_resolved(path, Follow::NotFinal)
    }

    fn lstat_resolved(&self, path: &WorkspacePath, follow: Follow) -> Result<Metadata> {
        let rel = self.resolve(path, follow)?;
        let meta = self
            .dir
            .symlink_metadata(cap_rel(&rel))
            .map_err(|e| BoundaryError::from_io("stat", &path.to_text(), e))?;
        Ok(Metadata::from_cap(&meta))
    }

    /// Opens a regular file for reading and returns a plain `std::fs::File`
    /// for streaming consumers (the search tool). FIFOs, sockets and devices
    /// are refused without blocking.
    pub fn open_file(&self, path: &WorkspacePath) -> Result<std::fs::File> {
        let rel = self.resolve(path, Follow::Final)?;
        self.open_regular(&rel, &path.to_text())
            .map(|(file, _)| file)
    }

    /// Reads a whole regular file, refusing files larger than `max_bytes`.
    pub fn read_bytes(&self, path: &WorkspacePath, max_bytes: u64) -> Result<Vec<u8>> {
        let rel = self.resolve(path, Follow::Final)?;
        self.read_resolved(&rel, &path.to_text(), max_bytes)
    }

    /// Reads a whole regular file as UTF-8 text under a size cap. Files with
    /// NUL bytes are [`BoundaryError::Binary`]; other invalid UTF-8 is
    /// [`BoundaryError::NotUtf8`] with the offset of the first bad byte.
    pub fn read_text(&self, path: &WorkspacePath, max_bytes: u64) -> Result<String> {
        let shown = path.to_text();
        let bytes = self.read_bytes(path, max_bytes)?;
        bytes_to_text(bytes, &shown)
    }

    /// True when the file's first 8 KiB hold no NUL byte and are valid UTF-8
    /// (a multi-byte character cut by the sniff window still counts as text).
    pub fn is_text(&self, path: &WorkspacePath) -> Result<bool> {
        let mut file = self.open_file(path)?;
        let mut head = Vec::with_capacity(SNIFF_BYTES);
        (&mut file)
            .take(SNIFF_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(|e| BoundaryError::from_io("read", &path.to_text(), e))?;
        Ok(looks_like_text(&head))
    }

    pub(crate) fn read_resolved(&self, rel: &Path, shown: &str, max_bytes: u64) -> Result<Vec<u8>> {
        let (file, len) = self.open_regular(rel, shown)?;
        if len > max_bytes {
            return Err(BoundaryError::TooLarge {
                path: shown.to_owned(),
                size: len,
                limit: max_bytes,
            });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        // The file may grow between stat and read: never take more than the cap.
        file.take(max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| BoundaryError::from_io("read", shown, e))?;
        let read = bytes.len() as u64;
        if read > max_bytes {
            return Err(BoundaryError::TooLarge {
                path: shown.to_owned(),
                size: read,
                limit: max_bytes,
            });
        }
        Ok(bytes)
    }

    /// Opens `rel` (already resolved, so symlink-free) as a regular file.
    ///
    /// The type is checked with `lstat` first, so a FIFO or device is never
    /// opened at all; the open itself uses `O_NOFOLLOW | O_NONBLOCK |
    /// O_NOCTTY` and the type is checked again on the handle, which closes
    /// the window where one could be swapped in between the two steps.
    pub(crate) fn open_regular(&self, rel: &Path, shown: &str) -> Result<(std::fs::File, u64)> {
        let rel = cap_rel(rel);
        let before = self
            .dir
            .symlink_metadata(rel)
            .map_err(|e| BoundaryError::from_io("stat", shown, e))?;
        let kind = FileKind::of(before.file_type());
        if kind != FileKind::File {
            return Err(BoundaryError::NotAFile {
                path: shown.to_owned(),
                kind,
            });
        }
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No).custom_flags(
            (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32,
        );
        let file = self
            .dir
            .open_with(rel, &options)
            .map_err(|e| BoundaryError::from_io("open", shown, e))?;
        let after = file
            .metadata()
            .map_err(|e| BoundaryError::from_io("stat", shown, e))?;
        let kind = FileKind::of(after.file_type());
        if kind != FileKind::File {
            return Err(BoundaryError::NotAFile {
                path: shown.to_owned(),
                kind,
            });
        }
        Ok((file.into_std(), after.len()))
    }
}

/// cap-std wants `.` rather than an empty path for the directory itself.
pub(crate) fn cap_rel(rel: &Path) -> &Path {
    if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    }
}

pub(crate) fn bytes_to_text(bytes: Vec<u8>, shown: &str) -> Result<String> {
    if memchr::memchr(0, &bytes).is_some() {
        return Err(BoundaryError::Binary {
            path: shown.to_owned(),
        });
    }
    String::from_utf8(bytes).map_err(|e| BoundaryError::NotUtf8 {
        path: shown.to_owned(),
        byte_offset: e.utf8_error().valid_up_to() as u64,
    })
}

/// Text means: no NUL, and valid UTF-8 except possibly a character cut at the end.
pub(crate) fn looks_like_text(head: &[u8]) -> bool {
    if memchr::memchr(0, head).is_some() {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}
