//! `WorkspacePath` and the lexical rules that turn a caller's string into one.
//!
//! Parsing is purely lexical: `.` is dropped, `..` pops a component, and an
//! absolute path is mapped to its root-relative form when it lies inside the
//! root. Symlinks are not looked at here; `resolve` does that against the
//! real tree before any operation touches it.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use crate::error::{BoundaryError, EscapeRoute, InvalidPathReason, Result};

/// Linux `PATH_MAX`: longer paths are refused before any system call.
const PATH_MAX: usize = 4096;
/// Linux `NAME_MAX`: the longest single component.
const NAME_MAX: usize = 255;

/// A path that has been checked lexically against one workspace.
///
/// It can only be made by [`crate::Workspace::path`] (or by the boundary
/// itself, for walk results), so holding one means: no NUL bytes, no `..`
/// left, and — unless the workspace is unrestricted — lexically inside the
/// root. Symlinks are checked again on every operation. It is only valid
/// with the workspace that made it: any other refuses it with
/// [`crate::BoundaryError::ForeignPath`], since its components were checked
/// against another root (or none, when that one was unrestricted).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkspacePath {
    /// Relative to the capability directory (the root, or `/` when unrestricted).
    pub(crate) base_rel: PathBuf,
    /// What people see: relative to the root, or absolute when outside it;
    /// ends in `/` when `names_directory` is set.
    shown: PathBuf,
    /// The caller wrote a trailing `/` (or `/.`, `/..`): like the kernel,
    /// the path then only ever means a directory.
    names_directory: bool,
    /// The [`crate::Workspace`] that made the path.
    pub(crate) workspace: u64,
}

impl WorkspacePath {
    /// The path as people see it: relative to the root (`.` for the root
    /// itself), or absolute in an unrestricted workspace when outside the
    /// root; with the caller's trailing `/` when [`Self::names_directory`].
    pub fn as_path(&self) -> &Path {
        if self.shown.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.shown
        }
    }

    /// A printable form; non-UTF-8 bytes are replaced.
    pub fn display(&self) -> std::path::Display<'_> {
        self.as_path().display()
    }

    /// Lossy UTF-8 text of [`Self::as_path`], for messages and tool output.
    pub fn to_text(&self) -> String {
        self.as_path().to_string_lossy().into_owned()
    }

    /// True for the workspace root itself.
    pub fn is_root(&self) -> bool {
        self.shown.as_os_str().is_empty()
    }

    /// True when the caller ended the path with `/` (or `/.`): it then names
    /// a directory only. Reading `file.txt/` is
    /// [`crate::BoundaryError::NotADirectory`], and writing a file at
    /// `newdir/` is refused, as the kernel would.
    pub fn names_directory(&self) -> bool {
        self.names_directory
    }

    /// The last component, if any.
    pub fn file_name(&self) -> Option<&OsStr> {
        self.shown.file_name()
    }

    /// The directory holding the path, and the path's last name: `None`
    /// for the root itself.
    pub(crate) fn split_parent(&self) -> Option<(WorkspacePath, &OsStr)> {
        let name = self.base_rel.file_name()?;
        let parent = WorkspacePath {
            base_rel: self.base_rel.parent()?.to_path_buf(),
            shown: self.shown.parent()?.to_path_buf(),
            names_directory: false,
            workspace: self.workspace,
        };
        Some((parent, name))
    }

    /// The path one level down, named `name` (a single component from a
    /// directory listing).
    pub(crate) fn child(&self, name: &OsStr) -> WorkspacePath {
        WorkspacePath {
            base_rel: self.base_rel.join(name),
            shown: self.shown.join(name),
            names_directory: false,
            workspace: self.workspace,
        }
    }

    /// Number of named components in [`Self::as_path`]: 0 for the root, 2
    /// for `src/main.rs`, and 2 for `/etc/hostname` in an unrestricted
    /// workspace (the leading `/` is not a component).
    pub fn depth(&self) -> usize {
        self.shown
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .count()
    }

    /// Marks the path as naming a directory (a trailing `/`); the root
    /// needs no mark.
    fn naming_directory(mut self, names_directory: bool) -> Self {
        if names_directory && !self.is_root() {
            self.names_directory = true;
            self.shown.as_mut_os_string().push("/");
        }
        self
    }
}

impl std::fmt::Display for WorkspacePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_path().display().fmt(f)
    }
}

/// Where the capability directory sits and how far paths may reach.
#[derive(Debug, Clone)]
pub(crate) struct Anchor {
    /// This workspace's id, stamped on every path it makes.
    pub(crate) id: u64,
    /// The canonical absolute root.
    pub(crate) canonical_root: PathBuf,
    /// The root as the caller named it (made absolute, lexically normal):
    /// absolute inputs echoing this spelling map inside too.
    pub(crate) given_root: PathBuf,
    /// `Some(root relative to /)` when the capability is `/` (unrestricted).
    pub(crate) host_root_rel: Option<PathBuf>,
}

impl Anchor {
    pub(crate) fn is_unrestricted(&self) -> bool {
        self.host_root_rel.is_some()
    }

    /// Parses a caller's path string.
    pub(crate) fn parse(&self, input: &Path) -> Result<WorkspacePath> {
        let text = || input.to_string_lossy().into_owned();
        let invalid = |reason| BoundaryError::InvalidPath {
            path: text(),
            reason,
        };
        let bytes = input.as_os_str().as_bytes();
        if bytes.is_empty() {
            return Err(invalid(InvalidPathReason::Empty));
        }
        if bytes.contains(&0) {
            return Err(invalid(InvalidPathReason::NulByte));
        }
        if bytes.len() > PATH_MAX {
            return Err(invalid(InvalidPathReason::TooLong));
        }
        let mut parts: Vec<&OsStr> = Vec::new();
        for component in input.components() {
            match component {
                Component::Prefix(_) => return Err(invalid(InvalidPathReason::UnsupportedPrefix)),
                Component::RootDir | Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() && !input.is_absolute() {
                        // An unrestricted workspace lets a relative path climb
                        // above the root, as a shell would.
                        if self.is_unrestricted() {
                            return self.parse(&self.canonical_root.join(input));
                        }
                        return Err(BoundaryError::Escape {
                            path: text(),
                            route: EscapeRoute::ParentTraversal,
                        });
                    }
                }
                Component::Normal(name) => {
                    if name.len() > NAME_MAX {
                        return Err(invalid(InvalidPathReason::ComponentTooLong));
                    }
                    parts.push(name);
                }
            }
        }
        let names_directory = !parts.is_empty() && names_directory(bytes);
        let normal: PathBuf = parts.iter().collect();
        let parsed = if input.is_absolute() {
            let absolute = Path::new("/").join(&normal);
            match self.root_relative(&absolute) {
                Some(inside) => self.at_root_rel(inside),
                None => match &self.host_root_rel {
                    Some(_) => self.at_base_rel(normal),
                    None => {
                        return Err(BoundaryError::Escape {
                            path: text(),
                            route: EscapeRoute::AbsolutePath,
                        });
                    }
                },
            }
        } else {
            self.at_root_rel(normal)
        };
        Ok(parsed.naming_directory(names_directory))
    }

    /// Maps an absolute, lexically normal path to root-relative components
    /// when it lies inside the root (under either spelling of the root).
    pub(crate) fn root_relative(&self, absolute: &Path) -> Option<PathBuf> {
        absolute
            .strip_prefix(&self.canonical_root)
            .or_else(|_| absolute.strip_prefix(&self.given_root))
            .ok()
            .map(Path::to_path_buf)
    }

    /// Builds a path from components relative to the root.
    pub(crate) fn at_root_rel(&self, root_rel: PathBuf) -> WorkspacePath {
        let base_rel = match &self.host_root_rel {
            Some(prefix) => prefix.join(&root_rel),
            None => root_rel.clone(),
        };
        self.made(base_rel, root_rel)
    }

    /// Builds a path from components relative to the capability directory.
    pub(crate) fn at_base_rel(&self, base_rel: PathBuf) -> WorkspacePath {
        let shown = match &self.host_root_rel {
            Some(prefix) => match base_rel.strip_prefix(prefix) {
                Ok(inside) => inside.to_path_buf(),
                Err(_) => Path::new("/").join(&base_rel),
            },
            None => base_rel.clone(),
        };
        self.made(base_rel, shown)
    }

    fn made(&self, base_rel: PathBuf, shown: PathBuf) -> WorkspacePath {
        WorkspacePath {
            base_rel,
            shown,
            names_directory: false,
            workspace: self.id,
        }
    }
}

/// True when the path text can only mean a directory: it ends in `/`, or its
/// last component is `.` or `..` (`a/.` needs `a` to be a directory).
fn names_directory(bytes: &[u8]) -> bool {
    let last = bytes.rsplit(|&b| b == b'/').next().unwrap_or_default();
    bytes.ends_with(b"/") || last == b"." || last == b".."
}

/// Lexically normalises an absolute path (`.` dropped, `..` popped, never above `/`).
pub(crate) fn normalize_absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// `name` C-quoted as git quotes a path (`"a\nb"`: quotes, backslashes and
/// control characters escaped), for showing a file name where a raw one
/// could forge lines or drive a terminal. Callers decide when to quote.
pub fn c_quoted(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut bytes = [0; 4];
                for byte in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("\\{byte:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
