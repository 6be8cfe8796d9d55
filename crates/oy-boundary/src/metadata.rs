//! `FileKind` and `Metadata`: what the boundary reports about a path without opening it.

use std::time::SystemTime;

/// The type of a filesystem object, as `lstat` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (only reported when links are not followed).
    Symlink,
    /// A named pipe. Opening one for reading can block forever.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device such as `/dev/zero`.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// Anything else the platform knows about.
    Other,
}

impl FileKind {
    pub(crate) fn of(file_type: cap_std::fs::FileType) -> Self {
        use cap_std::fs::FileTypeExt;
        if file_type.is_symlink() {
            Self::Symlink
        } else if file_type.is_dir() {
            Self::Directory
        } else if file_type.is_file() {
            Self::File
        } else if file_type.is_fifo() {
            Self::Fifo
        } else if file_type.is_socket() {
            Self::Socket
        } else if file_type.is_char_device() {
            Self::CharDevice
        } else if file_type.is_block_device() {
            Self::BlockDevice
        } else {
            Self::Other
        }
    }

    /// From the `st_mode` of a `std` metadata: the `S_IFMT` bits are what
    /// `std`'s `is_*` tests check, so the rustix table reads them alike.
    pub(crate) fn of_mode(mode: u32) -> Self {
        Self::of_rustix(rustix::fs::FileType::from_raw_mode(mode))
    }

    pub(crate) fn of_rustix(file_type: rustix::fs::FileType) -> Self {
        use rustix::fs::FileType;
        match file_type {
            FileType::Symlink => Self::Symlink,
            FileType::Directory => Self::Directory,
            FileType::RegularFile => Self::File,
            FileType::Fifo => Self::Fifo,
            FileType::Socket => Self::Socket,
            FileType::CharacterDevice => Self::CharDevice,
            FileType::BlockDevice => Self::BlockDevice,
            FileType::Unknown => Self::Other,
        }
    }

    /// A short human name (`file`, `directory`, `FIFO`...).
    pub fn name(self) -> &'static str {
        match self {
            Self::File => "file",
            Self::Directory => "directory",
            Self::Symlink => "symlink",
            Self::Fifo => "FIFO",
            Self::Socket => "socket",
            Self::CharDevice => "character device",
            Self::BlockDevice => "block device",
            Self::Other => "special file",
        }
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the boundary knows about one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// The object's type.
    pub kind: FileKind,
    /// Size in bytes (for a symlink, the length of its target string).
    pub len: u64,
    /// Unix permission bits (`0o755` style).
    pub mode: u32,
    /// Last modification time, when the platform reports it.
    pub modified_at: Option<SystemTime>,
    /// Hard-link count: above 1 means the same bytes are reachable by other names,
    /// possibly outside the workspace.
    pub hard_links: u64,
    /// Device and inode: equal for two names of one file (hard links).
    pub file_id: (u64, u64),
}

impl Metadata {
    pub(crate) fn from_cap(meta: &cap_std::fs::Metadata) -> Self {
        use cap_std::fs::{MetadataExt, PermissionsExt};
        Self {
            kind: FileKind::of(meta.file_type()),
            len: meta.len(),
            mode: meta.permissions().mode() & 0o7777,
            modified_at: meta
                .modified()
                .ok()
                .map(cap_std::time::SystemTime::into_std),
            hard_links: meta.nlink(),
            file_id: (meta.dev(), meta.ino()),
        }
    }

    /// True for a regular file with any execute bit set.
    pub fn is_executable(&self) -> bool {
        self.kind == FileKind::File && self.mode & 0o111 != 0
    }
}
