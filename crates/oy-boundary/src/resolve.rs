//! Symlink-aware resolution: turns a `WorkspacePath` into a capability-relative
//! path with no symlinks in it, refusing any link that leaves the root.
//!
//! cap-std alone would refuse an escaping link too, but only as a generic
//! `PermissionDenied`, and it refuses absolute link targets even when they
//! point inside the root. Walking the components here gives a typed
//! [`BoundaryError::Escape`] naming the link, and lets inside-pointing absolute
//! links work. The operation that follows still goes through the capability,
//! so a link swapped in after this check is refused by the kernel.

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::error::{BoundaryError, EscapeRoute, Result};
use crate::path::WorkspacePath;
use crate::workspace::Workspace;

/// Linux's own limit on symlinks followed in one lookup.
const MAX_SYMLINK_HOPS: usize = 40;

/// Whether the last component is followed if it is a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Follow {
    /// Operate on what the link points to (read, write, metadata).
    Final,
    /// Operate on the link itself (remove, rename, lstat).
    NotFinal,
}

impl Workspace {
    /// Resolves `path` to a capability-relative path whose every existing
    /// ancestor (and, with [`Follow::Final`], the last component) is a real
    /// directory or file rather than a symlink.
    pub(crate) fn resolve(&self, path: &WorkspacePath, follow: Follow) -> Result<PathBuf> {
        let shown = path.to_text();
        // Components still to walk, last component at the bottom of the stack.
        let mut pending: Vec<OsString> = components_reversed(&path.base_rel);
        let mut done = PathBuf::new();
        let mut hops = 0;
        let mut missing = false;
        let mut last_link: Option<(PathBuf, PathBuf)> = None;
        while let Some(name) = pending.pop() {
            if name == ".." {
                if !done.pop() && !self.is_unrestricted() {
                    // Only a link target can bring `..` here: parsing removed the rest.
                    return Err(match last_link {
                        Some((link, target)) => self.symlink_escape(shown, &link, &target),
                        None => BoundaryError::Escape {
                            path: shown,
                            route: EscapeRoute::ParentTraversal,
                        },
                    });
                }
                continue;
            }
            let candidate = done.join(&name);
            let is_last = pending.is_empty();
            if missing || (is_last && follow == Follow::NotFinal) {
                done = candidate;
                continue;
            }
            let meta = match self.dir.symlink_metadata(&candidate) {
                Ok(meta) => meta,
                Err(e) if is_absent(&e) => {
                    missing = true;
                    done = candidate;
                    continue;
                }
                Err(e) => return Err(BoundaryError::from_io("resolve", &shown, e)),
            };
            if !meta.file_type().is_symlink() {
                done = candidate;
                continue;
            }
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Err(BoundaryError::SymlinkLoop { path: shown });
            }
            let target = self
                .dir
                .read_link_contents(&candidate)
                .map_err(|e| BoundaryError::from_io("read link", &shown, e))?;
            let rest = if target.is_absolute() {
                done = PathBuf::new();
                match &self.anchor.host_root_rel {
                    Some(_) => target.strip_prefix("/").unwrap_or(&target).to_path_buf(),
                    None => match self.anchor.root_relative(&target) {
                        Some(inside) => inside,
                        None => return Err(self.symlink_escape(shown, &candidate, &target)),
                    },
                }
            } else {
                target.clone()
            };
            last_link = Some((candidate, target));
            pending.extend(components_reversed(&rest));
        }
        Ok(done)
    }

    fn symlink_escape(&self, shown: String, link: &Path, target: &Path) -> BoundaryError {
        BoundaryError::Escape {
            path: shown,
            route: EscapeRoute::Symlink {
                link: self
                    .anchor
                    .at_base_rel(link.to_path_buf())
                    .as_path()
                    .to_path_buf(),
                target: target.to_path_buf(),
            },
        }
    }
}

/// The path's normal and `..` components, reversed so `pop` yields them in order.
fn components_reversed(path: &Path) -> Vec<OsString> {
    let mut parts: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect();
    parts.reverse();
    parts
}

/// Nothing exists here: either the entry is missing or an ancestor is not a directory.
pub(crate) fn is_absent(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.kind() == io::ErrorKind::NotADirectory
}
