//! The parts of a workspace's git directories that can make git run code
//! or read from elsewhere — `config`, `config.worktree`, `hooks/`,
//! `info/`, `commondir`, the `.git` file's `gitdir:` pointer — which
//! commands may not change, and the git directories outside the root
//! (a worktree's) that `git add`/`git commit` must still write.

use std::path::{Path, PathBuf};

/// What [`find`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct GitDirs {
    /// Existing paths to make read-only.
    pub(crate) protected: Vec<PathBuf>,
    /// Git directories inside the root, bound onto themselves so that a
    /// command cannot rename them away and put a forged one in their place.
    pub(crate) pinned: Vec<PathBuf>,
    /// Git directories outside the root (a worktree's own and the common
    /// one) whose objects, refs, index and logs stay writable.
    pub(crate) outside_root: Vec<PathBuf>,
    /// Protected names that do not exist: a bind mount cannot cover them,
    /// so one a command creates is removed when the call ends.
    pub(crate) absent: Vec<PathBuf>,
}

/// Names inside a git directory that must not change.
const PROTECTED_NAMES: &[&str] = &[
    "config",
    "config.worktree",
    "hooks",
    "info",
    "commondir",
    "gitdir",
];

/// Looks at `root/.git` (a directory, or a file pointing elsewhere).
pub(crate) fn find(root: &Path) -> GitDirs {
    let mut found = GitDirs::default();
    let dot_git = root.join(".git");
    let Some(kind) = kind(&dot_git) else {
        return found;
    };
    let git_dir = if kind.is_dir() {
        found.pinned.push(dot_git.clone());
        dot_git
    } else if kind.is_file() {
        found.protected.push(dot_git.clone());
        match pointer(&dot_git, root) {
            Some(dir) => dir,
            None => return found,
        }
    } else {
        return found;
    };
    let common_dir = pointer(&git_dir.join("commondir"), &git_dir);
    for dir in std::iter::once(&git_dir).chain(common_dir.as_ref()) {
        if !dir.starts_with(root) {
            if !found.outside_root.contains(dir) {
                found.outside_root.push(dir.clone());
            }
        } else if !found.pinned.contains(dir) {
            found.pinned.push(dir.clone());
        }
        protect_in(dir, &mut found.protected, &mut found.absent);
        // Submodules' and linked worktrees' own git directories.
        for nested in ["modules", "worktrees"] {
            for child in children(&dir.join(nested)) {
                protect_in(&child, &mut found.protected, &mut found.absent);
            }
        }
    }
    found.protected.sort();
    found.protected.dedup();
    found.absent.sort();
    found.absent.dedup();
    found
}

fn protect_in(dir: &Path, protected: &mut Vec<PathBuf>, absent: &mut Vec<PathBuf>) {
    ensure_hooks_dir(dir);
    for path in PROTECTED_NAMES.iter().map(|name| dir.join(name)) {
        if kind(&path).is_some() {
            protected.push(path);
        } else {
            absent.push(path);
        }
    }
}

/// Removes each of `paths` that exists now (a command made it), without
/// following links; returns what was removed. Called once every process
/// of the call is gone.
pub(crate) fn remove_created(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .filter(|path| match kind(path) {
            Some(kind) if kind.is_dir() => remove_tree(path),
            Some(_) => remove_file(path),
            None => false,
        })
        .cloned()
        .collect()
}

#[expect(
    clippy::disallowed_methods,
    reason = "a protected git or oy path a sandboxed command created; no link is followed"
)]
fn remove_tree(path: &Path) -> bool {
    std::fs::remove_dir_all(path).is_ok()
}

#[expect(
    clippy::disallowed_methods,
    reason = "a protected git or oy path a sandboxed command created; no link is followed"
)]
fn remove_file(path: &Path) -> bool {
    std::fs::remove_file(path).is_ok()
}

/// A missing `hooks/` could be made by a command and filled; git's own
/// layout always has it, so it is made (empty) to be mounted read-only.
fn ensure_hooks_dir(git_dir: &Path) {
    let hooks = git_dir.join("hooks");
    if kind(&hooks).is_none() && kind(&git_dir.join("HEAD")).is_some() {
        let _ = std::fs::DirBuilder::new().create(&hooks);
    }
}

/// `gitdir: PATH` (or a bare path, as in `commondir`), resolved against
/// `base`.
fn pointer(file: &Path, base: &Path) -> Option<PathBuf> {
    let text = read_small(file)?;
    let line = text.lines().next()?.trim();
    let target = line.strip_prefix("gitdir:").map_or(line, str::trim);
    if target.is_empty() {
        return None;
    }
    let path = base.join(target);
    Some(normalize(&path))
}

/// Lexical `.`/`..` removal (the target may be a path git wrote with `..`).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[expect(
    clippy::disallowed_methods,
    reason = "git's own metadata, read to build the sandbox before any command runs"
)]
fn kind(path: &Path) -> Option<std::fs::FileType> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|meta| meta.file_type())
}

#[expect(
    clippy::disallowed_methods,
    reason = "git's own metadata, read to build the sandbox before any command runs"
)]
fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    // Never open a FIFO or a device planted in place of a pointer file.
    if !kind(path)?.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(4096).read_to_string(&mut text).ok()?;
    Some(text)
}

#[expect(
    clippy::disallowed_methods,
    reason = "git's own metadata, read to build the sandbox before any command runs"
)]
fn children(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
                .map(|entry| entry.path())
                .take(256)
                .collect()
        })
        .unwrap_or_default()
}
