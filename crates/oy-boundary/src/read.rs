//! Reads: metadata, whole files under a size cap, text detection, and an
//! opened handle for streaming readers (by path, or relative to the walker's
//! directory handle). Special files are refused before they are opened, and
//! opened non-blocking in case one is swapped in.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{OpenOptions, OpenOptionsExt};
use rustix::fd::BorrowedFd;
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use crate::error::{BoundaryError, Result};
use crate::metadata::{FileKind, Metadata};
use crate::path::WorkspacePath;
use crate::resolve::{Follow, Target};
use crate::walk::WalkEntry;
use crate::workspace::Workspace;

/// How many leading bytes are sniffed to tell text from binary (as git does).
pub(crate) const SNIFF_BYTES: usize = 8 * 1024;

/// Flags for every read open: never follow the last component, never block
/// (a FIFO swapped in opens at once instead of waiting for a writer), never
/// acquire a controlling terminal.
const READ_FLAGS: OFlags = OFlags::NOFOLLOW
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY);

impl Workspace {
    /// Metadata of what `path` names, following symlinks that stay inside.
    pub fn metadata(&self, path: &WorkspacePath) -> Result<Metadata> {
        self.lstat_resolved(path, Follow::Final)
    }

    /// Metadata of `path` itself: a symlink is reported as a symlink (except
    /// that `link/`, which names a directory, is followed, as `lstat` does).
    pub fn symlink_metadata(&self, path: &WorkspacePath) -> Result<Metadata> {
        let follow = if path.names_directory() {
            Follow::Final
        } else {
            Follow::NotFinal
        };
        self.lstat_resolved(path, follow)
    }

    fn lstat_resolved(&self, path: &WorkspacePath, follow: Follow) -> Result<Metadata> {
        let target = self.target(path, follow)?;
        let meta = self
            .dir
            .symlink_metadata(cap_rel(&target.rel))
            .map_err(|e| self.os_error(&target, "stat", e))?;
        Ok(Metadata::from_cap(&meta))
    }

    /// Opens a regular file for reading and returns a plain `std::fs::File`
    /// for streaming consumers (the search tool). FIFOs, sockets and devices
    /// are refused without blocking.
    pub fn open_file(&self, path: &WorkspacePath) -> Result<File> {
        let target = self.target(path, Follow::Final)?;
        self.open_regular(&target).map(|(file, _)| file)
    }

    /// Opens a regular file that a walk found, relative to the directory
    /// handle the walker listed it from: one `openat` instead of resolving
    /// the path from the root again, which is what makes searching a large
    /// tree fast.
    ///
    /// The guarantees are [`Self::open_file`]'s: the open uses `O_NOFOLLOW
    /// | O_NONBLOCK | O_NOCTTY` and the type is checked on the handle, so a
    /// FIFO or device swapped in is refused without blocking. An entry that
    /// is (or has since become) a symlink goes through [`Self::open_file`],
    /// which follows it only while it stays inside the root. Entries that
    /// carry no handle (the start of a walk that is a file, or entries
    /// collected by [`Self::walk`]) also use [`Self::open_file`].
    pub fn open_walked(&self, entry: &WalkEntry) -> Result<File> {
        self.open_walked_sized(entry).map(|(file, _)| file)
    }

    /// [`Self::open_walked`], and the size its `fstat` saw.
    fn open_walked_sized(&self, entry: &WalkEntry) -> Result<(File, u64)> {
        let shown = || entry.path.to_text();
        if entry.path.workspace != self.anchor.id {
            return Err(BoundaryError::ForeignPath { path: shown() });
        }
        let by_path = || {
            let target = self.target(&entry.path, Follow::Final)?;
            self.open_regular(&target)
        };
        let (Some(parent), Some(name)) = (entry.parent_dir(), entry.path.file_name()) else {
            return by_path();
        };
        match entry.kind {
            FileKind::File => {}
            FileKind::Symlink => return by_path(),
            kind => {
                return Err(BoundaryError::NotAFile {
                    path: shown(),
                    kind,
                });
            }
        }
        match open_entry(parent, name) {
            Ok(OpenedEntry::File(file, len)) => Ok((file, len)),
            // Replaced by a link since the walk: the full rules decide.
            Ok(OpenedEntry::Symlink) => by_path(),
            Ok(OpenedEntry::Other(kind)) => Err(BoundaryError::NotAFile {
                path: shown(),
                kind,
            }),
            Err(e) => Err(BoundaryError::from_io("open", &shown(), e)),
        }
    }

    /// Reads a whole regular file that a walk found, through the walker's
    /// directory handle as [`Self::open_walked`] opens it, refusing files
    /// larger than `max_bytes`. The size the open's `fstat` saw is read
    /// with as few `read` calls as it takes and no probe for more: a file
    /// that grows meanwhile is read as it was when opened (never past
    /// `max_bytes`).
    pub fn read_walked(&self, entry: &WalkEntry, max_bytes: u64) -> Result<Vec<u8>> {
        let shown = || entry.path.to_text();
        let (file, len) = self.open_walked_sized(entry)?;
        if len > max_bytes {
            return Err(BoundaryError::TooLarge {
                path: shown(),
                size: len,
                limit: max_bytes,
            });
        }
        read_known_size(&file, len).map_err(|e| BoundaryError::from_io("read", &shown(), e))
    }

    /// Reads a whole regular file, refusing files larger than `max_bytes`.
    pub fn read_bytes(&self, path: &WorkspacePath, max_bytes: u64) -> Result<Vec<u8>> {
        let target = self.target(path, Follow::Final)?;
        self.read_resolved(&target, max_bytes)
    }

    /// Whether the regular file at `path` holds exactly `expected` now.
    /// The file is opened as [`Self::read_bytes`] opens it, but read a
    /// block at a time into one small buffer and compared as it goes,
    /// stopping at the first difference (or at once when its size
    /// differs): a caller checking that many files did not change since
    /// it read them pays no copy of each file.
    pub fn file_equals(&self, path: &WorkspacePath, expected: &[u8]) -> Result<bool> {
        let target = self.target(path, Follow::Final)?;
        let (file, len) = self.open_regular(&target)?;
        if len != expected.len() as u64 {
            return Ok(false);
        }
        equal_contents(&file, expected)
            .map_err(|e| BoundaryError::from_io("read", &target.shown, e))
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

    pub(crate) fn read_resolved(&self, target: &Target<'_>, max_bytes: u64) -> Result<Vec<u8>> {
        let shown = &target.shown;
        let (file, len) = self.open_regular(target)?;
        read_capped(file, len, max_bytes).map_err(|e| match e {
            Capped::TooLarge(size) => BoundaryError::TooLarge {
                path: shown.clone(),
                size,
                limit: max_bytes,
            },
            Capped::Io(e) => BoundaryError::from_io("read", shown, e),
        })
    }

    /// Opens the resolved (so symlink-free) `target` as a regular file.
    ///
    /// The type is checked with `lstat` first, so a FIFO or device is never
    /// opened at all; the open itself uses `O_NOFOLLOW | O_NONBLOCK |
    /// O_NOCTTY` and the type is checked again on the handle, which closes
    /// the window where one could be swapped in between the two steps.
    pub(crate) fn open_regular(&self, target: &Target<'_>) -> Result<(File, u64)> {
        let (rel, shown) = (cap_rel(&target.rel), &target.shown);
        let before = self
            .dir
            .symlink_metadata(rel)
            .map_err(|e| self.os_error(target, "stat", e))?;
        let kind = FileKind::of(before.file_type());
        if kind != FileKind::File {
            return Err(BoundaryError::NotAFile {
                path: shown.clone(),
                kind,
            });
        }
        let mut options = OpenOptions::new();
        options
            .read(true)
            .follow(FollowSymlinks::No)
            .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32);
        let file = self
            .dir
            .open_with(rel, &options)
            .map_err(|e| self.os_error(target, "open", e))?;
        let after = file
            .metadata()
            .map_err(|e| BoundaryError::from_io("stat", shown, e))?;
        let kind = FileKind::of(after.file_type());
        if kind != FileKind::File {
            return Err(BoundaryError::NotAFile {
                path: shown.clone(),
                kind,
            });
        }
        Ok((file.into_std(), after.len()))
    }
}

/// What opening one entry of a directory handle found.
pub(crate) enum OpenedEntry {
    /// A regular file, and its size.
    File(File, u64),
    /// A symlink (not followed).
    Symlink,
    /// Anything else; its handle is already closed.
    Other(FileKind),
}

/// Opens `name`, one entry of a listing of `dir`, for reading: a single
/// `openat` with [`READ_FLAGS`], so a symlink is reported (`ELOOP`) rather
/// than followed and a FIFO never blocks; the type is checked on the handle.
/// A single component cannot leave `dir`, so no further resolution is needed.
pub(crate) fn open_entry(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<OpenedEntry> {
    if name.is_empty() || name == "." || name == ".." || name.as_bytes().contains(&b'/') {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    let flags = OFlags::RDONLY | OFlags::CLOEXEC | READ_FLAGS;
    let file = match rustix::fs::openat(dir, name, flags, Mode::empty()) {
        Ok(fd) => File::from(fd),
        Err(Errno::LOOP) => return Ok(OpenedEntry::Symlink),
        Err(e) => return Err(e.into()),
    };
    let meta = file.metadata()?;
    Ok(match FileKind::of_mode(meta.mode()) {
        FileKind::File => OpenedEntry::File(file, meta.len()),
        kind => OpenedEntry::Other(kind),
    })
}

/// Why [`read_capped`] failed.
pub(crate) enum Capped {
    /// More than the cap: at least this many bytes.
    TooLarge(u64),
    Io(io::Error),
}

/// Reads all of `file` (`len` bytes by `fstat`) unless it holds more than
/// `max_bytes`. The file may grow between the stat and the read, so never
/// more than the cap (plus one byte, to notice) is read.
pub(crate) fn read_capped(file: File, len: u64, max_bytes: u64) -> Result<Vec<u8>, Capped> {
    if len > max_bytes {
        return Err(Capped::TooLarge(len));
    }
    // The size `fstat` saw in one `read` (`read_to_end` alone starts at
    // 8 KiB and doubles), then one probe for what was added since.
    let mut bytes = read_known_size(&file, len).map_err(Capped::Io)?;
    let room = max_bytes
        .saturating_add(1)
        .saturating_sub(bytes.len() as u64);
    (&file)
        .take(room)
        .read_to_end(&mut bytes)
        .map_err(Capped::Io)?;
    let read = bytes.len() as u64;
    if read > max_bytes {
        return Err(Capped::TooLarge(read));
    }
    Ok(bytes)
}

/// Reads up to `len` bytes (a size `fstat` gave), stopping early at end of
/// file; one `read` for a file that did not change. The buffer is read
/// into as it was allocated, never zeroed first: a patch of 200 files
/// reads 14 MB, and writing zeros over it was 4% of the patch's time.
fn read_known_size(file: &File, len: u64) -> io::Result<Vec<u8>> {
    let capacity = usize::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
    let mut bytes = Vec::with_capacity(capacity);
    // `take` ends the read at `len` without another system call.
    file.take(len).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Bytes compared per `read` by [`equal_contents`]: small enough to stay
/// in the allocator's reused memory (no fresh pages to fault in).
const COMPARE_BLOCK: usize = 64 * 1024;

/// Whether `file`, read from where it stands to its end, is `expected`.
fn equal_contents(mut file: &File, expected: &[u8]) -> io::Result<bool> {
    let mut block = vec![0; COMPARE_BLOCK.min(expected.len() + 1)];
    let mut at = 0;
    loop {
        let read = match file.read(&mut block) {
            Ok(0) => return Ok(at == expected.len()),
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        match expected.get(at..at + read) {
            Some(want) if *want == block[..read] => at += read,
            _ => return Ok(false),
        }
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
