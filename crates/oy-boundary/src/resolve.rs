//! Symlink-aware resolution: turns a `WorkspacePath` into a capability-relative
//! path with no symlinks in it, refusing any link that leaves the root.
//!
//! cap-std alone would refuse an escaping link too, but only as a generic
//! `PermissionDenied`, and it refuses absolute link targets even when they
//! point inside the root. Walking the components here gives a typed
//! [`BoundaryError::Escape`] naming the link, and lets inside-pointing absolute
//! links work. The operation that follows still goes through the capability,
//! so a link swapped in after this check is refused by the kernel.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use crate::error::{BoundaryError, EscapeRoute, Result};
use crate::metadata::FileKind;
use crate::path::WorkspacePath;
use crate::read::cap_rel;
use crate::workspace::Workspace;

/// Linux's own limit on symlinks followed in one lookup.
const MAX_SYMLINK_HOPS: usize = 40;
/// Resolutions started over because the tree changed mid-way, at most.
const MAX_ATTEMPTS: usize = 4;

/// Why one resolution attempt stopped early.
enum Stop {
    /// A final answer.
    Failed(BoundaryError),
    /// The tree changed under the walk (a race): worth starting over.
    Raced(io::Error),
}

impl From<BoundaryError> for Stop {
    fn from(error: BoundaryError) -> Self {
        Self::Failed(error)
    }
}

/// Whether the last component is followed if it is a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Follow {
    /// Operate on what the link points to (read, write, metadata).
    Final,
    /// Operate on the link itself (remove, rename, lstat).
    NotFinal,
}

/// A path resolved for one operation, kept together with what it takes to
/// check it again when the kernel refuses the operation.
#[derive(Debug)]
pub(crate) struct Target<'p> {
    /// The caller's path.
    pub(crate) path: &'p WorkspacePath,
    /// How it was resolved.
    pub(crate) follow: Follow,
    /// Capability-relative and symlink-free.
    pub(crate) rel: PathBuf,
    /// Every name the resolution walked: the caller's components and the
    /// components of each link target followed (a link named `.git` that
    /// points elsewhere is still `.git` to git).
    pub(crate) walked: Vec<OsString>,
    /// The caller's path as text, for errors.
    pub(crate) shown: String,
}

impl Workspace {
    /// Resolves `path` for an operation; see [`Self::resolve`].
    pub(crate) fn target<'p>(&self, path: &'p WorkspacePath, follow: Follow) -> Result<Target<'p>> {
        let (rel, walked) = self.resolve_walked(path, follow)?;
        Ok(Target {
            path,
            follow,
            rel,
            walked,
            shown: path.to_text(),
        })
    }

    /// Turns an OS error from acting on `target` into a `BoundaryError`.
    ///
    /// cap-std reports a path that led outside as `PermissionDenied`, and a
    /// final component that became a link as `ELOOP` (`O_NOFOLLOW`). Since
    /// `target` was resolved without either, such a refusal means the tree
    /// changed in between (a race): the path is resolved again and, when it
    /// now leaves the root, the typed escape is returned, so policy sees
    /// `is_escape()` rather than a generic OS error. Anything else keeps
    /// the OS error.
    pub(crate) fn os_error(
        &self,
        target: &Target<'_>,
        operation: &'static str,
        source: io::Error,
    ) -> BoundaryError {
        let refused = is_refusal(&source);
        let error = BoundaryError::from_io(operation, &target.shown, source);
        if refused {
            self.recheck(target, error)
        } else {
            error
        }
    }

    /// `error`, unless the tree changed under `target` so that it now
    /// leaves the root: then that escape, which is what really happened.
    pub(crate) fn recheck(&self, target: &Target<'_>, error: BoundaryError) -> BoundaryError {
        match self.resolve(target.path, target.follow) {
            Err(escape) if escape.is_escape() => escape,
            _ => error,
        }
    }

    /// Resolves `path` to a capability-relative path whose every existing
    /// ancestor (and, with [`Follow::Final`], the last component) is a real
    /// directory or file rather than a symlink.
    ///
    /// Like the kernel, a `..` (which only a link target can bring here:
    /// parsing removed the caller's) is refused as not found when the
    /// component before it is missing or not a directory, instead of being
    /// applied lexically: `nope/../x` and `file.txt/../x` reach nothing.
    /// A path that [`WorkspacePath::names_directory`] must end at a
    /// directory (or at nothing yet).
    pub(crate) fn resolve(&self, path: &WorkspacePath, follow: Follow) -> Result<PathBuf> {
        self.resolve_walked(path, follow).map(|(rel, _)| rel)
    }

    /// [`Self::resolve`], and every name the walk went through (see
    /// [`Target::walked`]).
    pub(crate) fn resolve_walked(
        &self,
        path: &WorkspacePath,
        follow: Follow,
    ) -> Result<(PathBuf, Vec<OsString>)> {
        let shown = path.to_text();
        if path.workspace != self.anchor.id {
            return Err(BoundaryError::ForeignPath { path: shown });
        }
        if let Some(plain) = self.resolve_plain(path, follow) {
            return Ok(plain);
        }
        let mut attempt = 1;
        loop {
            match self.resolve_once(path, follow, &shown) {
                Ok(rel) => return Ok(rel),
                Err(Stop::Failed(error)) => return Err(error),
                // Something checked a moment ago changed: start over, from
                // the root, a bounded number of times.
                Err(Stop::Raced(_)) if attempt < MAX_ATTEMPTS => attempt += 1,
                Err(Stop::Raced(e)) => return Err(BoundaryError::from_io("resolve", &shown, e)),
            }
        }
    }

    /// The common case in one system call: when `path` holds no link at
    /// all, one `openat2` with `RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH` of
    /// what the walk would check (the path itself, or with
    /// [`Follow::NotFinal`] its parent) proves it at one instant, which is
    /// what the walk below proves one component at a time. `None` (a link,
    /// a missing or odd component, an old kernel, any error) leaves the
    /// answer, and every error, to that walk.
    ///
    /// The open is `O_PATH`, so nothing (a FIFO, a device) is really
    /// opened, and it follows the final component, so a final link is
    /// refused (`ELOOP`) rather than opened as a link.
    fn resolve_plain(
        &self,
        path: &WorkspacePath,
        follow: Follow,
    ) -> Option<(PathBuf, Vec<OsString>)> {
        let rel = &path.base_rel;
        let checked = match follow {
            Follow::Final => rel.as_path(),
            Follow::NotFinal if path.names_directory() => return None,
            Follow::NotFinal => rel.parent()?,
        };
        let plain = || {
            let walked = rel.iter().map(OsStr::to_os_string).collect();
            Some((rel.clone(), walked))
        };
        if checked.as_os_str().is_empty() {
            // The root, or a name in it that is not followed.
            return (!rel.as_os_str().is_empty()).then(plain).flatten();
        }
        let directory = follow == Follow::NotFinal || path.names_directory();
        match open_plain(&self.dir, checked, directory) {
            Ok(()) => plain(),
            // Not there: the same answer as the walk's (a missing last
            // component) when the parent is a plain directory.
            Err(rustix::io::Errno::NOENT) if follow == Follow::Final => {
                let parent = rel.parent().filter(|p| !p.as_os_str().is_empty());
                match parent {
                    None => plain(),
                    Some(parent) => open_plain(&self.dir, parent, true)
                        .ok()
                        .and_then(|()| plain()),
                }
            }
            Err(_) => None,
        }
    }

    fn resolve_once(
        &self,
        path: &WorkspacePath,
        follow: Follow,
        shown: &str,
    ) -> Result<(PathBuf, Vec<OsString>), Stop> {
        let shown = || shown.to_owned();
        // Components still to walk, last component at the bottom of the stack.
        let mut pending: Vec<OsString> = components_reversed(&path.base_rel);
        let mut done = PathBuf::new();
        let mut hops = 0;
        // Set once a component does not exist: nothing below it is checked.
        let mut missing = false;
        // Whether `done` is known to be a directory (the capability root is).
        let mut done_is_dir = true;
        let mut last_link: Option<(PathBuf, PathBuf)> = None;
        let mut walked: Vec<OsString> = Vec::new();
        while let Some(name) = pending.pop() {
            if name != "." && name != ".." {
                walked.push(name.clone());
            }
            if name == "." {
                // From a link target (`file.txt/.`, `file.txt/`): ENOTDIR
                // after anything but a directory.
                if !missing && !done_is_dir {
                    return Err(BoundaryError::NotFound { path: shown() }.into());
                }
                continue;
            }
            if name == ".." {
                if missing || !done_is_dir {
                    // ENOENT / ENOTDIR: the kernel never gets past here.
                    return Err(BoundaryError::NotFound { path: shown() }.into());
                }
                if !done.pop() && !self.is_unrestricted() {
                    return Err(match last_link {
                        Some((link, target)) => self.symlink_escape(shown(), &link, &target),
                        None => BoundaryError::Escape {
                            path: shown(),
                            route: EscapeRoute::ParentTraversal,
                        },
                    }
                    .into());
                }
                // The parent of a directory walked through is a directory.
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
                // cap-std refuses a link to outside in an ancestor that was
                // a directory when this walk passed it.
                Err(e) if is_refusal(&e) => return Err(Stop::Raced(e)),
                Err(e) => return Err(BoundaryError::from_io("resolve", &shown(), e).into()),
            };
            if !meta.file_type().is_symlink() {
                done_is_dir = meta.is_dir();
                done = candidate;
                continue;
            }
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Err(BoundaryError::SymlinkLoop { path: shown() }.into());
            }
            let target = match self.dir.read_link_contents(&candidate) {
                Ok(target) => target,
                // No longer a link since the `lstat` (EINVAL), or refused.
                Err(e) if e.kind() == io::ErrorKind::InvalidInput || is_refusal(&e) => {
                    return Err(Stop::Raced(e));
                }
                Err(e) => return Err(BoundaryError::from_io("read link", &shown(), e).into()),
            };
            // The target is read relative to `done`, the link's directory.
            let rest = if target.is_absolute() {
                done = PathBuf::new();
                match &self.anchor.host_root_rel {
                    Some(_) => target.strip_prefix("/").unwrap_or(&target).to_path_buf(),
                    None => match self.anchor.root_relative(&target) {
                        Some(inside) => inside,
                        None => {
                            return Err(self.symlink_escape(shown(), &candidate, &target).into());
                        }
                    },
                }
            } else {
                target.clone()
            };
            done_is_dir = true;
            pending.extend(target_components_reversed(&rest, &target));
            last_link = Some((candidate, target));
        }
        if path.names_directory() && !missing {
            self.require_directory(&done, shown())?;
        }
        Ok((done, walked))
    }

    /// A trailing `/` means a directory: anything else there (a file, or a
    /// link when links are not followed) is `NotADirectory`, as `ENOTDIR`.
    fn require_directory(&self, rel: &Path, shown: String) -> Result<(), Stop> {
        match self.dir.symlink_metadata(cap_rel(rel)) {
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(meta) => Err(BoundaryError::NotADirectory {
                path: shown,
                kind: FileKind::of(meta.file_type()),
            }
            .into()),
            Err(e) if is_absent(&e) => Ok(()),
            Err(e) if is_refusal(&e) => Err(Stop::Raced(e)),
            Err(e) => Err(BoundaryError::from_io("resolve", &shown, e).into()),
        }
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

/// Whether `rel` (no `..`, no leading `/`) reaches something beneath
/// `dir` through no link at all, a directory when `directory`: an `O_PATH`
/// open that may follow no link and never leave `dir`, closed at once.
/// Kernels without `openat2` always say no (`ENOSYS`), and are not asked
/// again.
fn open_plain(dir: &cap_std::fs::Dir, rel: &Path, directory: bool) -> rustix::io::Result<()> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use std::sync::atomic::{AtomicBool, Ordering};
    static UNSUPPORTED: AtomicBool = AtomicBool::new(false);
    if UNSUPPORTED.load(Ordering::Relaxed) {
        return Err(rustix::io::Errno::NOSYS);
    }
    let mut flags = OFlags::PATH | OFlags::CLOEXEC;
    if directory {
        flags |= OFlags::DIRECTORY;
    }
    let opened = rustix::fs::openat2(
        dir,
        rel,
        flags,
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
    );
    if matches!(opened, Err(rustix::io::Errno::NOSYS)) {
        UNSUPPORTED.store(true, Ordering::Relaxed);
    }
    opened.map(drop)
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

/// The components of a link target's `rest` (the target itself, or its
/// root-relative part), reversed like [`components_reversed`]. Unlike
/// `Path::components`, `.` is kept, and a trailing `/` of `target` becomes
/// a final `.`: both require a directory before them, as for the kernel.
fn target_components_reversed(rest: &Path, target: &Path) -> Vec<OsString> {
    let mut parts: Vec<OsString> = rest
        .as_os_str()
        .as_bytes()
        .split(|&b| b == b'/')
        .filter(|part| !part.is_empty())
        .map(|part| OsStr::from_bytes(part).to_os_string())
        .collect();
    if target.as_os_str().as_bytes().ends_with(b"/") {
        parts.push(OsString::from("."));
    }
    parts.reverse();
    parts
}

/// How cap-std and the kernel refuse a path that turned into a link:
/// `PermissionDenied` (cap-std's "a path led outside of the filesystem",
/// which also covers a genuine `EACCES`) or `ELOOP` (`O_NOFOLLOW`).
fn is_refusal(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied
        || e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

/// Nothing exists here: either the entry is missing or an ancestor is not a directory.
pub(crate) fn is_absent(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.kind() == io::ErrorKind::NotADirectory
}
