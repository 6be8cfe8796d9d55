//! Ignore rules for the walker: which `.gitignore`, `.ignore` and
//! `.git/info/exclude` files apply to a directory, read without leaving the
//! root, and ripgrep's precedence for matching them.
//!
//! The walker lists a directory first and only reads an ignore file its
//! listing shows, relative to the directory handle it already holds
//! (`O_NOFOLLOW | O_NONBLOCK`, a regular file by `fstat`, size-capped): no
//! per-directory lookups from the root. An ignore file that is a symlink is
//! read with the boundary's full read rules instead (followed only while it
//! stays inside). The directories above the walk's start and
//! `.git/info/exclude` (which sits behind `.git`, possibly a link) are
//! read by path through the same full rules; ignore files above the
//! workspace root are never read.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rustix::fd::BorrowedFd;

use crate::metadata::FileKind;
use crate::read::{OpenedEntry, open_entry, read_capped};
use crate::workspace::Workspace;

/// Ignore files larger than this are skipped (no real one comes close).
const IGNORE_FILE_LIMIT: u64 = 1024 * 1024;

const DOT_IGNORE: &str = ".ignore";
const GIT_IGNORE: &str = ".gitignore";

/// Ignore rules of one directory, linked to its parent's.
pub(crate) struct Rules {
    parent: Option<Arc<Rules>>,
    dot_ignore: Option<Gitignore>,
    git_ignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
}

/// What a directory's listing showed of its ignore files: the kind of the
/// `.ignore` and `.gitignore` entries, and whether `.git` is there.
#[derive(Debug, Default)]
pub(crate) struct IgnoreEntries {
    dot_ignore: Option<FileKind>,
    git_ignore: Option<FileKind>,
    has_git: bool,
}

impl IgnoreEntries {
    /// For a directory that was not listed: any ignore file may be there,
    /// and (with no handle) each is tried by path.
    fn unlisted() -> Self {
        Self {
            dot_ignore: Some(FileKind::File),
            git_ignore: Some(FileKind::File),
            has_git: true,
        }
    }

    /// Records one listed entry.
    pub(crate) fn note(&mut self, name: &OsStr, kind: FileKind) {
        if name == DOT_IGNORE {
            self.dot_ignore = Some(kind);
        } else if name == GIT_IGNORE {
            self.git_ignore = Some(kind);
        } else if name == ".git" {
            self.has_git = true;
        }
    }
}

/// ripgrep's precedence: `.ignore` beats `.gitignore` beats
/// `.git/info/exclude`; within one kind the nearest directory wins; a
/// whitelist (`!pattern`) match un-ignores.
pub(crate) fn is_ignored(rules: Option<&Arc<Rules>>, path: &Path, is_dir: bool) -> bool {
    let kinds: [fn(&Rules) -> Option<&Gitignore>; 3] = [
        |r| r.dot_ignore.as_ref(),
        |r| r.git_ignore.as_ref(),
        |r| r.exclude.as_ref(),
    ];
    for pick in kinds {
        let mut node = rules;
        while let Some(current) = node {
            if let Some(matcher) = pick(current) {
                let found = matcher.matched(path, is_dir);
                if found.is_ignore() {
                    return true;
                }
                if found.is_whitelist() {
                    return false;
                }
            }
            node = current.parent.as_ref();
        }
    }
    false
}

impl Workspace {
    /// The ignore rules of the directories from the workspace root down to
    /// (not including) `start_rel`, which the walk itself reads.
    pub(crate) fn ancestor_rules(&self, start_rel: &Path) -> Option<Arc<Rules>> {
        let root_rel = self.anchor.host_root_rel.clone().unwrap_or_default();
        let below_root = start_rel.strip_prefix(&root_rel).ok()?;
        let mut rules = None;
        let mut dir = root_rel;
        for component in below_root.components() {
            rules = self.listed_rules(None, &dir, &IgnoreEntries::unlisted(), rules);
            dir.push(component);
        }
        rules
    }

    /// Adds the ignore files of the directory at `dir_rel` (resolved), as
    /// its listing `found` them, to `parent`. `dir` is the directory's own
    /// handle, when the walker holds one.
    pub(crate) fn listed_rules(
        &self,
        dir: Option<BorrowedFd<'_>>,
        dir_rel: &Path,
        found: &IgnoreEntries,
        parent: Option<Arc<Rules>>,
    ) -> Option<Arc<Rules>> {
        let at_root = self
            .anchor
            .host_root_rel
            .as_deref()
            .unwrap_or(Path::new(""))
            == dir_rel;
        let exclude = if at_root && found.has_git {
            self.ignore_file_by_path(dir_rel, Path::new(".git/info/exclude"))
        } else {
            None
        };
        let read = |name: &str, kind: Option<FileKind>| {
            let kind = kind?;
            let bytes = match (kind, dir) {
                (FileKind::File, Some(dir)) => self.ignore_file_at(dir, dir_rel, name)?,
                (FileKind::Symlink, _) | (FileKind::File, None) => {
                    self.read_ignore_bytes(dir_rel, Path::new(name))?
                }
                // A FIFO, socket, device or directory is never read.
                _ => return None,
            };
            parse(dir_rel, &bytes)
        };
        let dot_ignore = read(DOT_IGNORE, found.dot_ignore);
        let git_ignore = read(GIT_IGNORE, found.git_ignore);
        if dot_ignore.is_none() && git_ignore.is_none() && exclude.is_none() {
            return parent;
        }
        Some(Arc::new(Rules {
            parent,
            dot_ignore,
            git_ignore,
            exclude,
        }))
    }

    /// Reads a listed ignore file relative to its directory's handle. A
    /// file swapped for a link since the listing gets the full rules.
    fn ignore_file_at(&self, dir: BorrowedFd<'_>, dir_rel: &Path, name: &str) -> Option<Vec<u8>> {
        match open_entry(dir, OsStr::new(name)).ok()? {
            OpenedEntry::File(file, len) => read_capped(file, len, IGNORE_FILE_LIMIT).ok(),
            OpenedEntry::Symlink => self.read_ignore_bytes(dir_rel, Path::new(name)),
            OpenedEntry::Other(_) => None,
        }
    }

    fn ignore_file_by_path(&self, dir_rel: &Path, name: &Path) -> Option<Gitignore> {
        parse(dir_rel, &self.read_ignore_bytes(dir_rel, name)?)
    }

    /// Reads an ignore file under the boundary's full read rules; a
    /// missing, escaping, special or oversized file counts as absent.
    fn read_ignore_bytes(&self, dir_rel: &Path, name: &Path) -> Option<Vec<u8>> {
        let path = self.anchor.at_base_rel(dir_rel.join(name));
        self.read_bytes(&path, IGNORE_FILE_LIMIT).ok()
    }
}

/// Parses an ignore file rooted at `dir_rel`. Bytes that are not UTF-8
/// (a Latin-1 comment, say) are replaced rather than losing every rule.
fn parse(dir_rel: &Path, bytes: &[u8]) -> Option<Gitignore> {
    let text = String::from_utf8_lossy(bytes);
    let mut builder = GitignoreBuilder::new(dir_rel);
    for line in text.lines() {
        // A malformed glob is skipped, as git does.
        let _ = builder.add_line(None, line);
    }
    builder.build().ok().filter(|rules| !rules.is_empty())
}
