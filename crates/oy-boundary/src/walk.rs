//! Walking: a parallel, gitignore-aware directory walk done entirely through
//! directory handles.
//!
//! Each directory is opened relative to its parent's handle with
//! `O_NOFOLLOW`, so a directory swapped for a symlink mid-walk is refused
//! rather than followed, and no path is ever re-resolved from the root.
//! Symlinks are reported as such and never entered. Ignore files
//! (`.gitignore`, `.ignore`, `.git/info/exclude`) are read through the same
//! boundary rules as any other read — a regular file, or a link that stays
//! inside; never a FIFO, never outside — and ignore files above the
//! workspace root are not read at all. Matching uses the `ignore` crate's
//! gitignore implementation (ripgrep's).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use cap_fs_ext::DirExt;
use cap_std::fs::{Dir, MetadataExt};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::error::{BoundaryError, Result};
use crate::metadata::{FileKind, Metadata};
use crate::path::WorkspacePath;
use crate::read::cap_rel;
use crate::resolve::Follow;
use crate::workspace::Workspace;

/// Ignore files larger than this are skipped (no real one comes close).
const IGNORE_FILE_LIMIT: u64 = 1024 * 1024;
/// More walker threads than this stop paying off.
const MAX_THREADS: usize = 8;

/// What to walk and which filters apply.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Where to start (a directory, or a single file).
    pub start: WorkspacePath,
    /// How deep below `start` to go (1 = its direct children); `None` for no limit.
    pub max_depth: Option<usize>,
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude` from the
    /// workspace root down (also outside a git repository).
    pub respect_ignore_files: bool,
    /// Include dot-files and dot-directories (`.git` itself is always skipped).
    pub include_hidden: bool,
    /// Stop after this many entries; [`Walk::truncated`] says when that happened.
    pub max_entries: Option<usize>,
    /// Fill [`WalkEntry::executable`] (one extra `lstat` per file).
    pub detect_executables: bool,
}

impl WalkOptions {
    /// Defaults for walking from `start`: ignore files honoured, hidden files
    /// skipped, no depth or entry limit.
    pub fn new(start: WorkspacePath) -> Self {
        Self {
            start,
            max_depth: None,
            respect_ignore_files: true,
            include_hidden: false,
            max_entries: None,
            detect_executables: false,
        }
    }
}

/// One walked path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkEntry {
    /// The path, spelled below the walk's start as the caller gave it.
    pub path: WorkspacePath,
    /// Its type; symlinks are reported as [`FileKind::Symlink`] and never entered.
    pub kind: FileKind,
    /// Depth below the walk's start (1 for direct children).
    pub depth: usize,
    /// True for a regular file with an execute bit (only when
    /// [`WalkOptions::detect_executables`] asked for it).
    pub executable: bool,
}

/// A finished walk, sorted by path.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// Entries in path order.
    pub entries: Vec<WalkEntry>,
    /// True when `max_entries` cut the walk short.
    pub truncated: bool,
    /// Directories or entries that could not be read (permissions, races).
    pub unreadable: usize,
}

/// Whether a parallel visitor wants more entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkControl {
    /// Keep going.
    Continue,
    /// Stop the whole walk as soon as possible.
    Stop,
}

impl Workspace {
    /// Walks and returns every entry, sorted by path.
    pub fn walk(&self, options: &WalkOptions) -> Result<Walk> {
        let entries = Mutex::new(Vec::new());
        let summary = self.walk_parallel(options, |entry| {
            if let Ok(mut entries) = entries.lock() {
                entries.push(entry);
            }
            WalkControl::Continue
        })?;
        let mut entries = entries.into_inner().unwrap_or_default();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Walk {
            entries,
            truncated: summary.truncated,
            unreadable: summary.unreadable,
        })
    }

    /// Walks on several threads, handing each entry to `visit` as it is
    /// found (in no particular order). Returns the walk's summary with no
    /// entries in it.
    pub fn walk_parallel<F>(&self, options: &WalkOptions, visit: F) -> Result<Walk>
    where
        F: Fn(WalkEntry) -> WalkControl + Sync,
    {
        let shown = options.start.to_text();
        let start_rel = self.resolve(&options.start, Follow::Final)?;
        let start_meta = self
            .dir
            .symlink_metadata(cap_rel(&start_rel))
            .map_err(|e| BoundaryError::from_io("walk", &shown, e))?;
        if !start_meta.is_dir() {
            visit(WalkEntry {
                path: options.start.clone(),
                kind: FileKind::of(start_meta.file_type()),
                depth: 0,
                executable: Metadata::from_cap(&start_meta).is_executable(),
            });
            return Ok(Walk::default());
        }
        let start_dir = self
            .dir
            .open_dir_nofollow(cap_rel(&start_rel))
            .map_err(|e| BoundaryError::from_io("walk", &shown, e))?;
        let rules = if options.respect_ignore_files {
            self.ancestor_rules(&start_rel)
        } else {
            None
        };
        let walker = Walker {
            workspace: self,
            options,
            visit: &visit,
            queue: Mutex::new(Queue {
                jobs: vec![Job {
                    dir: DirSource::Opened(start_dir),
                    path: options.start.clone(),
                    resolved: start_rel,
                    depth: 0,
                    rules,
                }],
                active: 0,
            }),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
            found: AtomicUsize::new(0),
            unreadable: AtomicUsize::new(0),
            truncated: AtomicBool::new(false),
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, MAX_THREADS);
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|| walker.work());
            }
            walker.work();
        });
        Ok(Walk {
            entries: Vec::new(),
            truncated: walker.truncated.load(Ordering::Relaxed),
            unreadable: walker.unreadable.load(Ordering::Relaxed),
        })
    }

    /// The ignore rules of the directories from the workspace root down to
    /// (not including) `start_rel`, which the walk itself reads.
    fn ancestor_rules(&self, start_rel: &Path) -> Option<Arc<Rules>> {
        let root_rel = self.anchor.host_root_rel.clone().unwrap_or_default();
        let below_root = start_rel.strip_prefix(&root_rel).ok()?;
        let mut rules = None;
        let mut dir = root_rel;
        for component in below_root.components() {
            rules = self.dir_rules(&dir, rules);
            dir.push(component);
        }
        rules
    }

    /// Adds the ignore files of the directory at `dir_rel` (resolved) to `parent`.
    fn dir_rules(&self, dir_rel: &Path, parent: Option<Arc<Rules>>) -> Option<Arc<Rules>> {
        let at_root = self
            .anchor
            .host_root_rel
            .as_deref()
            .unwrap_or(Path::new(""))
            == dir_rel;
        let exclude = if at_root {
            self.ignore_file(dir_rel, Path::new(".git/info/exclude"))
        } else {
            None
        };
        let dot_ignore = self.ignore_file(dir_rel, Path::new(".ignore"));
        let git_ignore = self.ignore_file(dir_rel, Path::new(".gitignore"));
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

    /// Reads and parses one ignore file under the boundary's read rules; a
    /// missing, escaping, special, oversized or binary file counts as absent.
    fn ignore_file(&self, dir_rel: &Path, name: &Path) -> Option<Gitignore> {
        let path = self.anchor.at_base_rel(dir_rel.join(name));
        let text = self.read_text(&path, IGNORE_FILE_LIMIT).ok()?;
        let mut builder = GitignoreBuilder::new(dir_rel);
        for line in text.lines() {
            // A malformed glob is skipped, as git does.
            let _ = builder.add_line(None, line);
        }
        builder.build().ok().filter(|rules| !rules.is_empty())
    }
}

/// Ignore rules of one directory, linked to its parent's.
struct Rules {
    parent: Option<Arc<Rules>>,
    dot_ignore: Option<Gitignore>,
    git_ignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
}

/// ripgrep's precedence: `.ignore` beats `.gitignore` beats
/// `.git/info/exclude`; within one kind the nearest directory wins; a
/// whitelist (`!pattern`) match un-ignores.
fn is_ignored(rules: Option<&Arc<Rules>>, path: &Path, is_dir: bool) -> bool {
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

/// A directory to read. Children are opened only when their job runs, and
/// share their parent's handle until then, so a wide tree never holds more
/// than about one open directory per level.
enum DirSource {
    Opened(Dir),
    Child(Arc<Dir>, std::ffi::OsString),
}

struct Job {
    dir: DirSource,
    /// As the caller spelled it (what entries are named under).
    path: WorkspacePath,
    /// Capability-relative and symlink-free (what ignore rules match).
    resolved: PathBuf,
    depth: usize,
    rules: Option<Arc<Rules>>,
}

struct Queue {
    jobs: Vec<Job>,
    /// Jobs taken and not yet finished; the walk ends when this and `jobs` are empty.
    active: usize,
}

struct Walker<'a, F> {
    workspace: &'a Workspace,
    options: &'a WalkOptions,
    visit: &'a F,
    queue: Mutex<Queue>,
    wake: Condvar,
    stop: AtomicBool,
    found: AtomicUsize,
    unreadable: AtomicUsize,
    truncated: AtomicBool,
}

impl<F> Walker<'_, F>
where
    F: Fn(WalkEntry) -> WalkControl + Sync,
{
    fn work(&self) {
        while let Some(job) = self.next_job() {
            self.read_dir(job);
            let Ok(mut queue) = self.queue.lock() else {
                return;
            };
            queue.active -= 1;
            if queue.active == 0 && queue.jobs.is_empty() {
                self.wake.notify_all();
            }
        }
    }

    fn next_job(&self) -> Option<Job> {
        let mut queue = self.queue.lock().ok()?;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                queue.jobs.clear();
                self.wake.notify_all();
                return None;
            }
            if let Some(job) = queue.jobs.pop() {
                queue.active += 1;
                return Some(job);
            }
            if queue.active == 0 {
                return None;
            }
            queue = self.wake.wait(queue).ok()?;
        }
    }

    fn push(&self, job: Job) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.jobs.push(job);
            self.wake.notify_one();
        }
    }

    fn read_dir(&self, job: Job) {
        let options = self.options;
        let dir = match job.dir {
            DirSource::Opened(dir) => Ok(dir),
            // O_NOFOLLOW: a directory swapped for a link since its parent
            // was listed is refused, not followed.
            DirSource::Child(parent, name) => parent.open_dir_nofollow(&name),
        };
        let Ok(dir) = dir else {
            self.unreadable.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let Ok(entries) = dir.entries() else {
            self.unreadable.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let dir = Arc::new(dir);
        let rules = if options.respect_ignore_files {
            self.workspace.dir_rules(&job.resolved, job.rules.clone())
        } else {
            None
        };
        let depth = job.depth + 1;
        for entry in entries {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let Ok(entry) = entry else {
                self.unreadable.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            let name = entry.file_name();
            if skip_name(&name, options.include_hidden) {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                self.unreadable.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            let kind = FileKind::of(file_type);
            let resolved = job.resolved.join(&name);
            if is_ignored(rules.as_ref(), &resolved, kind == FileKind::Directory) {
                continue;
            }
            if let Some(max) = options.max_entries
                && self.found.fetch_add(1, Ordering::Relaxed) >= max
            {
                self.truncated.store(true, Ordering::Relaxed);
                self.stop.store(true, Ordering::Relaxed);
                return;
            }
            let executable = options.detect_executables
                && kind == FileKind::File
                && entry.metadata().is_ok_and(|meta| meta.mode() & 0o111 != 0);
            let path = job.path.child(&name);
            let descend =
                kind == FileKind::Directory && options.max_depth.is_none_or(|max| depth < max);
            let walked = WalkEntry {
                path: path.clone(),
                kind,
                depth,
                executable,
            };
            if (self.visit)(walked) == WalkControl::Stop {
                self.stop.store(true, Ordering::Relaxed);
                return;
            }
            if descend {
                self.push(Job {
                    dir: DirSource::Child(Arc::clone(&dir), name),
                    path,
                    resolved,
                    depth,
                    rules: rules.clone(),
                });
            }
        }
    }
}

fn skip_name(name: &OsStr, include_hidden: bool) -> bool {
    name == ".git" || (!include_hidden && name.as_bytes().first() == Some(&b'.'))
}
