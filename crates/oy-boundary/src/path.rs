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
/// root. Symlinks are checked again on every operation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkspacePath {
    /// Relative to the capability directory (the root, or `/` when unrestricted).
    pub(crate) base_rel: PathBuf,
    /// What people see: relative to the root, or absolute when outside it.
    shown: PathBuf,
}

impl WorkspacePath {
    /// The path as people see it: relative to the root (`.` for the root
    /// itself), or absolute in an unrestricted workspace when outside the root.
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

    /// The last component, if any.
    pub fn file_name(&self) -> Option<&OsStr> {
        self.shown.file_name()
    }

    /// The path one level down, named `name` (a single component from a
    /// directory listing).
    pub(crate) fn child(&self, name: &OsStr) -> WorkspacePath {
        WorkspacePath {
            base_rel: self.base_rel.join(name),
            shown: self.shown.join(name),
        }
    }

    /// Number of components below the root (0 for the root).
    pub fn depth(&self) -> usize {
        self.shown.components().count()
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
        let normal: PathBuf = parts.iter().collect();
        if input.is_absolute() {
            let absolute = Path::new("/").join(&normal);
            match self.root_relative(&absolute) {
                Some(inside) => Ok(self.at_root_rel(inside)),
                None => match &self.host_root_rel {
                    Some(_) => Ok(self.at_base_rel(normal)),
                    None => Err(BoundaryError::Escape {
                        path: text(),
                        route: EscapeRoute::AbsolutePath,
                    }),
                },
            }
        } else {
            Ok(self.at_root_rel(normal))
        }
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
        match &self.host_root_rel {
            Some(prefix) => WorkspacePath {
                base_rel: prefix.join(&root_rel),
                shown: root_rel,
            },
            None => WorkspacePath {
                base_rel: root_rel.clone(),
                shown: root_rel,
            },
        }
    }

    /// Builds a path from components relative to the capability directory.
    pub(crate) fn at_base_rel(&self, base_rel: PathBuf) -> WorkspacePath {
        match &self.host_root_rel {
            Some(prefix) => {
                let shown = match base_rel.strip_prefix(prefix) {
                    Ok(inside) => inside.to_path_buf(),
                    Err(_) => Path::new("/").join(&base_rel),
                };
                WorkspacePath { base_rel, shown }
            }
            None => WorkspacePath {
                base_rel: base_rel.clone(),
                shown: base_rel,
            },
        }
    }
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
