//! `BoundaryError`: every way a workspace file operation can fail, as data.

use std::io;
use std::path::PathBuf;

use crate::metadata::FileKind;

/// Result alias for workspace operations.
pub type Result<T, E = BoundaryError> = std::result::Result<T, E>;

/// Why a path string could not be parsed into a [`crate::WorkspacePath`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidPathReason {
    /// The path was the empty string.
    Empty,
    /// The path contained a NUL byte, which no filesystem accepts.
    NulByte,
    /// The whole path is longer than the kernel's `PATH_MAX`.
    TooLong,
    /// One component is longer than the kernel's `NAME_MAX`.
    ComponentTooLong,
    /// A platform prefix (such as a Windows drive) that has no meaning here.
    UnsupportedPrefix,
    /// The path ends in `/` (or `/.`), which names a directory, but the
    /// operation would write a file there.
    TrailingSlashOnFile,
}

impl std::fmt::Display for InvalidPathReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Empty => "the path is empty",
            Self::NulByte => "the path contains a NUL byte",
            Self::TooLong => "the path is longer than 4096 bytes",
            Self::ComponentTooLong => "a path component is longer than 255 bytes",
            Self::UnsupportedPrefix => "the path has an unsupported platform prefix",
            Self::TrailingSlashOnFile => {
                "the path ends in `/`, which names a directory, but a file would be written"
            }
        })
    }
}

/// How a path tried to leave the workspace root.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EscapeRoute {
    /// `..` components climb above the root.
    ParentTraversal,
    /// An absolute path that does not lie inside the root.
    AbsolutePath,
    /// A symbolic link (at `link`, relative to the root) whose target leaves the root.
    Symlink {
        /// The link inside the workspace.
        link: PathBuf,
        /// The link's target as stored on disk.
        target: PathBuf,
    },
}

impl std::fmt::Display for EscapeRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ParentTraversal => f.write_str("`..` climbs above the workspace root"),
            Self::AbsolutePath => f.write_str("the absolute path is not inside the workspace root"),
            Self::Symlink { link, target } => write!(
                f,
                "symlink {} points to {}, outside the workspace root",
                link.display(),
                target.display()
            ),
        }
    }
}

/// A failed workspace operation. Every variant names the path it was about
/// (as the caller gave it, relative to the root where possible).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BoundaryError {
    /// The path string itself is malformed.
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: InvalidPathReason,
    },
    /// The path leads outside the workspace root.
    #[error("{path} is outside the workspace: {route}")]
    Escape {
        /// The path as given.
        path: String,
        /// How it tried to leave.
        route: EscapeRoute,
    },
    /// Nothing exists at the path.
    #[error("{path} does not exist")]
    NotFound {
        /// The missing path.
        path: String,
    },
    /// The operation needs a regular file and found something else.
    #[error("{path} is a {kind}, not a regular file")]
    NotAFile {
        /// The path.
        path: String,
        /// What is actually there.
        kind: FileKind,
    },
    /// The operation needs a directory and found something else.
    #[error("{path} is a {kind}, not a directory")]
    NotADirectory {
        /// The path.
        path: String,
        /// What is actually there.
        kind: FileKind,
    },
    /// The file is larger than the caller's cap.
    #[error("{path} is {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// The path.
        path: String,
        /// Its size in bytes (at least this large).
        size: u64,
        /// The cap that was exceeded.
        limit: u64,
    },
    /// The file holds bytes that are not valid UTF-8.
    #[error("{path} is not valid UTF-8 (first bad byte at offset {byte_offset})")]
    NotUtf8 {
        /// The path.
        path: String,
        /// Byte offset of the first invalid sequence.
        byte_offset: u64,
    },
    /// The file looks binary (it contains NUL bytes).
    #[error("{path} looks like a binary file")]
    Binary {
        /// The path.
        path: String,
    },
    /// The destination exists and the caller asked not to replace it.
    #[error("{path} already exists")]
    AlreadyExists {
        /// The path.
        path: String,
    },
    /// A directory that must be empty is not.
    #[error("{path} is a non-empty directory")]
    DirectoryNotEmpty {
        /// The path.
        path: String,
    },
    /// The workspace root itself cannot be removed, moved or replaced.
    #[error("refusing to {operation} the workspace root")]
    RootProtected {
        /// What was attempted.
        operation: &'static str,
    },
    /// The path is protected (see [`crate::Workspace::protect`]): no
    /// change may touch it.
    #[error("refusing to {operation} {path}: {why}")]
    Protected {
        /// The path as given.
        path: String,
        /// What was attempted.
        operation: &'static str,
        /// Why it is protected, for people.
        why: String,
    },
    /// The file's permissions do not let this user write it (a mode
    /// without write permission for them): refused as the shell's
    /// `echo > file` would be, although a replacing write could work.
    #[error("{path} is not writable (mode {mode:04o}): permission denied")]
    PermissionDenied {
        /// The path.
        path: String,
        /// Its permission bits.
        mode: u32,
    },
    /// Symlinks nest too deeply or form a loop.
    #[error("{path}: too many levels of symbolic links")]
    SymlinkLoop {
        /// The path.
        path: String,
    },
    /// A line offset beyond the end of the file.
    #[error("{path} has {total_lines} lines; offset {offset} is past the end")]
    OffsetPastEnd {
        /// The path.
        path: String,
        /// The 1-based line asked for.
        offset: usize,
        /// How many lines the file has.
        total_lines: usize,
    },
    /// The path was made by a different [`crate::Workspace`] than the one
    /// asked to use it (each workspace's paths are only valid with it).
    #[error("{path} belongs to another workspace")]
    ForeignPath {
        /// The path.
        path: String,
    },
    /// Any other operating-system error.
    #[error("{operation} {path}: {source}")]
    Io {
        /// What was attempted (`read`, `write`, `rename`...).
        operation: &'static str,
        /// The path.
        path: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl BoundaryError {
    /// True when the path (lexically or through a symlink) leaves the root.
    pub fn is_escape(&self) -> bool {
        matches!(self, Self::Escape { .. })
    }

    /// True when nothing exists at the path.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }

    /// True when the path is protected from every change.
    pub fn is_protected(&self) -> bool {
        matches!(self, Self::Protected { .. })
    }

    /// True when the destination already exists.
    pub fn is_already_exists(&self) -> bool {
        matches!(self, Self::AlreadyExists { .. })
    }

    /// The path the error is about, if it names one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::InvalidPath { path, .. }
            | Self::Escape { path, .. }
            | Self::NotFound { path }
            | Self::NotAFile { path, .. }
            | Self::NotADirectory { path, .. }
            | Self::TooLarge { path, .. }
            | Self::NotUtf8 { path, .. }
            | Self::Binary { path }
            | Self::AlreadyExists { path }
            | Self::DirectoryNotEmpty { path }
            | Self::SymlinkLoop { path }
            | Self::OffsetPastEnd { path, .. }
            | Self::ForeignPath { path }
            | Self::Protected { path, .. }
            | Self::PermissionDenied { path, .. }
            | Self::Io { path, .. } => Some(path),
            Self::RootProtected { .. } => None,
        }
    }

    /// Turns an OS error into the typed variant it stands for, keeping the
    /// rest as [`BoundaryError::Io`].
    pub(crate) fn from_io(operation: &'static str, path: &str, source: io::Error) -> Self {
        let path = path.to_owned();
        match source.kind() {
            // A file where a directory was expected: nothing exists at the path.
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Self::NotFound { path },
            io::ErrorKind::AlreadyExists => Self::AlreadyExists { path },
            io::ErrorKind::DirectoryNotEmpty => Self::DirectoryNotEmpty { path },
            _ if source.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
                Self::SymlinkLoop { path }
            }
            _ => Self::Io {
                operation,
                path,
                source,
            },
        }
    }
}
