//! The one table of paths file tools treat specially (`docs/protected-paths.md`):
//!
//! - **protected** — refused in every mode: `.git` and `.oy` anywhere, the
//!   repository's git directories when they lie inside the root (a `.git`
//!   file's `gitdir:` target), and oy's own config and data directories
//!   when the workspace holds them. The boundary enforces these where the
//!   change happens ([`oy_boundary::Workspace::protect`]).
//! - **command-like** — a change that decides what a later command runs
//!   needs the command approval ([`Effect::Process`]): anything put into a
//!   directory on the child's `PATH` inside the workspace, moving an
//!   executable file (or a directory holding one), files git runs or reads
//!   config from because the config names them (`core.hooksPath`,
//!   `include.path`), and the shell and tool start-up files of a home
//!   directory the workspace holds.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use oy_boundary::{Protection, Workspace, WorkspacePath};

use crate::context::Invocation;
use crate::error::ToolError;
use crate::sandbox::git_dirs;
use crate::spec::Effect;

/// Entry names protected wherever they appear, and why.
const PROTECTED_NAMES: &[(&str, &str)] = &[
    (
        ".git",
        "it is git's own directory (or pointer): its config and hooks decide what git runs",
    ),
    (
        ".oy",
        "it holds oy's workspace settings, which only the person may change",
    ),
];

/// Files and directories below a home directory that programs run or
/// take commands from: a change there needs the command approval when the
/// workspace holds the home directory (`--root ~`, a dotfiles checkout).
const HOME_COMMAND_FILES: &[&str] = &[
    ".gitconfig",
    ".config/git",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".config/fish",
    ".ssh",
    ".cargo/config.toml",
    ".cargo/config",
    ".npmrc",
    ".config/systemd",
    ".config/autostart",
    ".config/environment.d",
    ".pam_environment",
    ".local/bin",
    ".cargo/env",
    ".bash_aliases",
    ".bashrc.d",
    ".profile.d",
    ".xprofile",
    ".xsession",
    ".xinitrc",
    ".local/share/systemd",
    ".aws",
    ".kube",
    ".docker/config.json",
    ".config/nvim",
    ".vimrc",
    ".vim",
    ".emacs",
    ".emacs.d",
    ".config/emacs",
    ".tmux.conf",
    ".config/tmux",
    ".hgrc",
    ".gradle/init.d",
    ".gradle/gradle.properties",
    ".m2/settings.xml",
    ".pypirc",
    ".pip",
    ".config/pip",
    ".local/lib",
    ".config/direnv",
    ".direnvrc",
    ".gitconfig.local",
    ".inputrc",
    ".wgetrc",
    ".curlrc",
    ".netrc",
];

/// Entries a directory move checks for executables, at most; a larger tree
/// is treated as holding one.
const MAX_CHECKED_ENTRIES: usize = 100_000;

/// What the boundary refuses for the workspace at `root`: the protected
/// names, the git directories of the repository inside it (`found` is
/// what [`git_dirs::find`] found at the root), and `oy_dirs` where they
/// lie inside.
fn protection(root: &Path, found: &git_dirs::GitDirs, oy_dirs: &[PathBuf]) -> Protection {
    let mut protection = Protection::new();
    for (name, why) in PROTECTED_NAMES {
        protection = protection.name(name, *why);
    }
    for dir in git_dirs_inside(root, found) {
        protection = protection.dir(
            dir,
            "it is the repository's git directory: its config and hooks decide what git runs",
        );
    }
    for dir in oy_dirs {
        let dir = canonical(dir);
        if dir.starts_with(root) {
            protection = protection.dir(
                dir,
                "it holds oy's own configuration and data, which only the person may change",
            );
        }
    }
    protection
}

/// The repository's git directories inside `root`, canonical: those the
/// sandbox pins, what a `.git` link resolves to, a `.git` file's `gitdir:`
/// target even before it exists (so it cannot be made), and the common
/// directory a `commondir` names.
fn git_dirs_inside(root: &Path, found: &git_dirs::GitDirs) -> Vec<PathBuf> {
    let dot_git = root.join(".git");
    let mut dirs: Vec<PathBuf> = found.pinned.clone();
    let named = match rustix::fs::lstat(&dot_git) {
        Ok(stat)
            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                == rustix::fs::FileType::RegularFile =>
        {
            git_dirs::pointer(&dot_git, root)
        }
        Ok(_) => Some(dot_git),
        Err(_) => None,
    };
    if let Some(dir) = named.map(canonical) {
        if let Some(common) = git_dirs::pointer(&dir.join("commondir"), &dir) {
            dirs.push(common);
        }
        dirs.push(dir);
    }
    let mut dirs: Vec<PathBuf> = dirs
        .into_iter()
        .map(canonical)
        .filter(|dir| dir.starts_with(root) && dir.as_path() != root)
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

/// The top of the repository the workspace is in, as git finds it: the
/// root or its nearest ancestor holding a `.git` (oy's root is the current
/// directory, often below the top).
fn repository_top(root: &Path) -> Option<&Path> {
    root.ancestors()
        .find(|dir| rustix::fs::lstat(dir.join(".git")).is_ok())
}

/// What git would obey in a directory that holds a `HEAD`, `objects/` and
/// `refs/`: such a directory is a repository (its `config` runs code).
fn is_git_directory(dir: &Path) -> bool {
    let is = |name: &str, wanted: rustix::fs::FileType| {
        rustix::fs::stat(dir.join(name))
            .is_ok_and(|stat| rustix::fs::FileType::from_raw_mode(stat.st_mode) == wanted)
    };
    is("HEAD", rustix::fs::FileType::RegularFile)
        && is("objects", rustix::fs::FileType::Directory)
        && is("refs", rustix::fs::FileType::Directory)
}

/// Installs the protected half of the table in `ws` (git's control files,
/// `.oy`, oy's own directories `oy_dirs`), as true now. Every frontend
/// that changes workspace files outside the tools — an undo — calls it
/// first, so a protected path is refused there too.
pub fn protect_workspace(ws: &Workspace, oy_dirs: &[PathBuf]) {
    install(ws, oy_dirs);
}

fn install(ws: &Workspace, oy_dirs: &[PathBuf]) -> git_dirs::GitDirs {
    let at_root = git_dirs::find(ws.root());
    ws.protect(protection(ws.root(), &at_root, oy_dirs));
    at_root
}

/// One change a file tool is about to make.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Change<'p> {
    /// Create or replace the file at the path (a final link followed).
    Write(&'p WorkspacePath),
    /// Move `from` to `to`.
    Move {
        from: &'p WorkspacePath,
        to: &'p WorkspacePath,
    },
    /// Remove the path (a final link itself, not its target).
    Remove(&'p WorkspacePath),
}

impl Invocation<'_> {
    /// The approval `changes` need: [`Effect::WorkspaceWrite`], or
    /// [`Effect::Process`] with the reason when one of them decides what a
    /// later command runs. A protected path is a `TOOL_ERROR` before any
    /// approval is asked for.
    pub(crate) fn effect_of(
        &self,
        changes: &[Change<'_>],
    ) -> Result<(Effect, Option<String>), ToolError> {
        let ws = self.workspace();
        let root = ws.root();
        // Installed (it only grows) before any change, with what is true
        // now: a repository may have appeared since the last call.
        let at_root = install(ws, self.ctx().sandbox().private_dirs());
        let git = match repository_top(root) {
            Some(top) if top == root => at_root,
            Some(top) => git_dirs::find(top),
            None => git_dirs::GitDirs::default(),
        };
        let facts = Facts {
            git,
            path_dirs: self.ctx().child_path_dirs(),
            git_directories: RefCell::default(),
        };
        let git = &facts;
        let mut command_like = None;
        self.will_change(touched(ws, changes));
        for change in changes {
            let why = match *change {
                Change::Write(path) => {
                    refuse_protected(ws, path, true)?;
                    self.runs_commands(git, path, true)
                }
                Change::Move { from, to } => {
                    refuse_protected(ws, from, false)?;
                    refuse_protected(ws, to, false)?;
                    refuse_holding(ws, from)?;
                    self.runs_commands(git, from, false)
                        .or_else(|| self.runs_commands(git, to, false))
                        .or_else(|| executable_inside(ws, from))
                }
                Change::Remove(path) => {
                    refuse_protected(ws, path, false)?;
                    refuse_holding(ws, path)?;
                    self.runs_commands(git, path, false)
                }
            };
            if command_like.is_none() {
                command_like = why;
            }
        }
        Ok(match command_like {
            Some(why) => (Effect::Process, Some(why)),
            None => (Effect::WorkspaceWrite, None),
        })
    }

    /// Why a change at `path` decides what a later command runs, if it
    /// does: judged both where the path is named (a link in a `PATH`
    /// directory) and where it leads (`follow_final`: the link's target).
    fn runs_commands(
        &self,
        facts: &Facts,
        path: &WorkspacePath,
        follow_final: bool,
    ) -> Option<String> {
        let ws = self.workspace();
        let named = resolved_host(ws, path, false)?;
        let led_to = if follow_final {
            resolved_host(ws, path, true)
        } else {
            None
        };
        // A path with no final link leads where it is named: judged once.
        let led_to = led_to.filter(|led_to| *led_to != named);
        std::iter::once(named)
            .chain(led_to)
            .find_map(|host| self.runs_commands_at(facts, &host))
    }

    fn runs_commands_at(&self, facts: &Facts, host: &Path) -> Option<String> {
        let root = self.workspace().root();
        let parent = host.parent().unwrap_or(host);
        if let Some(dir) = facts
            .path_dirs
            .iter()
            .find(|dir| dir.starts_with(root) && (parent == dir.as_path() || dir.starts_with(host)))
        {
            return Some(format!(
                "{} is on the command PATH, so a file there can replace a program commands run",
                shown(root, dir)
            ));
        }
        let git = &facts.git;
        if let Some(named) = git
            .protected
            .iter()
            .chain(&git.absent)
            .filter(|named| named.starts_with(root))
            .filter(|named| !git.pinned.iter().any(|dir| named.starts_with(dir)))
            .filter(|named| !named_dot_git(named))
            // husky's `core.hooksPath = .husky/_` runs the hooks beside it.
            .map(|named| match named.file_name() {
                Some(name) if name == "_" => named.parent().unwrap_or(named),
                _ => named.as_path(),
            })
            .find(|named| host.starts_with(named) || named.starts_with(host))
        {
            return Some(format!(
                "git's config names {}, so git runs or reads it",
                shown(root, named)
            ));
        }
        let is_head = host
            .file_name()
            .is_some_and(|name| name.to_string_lossy().eq_ignore_ascii_case("HEAD"));
        if is_head {
            return Some(
                "a file named HEAD (beside objects/ and refs/) makes its directory a git repository, whose config git obeys".to_owned(),
            );
        }
        if let Some(repo) = host
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(root))
            .find(|dir| facts.is_git_directory(dir))
        {
            return Some(format!(
                "{} is a git repository's directory (HEAD, objects/, refs/): git obeys its config and hooks",
                shown(root, repo)
            ));
        }
        let home = self.ctx().sandbox().home().map(canonical)?;
        let below_home = host.strip_prefix(&home).ok()?;
        if !home.starts_with(root) {
            return None;
        }
        HOME_COMMAND_FILES
            .iter()
            .find(|file| below_home.starts_with(file) || Path::new(file).starts_with(below_home))
            .map(|file| {
                format!("~/{file} is read by programs at start-up, so a change there can make them run commands")
            })
    }
}

/// What a call's changes are judged against, found once per call.
struct Facts {
    git: git_dirs::GitDirs,
    path_dirs: Vec<PathBuf>,
    /// [`is_git_directory`]'s answers so far in this call: the changes of
    /// one call (a patch of hundreds of files) share most ancestors, and
    /// each answer costs three `stat`s.
    git_directories: RefCell<HashMap<PathBuf, bool>>,
}

impl Facts {
    fn is_git_directory(&self, dir: &Path) -> bool {
        if let Some(known) = self.git_directories.borrow().get(dir) {
            return *known;
        }
        let is = is_git_directory(dir);
        self.git_directories
            .borrow_mut()
            .insert(dir.to_path_buf(), is);
        is
    }
}

/// An approval summary, with why the change needs the command approval
/// when it does.
pub(crate) fn with_reason(summary: String, why: Option<&str>) -> String {
    match why {
        Some(why) => format!("{summary} — needs the command approval: {why}"),
        None => summary,
    }
}

/// `path` as people see it, with the file it really names when a link
/// leads elsewhere (`NOTES.md (a link to .github/workflows/release.yml)`):
/// the approval must say what is written.
pub(crate) fn shown_with_target(ws: &Workspace, path: &WorkspacePath) -> String {
    match ws.resolved(path, true) {
        Ok(target) if target.as_path() != path.as_path() => {
            format!("{path} (a link to {target})")
        }
        _ => path.to_text(),
    }
}

/// `Err` naming the rule when `path` is protected.
fn refuse_protected(
    ws: &Workspace,
    path: &WorkspacePath,
    follow_final: bool,
) -> Result<(), ToolError> {
    match ws.protected_reason(path, follow_final) {
        Ok(None) => Ok(()),
        Ok(Some(why)) => Err(protected_error(path, &why)),
        // Resolution errors (an escape, a loop) are the operation's own to report.
        Err(_) => Ok(()),
    }
}

/// `Err` when moving or removing `path` would take a protected directory
/// with it.
fn refuse_holding(ws: &Workspace, path: &WorkspacePath) -> Result<(), ToolError> {
    match ws.holds_protected(path) {
        Ok(Some(why)) => Err(protected_error(
            path,
            &format!("it holds a protected directory: {why}"),
        )),
        _ => Ok(()),
    }
}

fn protected_error(path: &WorkspacePath, why: &str) -> ToolError {
    ToolError::Boundary(oy_boundary::BoundaryError::Protected {
        path: path.to_text(),
        operation: "change",
        why: why.to_owned(),
    })
}

/// A move of an executable file, or of a directory holding one.
fn executable_inside(ws: &Workspace, from: &WorkspacePath) -> Option<String> {
    let meta = ws.symlink_metadata(from).ok()?;
    if meta.is_executable() {
        return Some(format!(
            "{from} is executable, and moving it can put a program where commands run it"
        ));
    }
    if meta.kind != oy_boundary::FileKind::Directory {
        return None;
    }
    let mut options = oy_boundary::WalkOptions::new(from.clone());
    options.respect_ignore_files = false;
    options.include_hidden = true;
    options.detect_executables = true;
    options.max_entries = Some(MAX_CHECKED_ENTRIES);
    let walk = ws.walk(&options).ok()?;
    if walk.truncated {
        return Some(format!(
            "{from} holds more than {MAX_CHECKED_ENTRIES} entries, too many to check for executables"
        ));
    }
    let is_head = |entry: &&oy_boundary::WalkEntry| {
        entry
            .path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().eq_ignore_ascii_case("HEAD"))
    };
    if let Some(head) = walk.entries.iter().find(is_head) {
        return Some(format!(
            "{from} holds {}, and moving it can make a git repository whose config git obeys",
            head.path
        ));
    }
    walk.entries.iter().find(|entry| entry.executable).map(|entry| {
        format!(
            "{from} holds the executable {}, and moving it can put a program where commands run it",
            entry.path
        )
    })
}

/// The absolute host path `path` resolves to, when it resolves.
fn resolved_host(ws: &Workspace, path: &WorkspacePath, follow_final: bool) -> Option<PathBuf> {
    ws.resolved(path, follow_final)
        .ok()
        .map(|resolved| ws.host_path(&resolved))
}

fn named_dot_git(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == ".git")
}

/// Every path `changes` alter: a write's named path and, through a link,
/// the file it leads to; both ends of a move.
fn touched(ws: &Workspace, changes: &[Change<'_>]) -> Vec<WorkspacePath> {
    let mut paths = Vec::new();
    for change in changes {
        match *change {
            Change::Write(path) => {
                paths.push(path.clone());
                if let Ok(target) = ws.resolved(path, true)
                    && target.as_path() != path.as_path()
                {
                    paths.push(target);
                }
            }
            Change::Move { from, to } => paths.extend([from.clone(), to.clone()]),
            Change::Remove(path) => paths.push(path.clone()),
        }
    }
    paths
}

/// `path` relative to the root, for messages.
fn shown(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => format!("{}/", rel.display()),
        Err(_) => path.display().to_string(),
    }
}

/// `path` with its existing part canonicalised (symlinks resolved), the
/// missing rest appended: how a directory that may not exist yet compares
/// with canonical paths.
pub(crate) fn canonical(path: impl AsRef<Path>) -> PathBuf {
    let path = path.as_ref();
    // The longest prefix that exists is resolved as the kernel would
    // (links, `..` after a link); the missing rest is applied lexically,
    // since nothing below a missing name can be a link.
    let components: Vec<std::path::Component<'_>> = path.components().collect();
    let mut split = components.len();
    while split > 0 {
        let prefix: PathBuf = components[..split].iter().collect();
        if rustix::fs::lstat(&prefix).is_ok() {
            break;
        }
        split -= 1;
    }
    let prefix: PathBuf = components[..split].iter().collect();
    let Ok(mut out) = prefix.canonicalize() else {
        return path.to_path_buf();
    };
    for part in &components[split..] {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(name) => out.push(name),
            _ => {}
        }
    }
    out
}
