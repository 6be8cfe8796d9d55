//! One snapshot: the private index brought up to date with the working
//! tree (only what `ls-files` says changed is looked at again), written
//! as a tree. Paths git would refuse or that must not be kept — over the
//! size bound, not a file or link, under a parent that is no longer a
//! plain directory, a nested repository, a name that is not UTF-8 — are
//! taken out of the index and named, so a snapshot never fails on them
//! and never hashes a huge file.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::Path;

use super::Git;
use crate::capture::size;
use crate::error::CheckpointError;

/// The most new or changed paths one snapshot takes on.
const MAX_PATHS: usize = 200_000;

/// A snapshot of the working tree.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    /// The tree id in the private object store.
    pub(crate) tree: String,
    /// Paths that were there but are not in the tree, with why.
    pub(crate) left_out: BTreeMap<String, String>,
    /// Names that are not UTF-8, shown escaped: never an entry (a lossy
    /// key could name another file), only named.
    pub(crate) not_utf8: Vec<String>,
    /// Paths git ignored when the snapshot was taken (a directory as
    /// `dir/`).
    pub(crate) ignored: BTreeSet<String>,
    /// The real permission bits of the tree's files, when asked for.
    pub(crate) modes: BTreeMap<String, u32>,
    /// Device and inode of every left-out or ignored file (not inside an
    /// ignored directory), when asked for: a file a command only moved or
    /// linked is not one it made.
    pub(crate) inodes: HashSet<(u64, u64)>,
}

impl Snapshot {
    /// Why `path`, which the tree does not hold, was there all the same:
    /// it, or a directory above it, was left out or ignored.
    pub(crate) fn held_outside(&self, path: &str) -> Option<String> {
        if let Some(why) = self.left_out.get(path) {
            return Some(why.clone());
        }
        if self.ignored.contains(path) || self.ignored.contains(&format!("{path}/")) {
            return Some("git ignored it before the turn".to_owned());
        }
        let mut end = 0;
        while let Some(at) = path[end..].find('/') {
            end += at;
            let dir = &path[..end];
            if let Some(why) = self.left_out.get(dir) {
                return Some(why.clone());
            }
            if self.ignored.contains(&path[..=end]) {
                return Some("git ignored it before the turn".to_owned());
            }
            end += 1;
        }
        None
    }
}

/// What is at a candidate path, as far as the index cares.
enum Found {
    /// A regular file within the bound, or a symbolic link: hashed.
    Keep,
    /// Nothing to hash (gone, a directory now, under a link): out of the
    /// index, silently.
    Gone,
    /// There, but not kept: out of the index, named.
    LeftOut(String),
}

impl Git {
    /// Snapshots the working tree, with the ignored paths that are there.
    /// `full` also lists every file's permission bits (the "before" of a
    /// turn's commands).
    pub(crate) fn snapshot(&self, max_file: u64, full: bool) -> Result<Snapshot, CheckpointError> {
        let listed = self.run(
            &[
                "ls-files",
                "-z",
                "--modified",
                "--deleted",
                "--others",
                "--exclude-standard",
            ],
            None,
        )?;
        let mut names: Vec<&[u8]> = listed
            .split(|byte| *byte == 0)
            .filter(|name| !name.is_empty())
            .collect();
        names.sort_unstable();
        names.dedup();
        if names.len() > MAX_PATHS {
            return Err(CheckpointError::Git {
                command: "ls-files".to_owned(),
                detail: format!(
                    "{} new or changed paths, more than the {MAX_PATHS} a snapshot takes",
                    names.len()
                ),
            });
        }
        let mut parents = HashMap::new();
        let mut keep = Vec::new();
        let mut gone = Vec::new();
        let mut left_out = BTreeMap::new();
        let mut not_utf8 = Vec::new();
        for name in names {
            let shown = String::from_utf8_lossy(name).into_owned();
            let found = match std::str::from_utf8(name) {
                _ if name.ends_with(b"/") => Found::LeftOut("a nested git repository".to_owned()),
                Ok(text) => self.look(text, max_file, &mut parents),
                Err(_) => {
                    not_utf8.push(name.escape_ascii().to_string());
                    Found::Gone
                }
            };
            let list = match found {
                Found::Keep => &mut keep,
                Found::Gone => &mut gone,
                Found::LeftOut(why) => {
                    left_out.insert(shown.trim_end_matches('/').to_owned(), why);
                    &mut gone
                }
            };
            list.extend_from_slice(name);
            list.push(0);
        }
        // Removals first: a file that became a directory (or the other way
        // round) leaves the index before what replaced it goes in.
        if !gone.is_empty() {
            self.run(
                &["update-index", "-z", "--force-remove", "--stdin"],
                Some(&gone),
            )?;
        }
        if !keep.is_empty() {
            self.run(
                &["update-index", "-z", "--add", "--replace", "--stdin"],
                Some(&keep),
            )?;
        }
        let tree = self.run(&["write-tree"], None)?;
        let mut snapshot = Snapshot {
            tree: String::from_utf8_lossy(&tree).trim().to_owned(),
            left_out,
            not_utf8,
            ..Snapshot::default()
        };
        snapshot.ignored = self.ignored()?;
        if full {
            snapshot.modes = self.modes(&mut parents)?;
            snapshot.inodes = self.inodes(&snapshot, &mut parents);
        }
        Ok(snapshot)
    }

    /// Ignored paths that are there now. A directory git ignores as such
    /// (`target/`) is one entry, not descended into; one that git lists
    /// whole only because everything in it now is ignored (`logs/` with
    /// `*.log`) is listed file by file, so a new file in it is never taken
    /// for one that was there.
    fn ignored(&self) -> Result<BTreeSet<String>, CheckpointError> {
        let names = |out: Vec<u8>| -> Vec<String> {
            out.split(|byte| *byte == 0)
                .filter(|name| !name.is_empty())
                .map(|name| String::from_utf8_lossy(name).into_owned())
                .collect()
        };
        let listed = names(self.run(
            &[
                "ls-files",
                "-z",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--directory",
            ],
            None,
        )?);
        let (mut dirs, files): (Vec<String>, Vec<String>) =
            listed.into_iter().partition(|name| name.ends_with('/'));
        let mut ignored: BTreeSet<String> = files.into_iter().collect();
        // A directory inside another listed one is covered by it.
        dirs.sort();
        dirs.dedup();
        let mut outer: Vec<String> = Vec::new();
        for dir in dirs {
            if !outer
                .last()
                .is_some_and(|last| dir.starts_with(last.as_str()))
            {
                outer.push(dir);
            }
        }
        if outer.is_empty() {
            return Ok(ignored);
        }
        // check-ignore reads its names as pathspecs (literal mode is not
        // supported there): a name that could be read as magic or a glob
        // is not asked, and is listed file by file instead.
        let plain = |dir: &String| !dir.starts_with(':') && !dir.contains(['*', '?', '[', '\\']);
        let mut asked = Vec::new();
        for dir in outer.iter().filter(|dir| plain(dir)) {
            asked.extend_from_slice(dir.as_bytes());
            asked.push(0);
        }
        let whole: HashSet<String> = if asked.is_empty() {
            HashSet::new()
        } else {
            names(self.run_allowing_exit(
                &["check-ignore", "-z", "--stdin", "--no-index"],
                Some(&asked),
                1,
            )?)
            .into_iter()
            .collect()
        };
        let (whole_dirs, partial): (Vec<String>, Vec<String>) =
            outer.into_iter().partition(|dir| whole.contains(dir));
        ignored.extend(whole_dirs);
        // The others listed file by file, a few hundred directories a call.
        for chunk in partial.chunks(256) {
            let mut args = vec![
                "ls-files",
                "-z",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--",
            ];
            args.extend(chunk.iter().map(String::as_str));
            let inside = names(self.run(&args, None)?);
            if ignored.len() + inside.len() > MAX_PATHS {
                // Too many to list: taken whole, as "there before".
                ignored.extend(chunk.iter().cloned());
            } else {
                ignored.extend(inside);
            }
        }
        Ok(ignored)
    }

    /// Device and inode of each left-out path and each ignored file (not
    /// the files inside an ignored directory: too many to look at).
    fn inodes(
        &self,
        snapshot: &Snapshot,
        parents: &mut HashMap<String, bool>,
    ) -> HashSet<(u64, u64)> {
        snapshot
            .left_out
            .keys()
            .chain(snapshot.ignored.iter().filter(|name| !name.ends_with('/')))
            .take(MAX_PATHS)
            .filter(|name| self.parents_are_dirs(name, parents))
            .filter_map(|name| lstat(&self.root.join(name)).ok())
            .filter(|meta| meta.is_file())
            .map(|meta| (meta.dev(), meta.ino()))
            .collect()
    }

    /// The permission bits of every file in the index (a file's mode in a
    /// tree is only 644 or 755; undo restores the real one).
    fn modes(
        &self,
        parents: &mut HashMap<String, bool>,
    ) -> Result<BTreeMap<String, u32>, CheckpointError> {
        let out = self.run(&["ls-files", "-z"], None)?;
        let mut modes = BTreeMap::new();
        for name in out.split(|byte| *byte == 0).filter(|name| !name.is_empty()) {
            let Ok(text) = std::str::from_utf8(name) else {
                continue;
            };
            if !self.parents_are_dirs(text, parents) {
                continue;
            }
            if let Ok(meta) = lstat(&self.root.join(text))
                && meta.is_file()
            {
                modes.insert(text.to_owned(), meta.permissions().mode() & 0o7777);
            }
        }
        Ok(modes)
    }

    fn look(&self, name: &str, max_file: u64, parents: &mut HashMap<String, bool>) -> Found {
        if !self.parents_are_dirs(name, parents) {
            return Found::Gone;
        }
        let meta = match lstat(&self.root.join(name)) {
            Ok(meta) => meta,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Found::Gone,
            Err(error) => return Found::LeftOut(format!("it could not be read: {error}")),
        };
        let kind = meta.file_type();
        if kind.is_symlink() || (kind.is_file() && meta.size() <= max_file) {
            Found::Keep
        } else if kind.is_dir() {
            Found::Gone
        } else if kind.is_file() {
            Found::LeftOut(format!(
                "{}, over the {} a checkpoint keeps of one file",
                size(meta.size()),
                size(max_file)
            ))
        } else {
            Found::LeftOut("not a regular file".to_owned())
        }
    }

    /// True when every parent of `name` is a plain directory (not a link):
    /// git refuses a path beyond a link, and oy never reads through one.
    fn parents_are_dirs(&self, name: &str, known: &mut HashMap<String, bool>) -> bool {
        let mut end = 0;
        while let Some(at) = name[end..].find('/') {
            end += at;
            let dir = &name[..end];
            let plain = *known.entry(dir.to_owned()).or_insert_with(|| {
                lstat(&self.root.join(dir)).is_ok_and(|meta| meta.file_type().is_dir())
            });
            if !plain {
                return false;
            }
            end += 1;
        }
        true
    }
}

#[expect(
    clippy::disallowed_methods,
    reason = "lstat of a workspace path whose parents were checked to be plain directories; \
              only its kind, size and mode are used"
)]
fn lstat(path: &Path) -> std::io::Result<std::fs::Metadata> {
    std::fs::symlink_metadata(path)
}
