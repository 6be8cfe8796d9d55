//! Protected paths: names and directories that no write, move or removal
//! through this workspace may touch, whatever the caller's mode. The
//! caller (oy-tools' table in `docs/protected-paths.md`) says what to
//! protect; this module enforces it where the change happens, on the path
//! as resolved for the operation itself, and the parent directory is then
//! opened without following any link, so a link swapped in between the
//! check and the change cannot redirect it into a protected place.
//!
//! Protections only grow: [`Workspace::protect`] adds, nothing removes.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::sync::PoisonError;

use crate::error::{BoundaryError, Result};
use crate::path::WorkspacePath;
use crate::resolve::{Follow, Target};
use crate::workspace::Workspace;

/// What to protect: directory entry names (anywhere below the root) and
/// whole directories (absolute host paths), each with the reason people
/// are told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Protection {
    names: Vec<(String, String)>,
    dirs: Vec<(PathBuf, String)>,
}

impl Protection {
    /// Nothing protected.
    pub fn new() -> Self {
        Self::default()
    }

    /// Protects every entry called `name` (compared as a case-insensitive
    /// filesystem would, see [`folded`]) and everything beneath it.
    pub fn name(mut self, name: &str, why: impl Into<String>) -> Self {
        let name = folded(OsStr::new(name));
        if !self.names.iter().any(|(known, _)| *known == name) {
            self.names.push((name, why.into()));
        }
        self
    }

    /// Protects the directory (or file) at the absolute host path `path`
    /// and everything beneath it. Relative paths are ignored.
    pub fn dir(mut self, path: impl Into<PathBuf>, why: impl Into<String>) -> Self {
        let path = path.into();
        if path.is_absolute() && !self.dirs.iter().any(|(known, _)| *known == path) {
            self.dirs.push((path, why.into()));
        }
        self
    }

    fn merge(&mut self, more: Self) {
        for (name, why) in more.names {
            if !self.names.iter().any(|(known, _)| *known == name) {
                self.names.push((name, why));
            }
        }
        for (dir, why) in more.dirs {
            if !self.dirs.iter().any(|(known, _)| *known == dir) {
                self.dirs.push((dir, why));
            }
        }
    }

    /// Why `host` (absolute, symlink-free) is protected, if it is; `inside`
    /// is its part below the root, when it lies inside; `walked` are the
    /// names resolution went through to get there (links included).
    fn why(&self, host: &Path, inside: Option<&Path>, walked: &[OsString]) -> Option<String> {
        let components =
            inside
                .unwrap_or(host)
                .components()
                .filter_map(|component| match component {
                    Component::Normal(part) => Some(part),
                    _ => None,
                });
        for part in components.chain(walked.iter().map(OsString::as_os_str)) {
            let part = folded(part);
            if let Some((_, why)) = self.names.iter().find(|(name, _)| *name == part) {
                return Some(why.clone());
            }
        }
        self.dirs
            .iter()
            .find(|(dir, _)| host.starts_with(dir))
            .map(|(_, why)| why.clone())
    }

    /// Why moving or removing `host` would take a protected directory
    /// with it, if it would.
    fn holds(&self, host: &Path) -> Option<String> {
        self.dirs
            .iter()
            .find(|(dir, _)| dir.starts_with(host) && dir.as_path() != host)
            .map(|(_, why)| why.clone())
    }
}

/// A name as a case-insensitive or normalising filesystem may see it:
/// ASCII case folded, characters that filesystems such as HFS+ ignore
/// removed, and trailing dots and spaces (which some drop) trimmed. Both
/// sides of every comparison are folded, so `.GIT`, `.git.` and `.g\u{200c}it`
/// all name `.git`.
pub(crate) fn folded(name: &OsStr) -> String {
    let text = name.to_string_lossy();
    let kept: String = text
        .chars()
        .filter(|c| !is_ignorable(*c))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    kept.trim_end_matches(['.', ' ']).to_owned()
}

/// Default-ignorable code points (zero-width, joiners, direction marks,
/// variation selectors, the BOM).
fn is_ignorable(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
        | '\u{ffa0}' | '\u{fff0}'..='\u{fff8}')
}

impl Workspace {
    /// Adds `more` to what this workspace protects. There is no way to
    /// take a protection back.
    pub fn protect(&self, more: Protection) {
        self.protection
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .merge(more);
    }

    /// Why a change at `path` is refused, if it is: the path is resolved as
    /// a write would resolve it (a final link followed when
    /// `follow_final`), so a link to a protected file is refused too.
    pub fn protected_reason(
        &self,
        path: &WorkspacePath,
        follow_final: bool,
    ) -> Result<Option<String>> {
        let follow = if follow_final {
            Follow::Final
        } else {
            Follow::NotFinal
        };
        let (rel, walked) = self.resolve_walked(path, follow)?;
        Ok(self.why_protected(&rel, &walked, false))
    }

    /// `path` with every link resolved (the final one only when
    /// `follow_final`): where an operation on it would really act.
    pub fn resolved(&self, path: &WorkspacePath, follow_final: bool) -> Result<WorkspacePath> {
        let follow = if follow_final {
            Follow::Final
        } else {
            Follow::NotFinal
        };
        Ok(self.anchor.at_base_rel(self.resolve(path, follow)?))
    }

    /// Why moving or removing `path` (not following a final link) would
    /// take a protected directory with it, if it would.
    pub fn holds_protected(&self, path: &WorkspacePath) -> Result<Option<String>> {
        let rel = self.resolve(path, Follow::NotFinal)?;
        let host = self.host_of_rel(&rel);
        Ok(self
            .protection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .holds(&host))
    }

    /// `Err(Protected)` when changing `target` is refused; with
    /// `whole_tree`, also when it would move or remove a protected
    /// directory beneath it.
    pub(crate) fn guard(
        &self,
        target: &Target<'_>,
        operation: &'static str,
        whole_tree: bool,
    ) -> Result<()> {
        match self.why_protected(&target.rel, &target.walked, whole_tree) {
            None => Ok(()),
            Some(why) => Err(BoundaryError::Protected {
                path: target.shown.clone(),
                operation,
                why,
            }),
        }
    }

    /// [`Self::guard`] for `rel`, an entry beneath `target`, named in the
    /// error by `target`.
    pub(crate) fn guard_rel(
        &self,
        rel: &Path,
        target: &Target<'_>,
        operation: &'static str,
    ) -> Result<()> {
        match self.why_protected(rel, &[], false) {
            None => Ok(()),
            Some(why) => {
                let beneath = rel.strip_prefix(&target.rel).unwrap_or(rel);
                Err(BoundaryError::Protected {
                    path: target.shown.clone(),
                    operation,
                    why: format!("it holds {} ({why})", beneath.display()),
                })
            }
        }
    }

    fn why_protected(&self, rel: &Path, walked: &[OsString], whole_tree: bool) -> Option<String> {
        let host = self.host_of_rel(rel);
        let inside = host.strip_prefix(&self.anchor.canonical_root).ok();
        let protection = self
            .protection
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        protection
            .why(&host, inside, walked)
            .or_else(|| whole_tree.then(|| protection.holds(&host)).flatten())
    }

    /// The absolute host path of a capability-relative path.
    pub(crate) fn host_of_rel(&self, rel: &Path) -> PathBuf {
        match self.anchor.host_root_rel {
            Some(_) => Path::new("/").join(rel),
            None => self.anchor.canonical_root.join(rel),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_sees_through_case_trailing_dots_and_ignorable_characters() {
        for spelled in [
            ".git",
            ".GIT",
            ".Git.",
            ".git ",
            ".g\u{200c}it",
            "\u{feff}.git",
        ] {
            assert_eq!(folded(OsStr::new(spelled)), ".git", "{spelled:?}");
        }
        assert_ne!(folded(OsStr::new(".gitignore")), ".git");
        assert_ne!(folded(OsStr::new("git")), ".git");
    }

    #[test]
    fn a_directory_protects_what_is_beneath_and_its_ancestors_hold_it() {
        let protection = Protection::new()
            .name(".git", "git")
            .dir("/w/.repo", "gitdir");
        assert!(
            protection
                .why(Path::new("/w/.repo/config"), None, &[])
                .is_some()
        );
        assert!(
            protection
                .why(Path::new("/w/.repository"), None, &[])
                .is_none()
        );
        assert!(protection.holds(Path::new("/w")).is_some());
        assert!(protection.holds(Path::new("/w/.repo")).is_none());
        let inside = Path::new("sub/.GIT/hooks/pre-commit");
        assert!(
            protection
                .why(Path::new("/w/sub/.GIT/hooks/pre-commit"), Some(inside), &[])
                .is_some()
        );
        // A link named `.git` to a directory of another name.
        let walked = [OsString::from(".git"), OsString::from("gitstore")];
        assert!(
            protection
                .why(Path::new("/w/gitstore/config"), None, &walked)
                .is_some()
        );
    }
}
