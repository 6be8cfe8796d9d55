//! The parts of a workspace's git directories that can make git run code
//! or read from elsewhere — `config`, `config.worktree`, `hooks/`,
//! `info/`, `commondir`, the `.git` file's `gitdir:` pointer, the same in
//! submodules' and linked worktrees' git directories, submodules' own
//! `.git` pointer files, and what the config names inside the workspace
//! (`core.hooksPath`, `include.path`) — which commands may not change;
//! every git directory of the chain, pinned so that it cannot be renamed
//! and replaced; and those outside the root (a worktree's) that `git
//! add`/`git commit` must still write.

use std::path::{Path, PathBuf};

/// What [`find`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct GitDirs {
    /// Existing paths to make read-only.
    pub(crate) protected: Vec<PathBuf>,
    /// Git directories (and their `modules/`, `worktrees/`), bound onto
    /// themselves so a command cannot rename them away and put a forged
    /// one in their place. Parents come before children.
    pub(crate) pinned: Vec<PathBuf>,
    /// Outside the root, for a genuine linked worktree or submodule
    /// checkout only: what `git add`/`git commit` must write (the
    /// worktree's own git directory, and the common one's `objects/`,
    /// `refs/`, `logs/`).
    pub(crate) writable_outside: Vec<PathBuf>,
    /// Outside the root: the git directories git must read.
    pub(crate) readable_outside: Vec<PathBuf>,
    /// Protected names that do not exist: a bind mount cannot cover them,
    /// so one a command creates is removed when the call ends.
    pub(crate) absent: Vec<PathBuf>,
    /// Protected names that are symbolic links, with their targets: the
    /// mount covers the target, so the link itself is checked (and put
    /// back) when the call ends.
    pub(crate) links: Vec<(PathBuf, PathBuf)>,
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

/// How deep submodules of submodules are followed.
const MAX_NESTING: usize = 4;

/// Looks at `root/.git` (a directory, or a file pointing elsewhere).
pub(crate) fn find(root: &Path) -> GitDirs {
    let mut found = GitDirs::default();
    let dot_git = root.join(".git");
    let Some(dot_git_kind) = kind(&dot_git) else {
        return found;
    };
    // Never grant anything from what a command could have written: a
    // `.git` directory's `commondir` is not followed at all (a main
    // repository has none), and a `.git` file is trusted outside the root
    // only when the directory it names points back at it.
    let (git_dir, common_dir) = if dot_git_kind.is_dir() {
        (dot_git, None)
    } else if dot_git_kind.is_file() {
        found.protected.push(dot_git.clone());
        let Some(dir) = pointer(&dot_git, root) else {
            return found;
        };
        if dir.starts_with(root) {
            (dir, None)
        } else {
            match genuine_outside(&dir, root) {
                Some(common) => {
                    found.readable_outside.push(dir.clone());
                    found.writable_outside.push(dir.clone());
                    if common != dir {
                        found.readable_outside.push(common.clone());
                        found.writable_outside.extend(
                            ["objects", "refs", "logs"]
                                .iter()
                                .map(|part| common.join(part))
                                .filter(|path| kind(path).is_some_and(|kind| kind.is_dir())),
                        );
                    }
                    let common = (common != dir).then_some(common);
                    (dir, common)
                }
                // Not a worktree or submodule of a real repository: git
                // will fail there, and nothing outside is granted.
                None => return found,
            }
        }
    } else {
        return found;
    };
    for dir in std::iter::once(&git_dir).chain(common_dir.as_ref()) {
        add_git_dir(dir, 0, &mut found);
    }
    // A bare repository made at the root (`git init --bare .`) would be
    // git's repository for the workspace; its `HEAD` is never the user's.
    found.absent.push(root.join("HEAD"));
    submodule_pointers(root, &mut found.protected);
    if let Some(dir) = common_dir.as_ref().or(Some(&git_dir)) {
        config_named_paths(root, dir, &mut found.protected, &mut found.absent);
    }
    found.pinned.sort_by_key(|dir| dir.as_os_str().len());
    found.pinned.dedup();
    for list in [&mut found.protected, &mut found.absent] {
        list.sort();
        list.dedup();
    }
    // A protected path that is a link: the bind covers its target; the
    // link itself is watched.
    found.links = found
        .protected
        .iter()
        .filter(|path| kind(path).is_some_and(|kind| kind.is_symlink()))
        .filter_map(|path| Some((path.clone(), read_link(path)?)))
        .collect();
    found
}

/// The common git directory when `dir` (outside `root`) is a genuine
/// linked worktree's (`COMMON/worktrees/NAME`, whose `gitdir` names
/// `root/.git` and whose `commondir` names COMMON) or a submodule's
/// (its config's `core.worktree` names `root`; it is its own common
/// directory). Neither may be `/` or hold the root.
fn genuine_outside(dir: &Path, root: &Path) -> Option<PathBuf> {
    let usable = |path: &Path| {
        path.components().count() > 2
            && !root.starts_with(path)
            && kind(&path.join("HEAD")).is_some()
            && kind(&path.join("objects")).is_some_and(|kind| kind.is_dir())
    };
    if let Some(back) = pointer(&dir.join("gitdir"), dir) {
        let common = pointer(&dir.join("commondir"), dir)?;
        let named = dir.parent()?;
        let genuine = back == root.join(".git")
            && named.file_name()? == "worktrees"
            && named.parent()? == common
            && usable(&common);
        return genuine.then_some(common);
    }
    let text = read_small(&dir.join("config"))?;
    let worktree = text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("worktree")
            .then(|| normalize(&dir.join(value.trim().trim_matches('"'))))
    })?;
    (worktree == root && usable(dir)).then(|| dir.to_path_buf())
}

/// Pins `dir` and its `modules/` and `worktrees/`, protects its names, and
/// goes on into each submodule's and linked worktree's git directory.
fn add_git_dir(dir: &Path, depth: usize, found: &mut GitDirs) {
    if !kind(dir).is_some_and(|kind| kind.is_dir()) || found.pinned.iter().any(|pin| pin == dir) {
        return;
    }
    found.pinned.push(dir.to_path_buf());
    ensure_hooks_dir(dir);
    for path in PROTECTED_NAMES.iter().map(|name| dir.join(name)) {
        if kind(&path).is_some() {
            found.protected.push(path);
        } else {
            found.absent.push(path);
        }
    }
    if depth >= MAX_NESTING {
        return;
    }
    for nested in ["modules", "worktrees"] {
        let holder = dir.join(nested);
        if !kind(&holder).is_some_and(|kind| kind.is_dir()) {
            continue;
        }
        found.pinned.push(holder.clone());
        for child in children(&holder) {
            add_git_dir(&child, depth + 1, found);
        }
    }
}

/// Submodules' `.git` files (`gitdir: ../.git/modules/NAME`), from the
/// `path = …` lines of the root's `.gitmodules`: rewritten, one would send
/// a `git status` at the root into a forged git directory.
fn submodule_pointers(root: &Path, protected: &mut Vec<PathBuf>) {
    let Some(text) = read_small(&root.join(".gitmodules")) else {
        return;
    };
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("path") {
            let pointer = normalize(&root.join(value.trim()).join(".git"));
            if pointer.starts_with(root) && kind(&pointer).is_some_and(|kind| kind.is_file()) {
                protected.push(pointer);
            }
        }
    }
}

/// What the git config at `git_dir/config` names inside the workspace
/// that git reads or runs: `core.hooksPath` (husky's `.husky/`),
/// `include.path` and `includeIf.*.path` (one level of includes).
fn config_named_paths(
    root: &Path,
    git_dir: &Path,
    protected: &mut Vec<PathBuf>,
    absent: &mut Vec<PathBuf>,
) {
    let mut files = vec![git_dir.join("config")];
    let mut depth = 0;
    while let Some(file) = files.pop() {
        let Some(text) = read_small(&file) else {
            continue;
        };
        let base = file.parent().unwrap_or(git_dir).to_path_buf();
        let mut section = String::new();
        for line in text.lines() {
            let line = line.trim();
            if let Some(header) = line.strip_prefix('[') {
                section = header
                    .split([']', ' ', '"'])
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim().trim_matches('"');
            let path = match (section.as_str(), key.as_str()) {
                // Relative to where git runs the hook: the worktree's top.
                ("core", "hookspath") => normalize(&root.join(value)),
                ("include" | "includeif", "path") => normalize(&base.join(value)),
                _ => continue,
            };
            if !path.starts_with(root) {
                continue;
            }
            if kind(&path).is_none() {
                // Named but missing: one a command makes is removed.
                absent.push(path);
                continue;
            }
            if key == "path" && depth < 1 {
                files.push(path.clone());
            }
            protected.push(path);
        }
        depth += 1;
    }
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
pub(crate) fn pointer(file: &Path, base: &Path) -> Option<PathBuf> {
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
pub(crate) fn normalize(path: &Path) -> PathBuf {
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

pub(crate) fn read_link(path: &Path) -> Option<PathBuf> {
    rustix::fs::readlink(path, Vec::new()).ok().map(|target| {
        PathBuf::from(
            <std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(target.into_bytes()),
        )
    })
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
    let mut text = String::new();
    file.take(64 * 1024).read_to_string(&mut text).ok()?;
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

/// What is checked when a call (or a PTY session) ends: protected names
/// that did not exist, and protected names that are links.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Watched {
    pub(crate) absent: Vec<PathBuf>,
    pub(crate) links: Vec<(PathBuf, PathBuf)>,
}

impl Watched {
    /// Once every process of the call is gone: undoes what a command did to
    /// the watched names, and returns a line for the model, or `None`.
    pub(crate) fn undo(&self) -> Option<String> {
        let changed = undo(&self.absent, &self.links);
        if changed.is_empty() {
            return None;
        }
        let names: Vec<String> = changed
            .iter()
            .map(|path| format!("`{}`", path.display()))
            .collect();
        Some(format!(
            "oy sandbox: put back {} after the command: git and oy read these to decide what to run, so commands may not make or replace them.",
            names.join(", ")
        ))
    }
}

/// Removes each of `absent` that exists now (a command made it), without
/// following links, and puts each watched link back where a command
/// replaced it. Returns what changed.
fn undo(absent: &[PathBuf], links: &[(PathBuf, PathBuf)]) -> Vec<PathBuf> {
    let mut changed: Vec<PathBuf> = absent
        .iter()
        .filter(|path| kind(path).is_some() && remove(path))
        .cloned()
        .collect();
    for (link, target) in links {
        if read_link(link).as_ref() == Some(target) {
            continue;
        }
        if kind(link).is_some() {
            remove(link);
        }
        if rustix::fs::symlink(target, link).is_ok() {
            changed.push(link.clone());
        }
    }
    changed
}

/// Removes `path` (a tree if a directory). When that fails, the parent
/// may have been made read-only by the command (`chmod 555 .git`): its
/// owner's write bit is put back and the removal tried once more.
fn remove(path: &Path) -> bool {
    if remove_once(path) {
        return true;
    }
    let Some(parent) = path.parent() else {
        return false;
    };
    let Ok(stat) = rustix::fs::stat(parent) else {
        return false;
    };
    let mode = rustix::fs::Mode::from_raw_mode(stat.st_mode) | rustix::fs::Mode::RWXU;
    rustix::fs::chmod(parent, mode).is_ok() && remove_once(path)
}

#[expect(
    clippy::disallowed_methods,
    reason = "a protected git or oy path a sandboxed command created; no link is followed"
)]
fn remove_once(path: &Path) -> bool {
    match kind(path) {
        Some(kind) if kind.is_dir() => std::fs::remove_dir_all(path).is_ok(),
        Some(_) => std::fs::remove_file(path).is_ok(),
        None => true,
    }
}
