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
];

/// Entries a directory move checks for executables, at most; a larger tree
/// is treated as holding one.
const MAX_CHECKED_ENTRIES: usize = 100_000;

/// What the boundary refuses for the workspace at `root`: the protected
/// names, the git directories of the repository inside it, and `oy_dirs`
/// where they lie inside.
pub(crate) fn protection(root: &Path, oy_dirs: &[PathBuf]) -> Protection {
    let mut protection = Protection::new();
    for (name, why) in PROTECTED_NAMES {
        protection = protection.name(name, *why);
    }
    for dir in git_dirs::find(root).pinned {
        if dir.starts_with(root) {
            protection = protection.dir(
                dir,
                "it is the repository's git directory: its config and hooks decide what git runs",
            );
        }
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
        self.ctx().refresh_protection();
        let git = git_dirs::find(ws.root());
        let mut command_like = None;
        for change in changes {
            let why = match *change {
                Change::Write(path) => {
                    refuse_protected(ws, path, true)?;
                    self.runs_commands(&git, path, true)
                }
                Change::Move { from, to } => {
                    refuse_protected(ws, from, false)?;
                    refuse_protected(ws, to, false)?;
                    refuse_holding(ws, from)?;
                    self.runs_commands(&git, from, false)
                        .or_else(|| self.runs_commands(&git, to, false))
                        .or_else(|| executable_inside(ws, from))
                }
                Change::Remove(path) => {
                    refuse_protected(ws, path, false)?;
                    refuse_holding(ws, path)?;
                    self.runs_commands(&git, path, false)
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

    /// Why a change at `path` decides what a later command runs, if it does.
    fn runs_commands(
        &self,
        git: &git_dirs::GitDirs,
        path: &WorkspacePath,
        follow_final: bool,
    ) -> Option<String> {
        let ws = self.workspace();
        let host = resolved_host(ws, path, follow_final)?;
        let root = ws.root();
        let parent = host.parent().unwrap_or(&host);
        let path_dirs = self.ctx().child_path_dirs();
        if let Some(dir) = path_dirs.iter().find(|dir| {
            dir.starts_with(root) && (parent == dir.as_path() || dir.starts_with(&host))
        }) {
            return Some(format!(
                "{} is on the command PATH, so a file there can replace a program commands run",
                shown(root, dir)
            ));
        }
        if let Some(named) = git
            .protected
            .iter()
            .chain(&git.absent)
            .filter(|named| named.starts_with(root))
            .filter(|named| !git.pinned.iter().any(|dir| named.starts_with(dir)))
            .filter(|named| !named_dot_git(named))
            .find(|named| host.starts_with(named) || named.starts_with(&host))
        {
            return Some(format!(
                "git's config names {}, so git runs or reads it",
                shown(root, named)
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

/// An approval summary, with why the change needs the command approval
/// when it does.
pub(crate) fn with_reason(summary: String, why: Option<&str>) -> String {
    match why {
        Some(why) => format!("{summary} — needs the command approval: {why}"),
        None => summary,
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
    let mut missing = Vec::new();
    let mut existing = path;
    loop {
        if let Ok(found) = existing.canonicalize() {
            let mut out = found;
            out.extend(missing.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_owned());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}
