//! Walking: a parallel, gitignore-aware directory walk done entirely through
//! directory handles.
//!
//! The start directory is opened through the capability; every directory
//! below it is opened relative to its parent's handle, by a single name
//! from the parent's own listing, with `O_NOFOLLOW | O_DIRECTORY`: a single
//! name cannot leave the parent, and a directory swapped for a symlink
//! mid-walk is refused rather than followed. No path is ever re-resolved
//! from the root. Symlinks are reported as such and never entered. A
//! directory is listed (one `getdents` pass) before anything else; its
//! ignore files are read only when the listing shows them (see
//! `walk_rules`). Each entry handed out keeps its directory's handle, so
//! [`Workspace::open_walked`] opens it with one `openat`.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use cap_fs_ext::DirExt;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir};

use crate::error::Result;
use crate::metadata::{FileKind, Metadata};
use crate::path::WorkspacePath;
use crate::read::cap_rel;
use crate::resolve::Follow;
use crate::walk_rules::{IgnoreEntries, Rules, is_ignored};
use crate::workspace::Workspace;

/// More walker threads than this stop paying off.
const MAX_THREADS: usize = 8;
/// Files [`Workspace::are_executable`] gives a thread of its own, at least.
const STATS_PER_THREAD: usize = 2048;
/// `getdents` buffer per listing: hundreds of entries per call.
const LISTING_BUFFER: usize = 32 * 1024;

/// What to walk and which filters apply.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Where to start (a directory, or a single file).
    pub start: WorkspacePath,
    /// How deep below `start` to go (1 = its direct children, 0 = nothing
    /// below it); `None` for no limit.
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
///
/// An entry handed to a [`Workspace::walk_parallel`] visitor holds its
/// directory's handle open (for [`Workspace::open_walked`]) until dropped;
/// entries collected by [`Workspace::walk`] hold none.
#[derive(Clone)]
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
    /// The directory the entry was listed from.
    parent: Option<Arc<OwnedFd>>,
}

impl WalkEntry {
    /// The handle of the directory the entry was listed from, if kept.
    pub(crate) fn parent_dir(&self) -> Option<BorrowedFd<'_>> {
        self.parent.as_deref().map(AsFd::as_fd)
    }
}

// Equality and debugging ignore the directory handle: two entries are the
// same when they describe the same path the same way.
impl PartialEq for WalkEntry {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
            && self.kind == other.kind
            && self.depth == other.depth
            && self.executable == other.executable
    }
}

impl Eq for WalkEntry {}

impl std::fmt::Debug for WalkEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkEntry")
            .field("path", &self.path)
            .field("kind", &self.kind)
            .field("depth", &self.depth)
            .field("executable", &self.executable)
            .finish_non_exhaustive()
    }
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
    /// Keep going, but not into this entry: a directory's contents are
    /// never listed (a pruned subtree costs nothing). Same as `Continue`
    /// for other entries.
    SkipChildren,
    /// Stop the whole walk as soon as possible.
    Stop,
}

impl Workspace {
    /// Whether a walked regular file has an execute bit: one `fstatat`
    /// relative to the directory handle it was listed from (symlinks not
    /// followed), for a caller that needs it for only some entries (those
    /// that match a pattern) rather than [`WalkOptions::detect_executables`]
    /// for all. An entry without a handle answers what the walk found.
    pub fn walked_is_executable(&self, entry: &WalkEntry) -> bool {
        if entry.kind != FileKind::File || entry.path.workspace != self.anchor.id {
            return false;
        }
        match (entry.parent_dir(), entry.path.file_name()) {
            (Some(dir), Some(name)) => {
                lstat_at(dir, name).is_some_and(|stat| stat.st_mode & 0o111 != 0)
            }
            _ => entry.executable,
        }
    }

    /// Which of `files` are regular files with an execute bit now, for a
    /// caller that learns which walked entries it shows only after the
    /// walk (a sorted, windowed listing), so that only those cost a
    /// `stat`. Each file costs one `fstatat` (links not followed) relative
    /// to its directory; the directory is resolved and opened without
    /// following any link, once for each run of files that share it. A
    /// path that cannot be resolved or stat'ed answers false.
    pub fn are_executable(&self, files: &[&WorkspacePath]) -> Vec<bool> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, MAX_THREADS);
        if threads == 1 || files.len() < 2 * STATS_PER_THREAD {
            return self.are_executable_here(files);
        }
        // A whole listing shown: the `stat`s share the threads, as the
        // walk's own did.
        let per_thread = files.len().div_ceil(threads).max(STATS_PER_THREAD);
        std::thread::scope(|scope| {
            let parts: Vec<_> = files
                .chunks(per_thread)
                .map(|part| scope.spawn(move || self.are_executable_here(part)))
                .collect();
            let mut answers = Vec::with_capacity(files.len());
            for (part, thread) in files.chunks(per_thread).zip(parts) {
                match thread.join() {
                    Ok(part_answers) => answers.extend(part_answers),
                    Err(_) => answers.extend(self.are_executable_here(part)),
                }
            }
            answers
        })
    }

    fn are_executable_here(&self, files: &[&WorkspacePath]) -> Vec<bool> {
        let mut open: Option<(WorkspacePath, Option<cap_std::fs::Dir>)> = None;
        let mut answers = Vec::with_capacity(files.len());
        for file in files {
            let Some((parent, name)) = file
                .split_parent()
                .filter(|_| file.workspace == self.anchor.id && !file.names_directory())
            else {
                answers.push(false);
                continue;
            };
            if open.as_ref().is_none_or(|(known, _)| *known != parent) {
                let dir = self
                    .target(&parent, Follow::Final)
                    .ok()
                    .and_then(|target| self.open_dir_exactly(&target.rel).ok());
                open = Some((parent, dir));
            }
            let executable = open
                .as_ref()
                .and_then(|(_, dir)| dir.as_ref())
                .and_then(|dir| lstat_at(dir.as_fd(), name))
                .is_some_and(|stat| {
                    FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile
                        && stat.st_mode & 0o111 != 0
                });
            answers.push(executable);
        }
        answers
    }

    /// Walks and returns every entry, sorted by path.
    pub fn walk(&self, options: &WalkOptions) -> Result<Walk> {
        let entries = Mutex::new(Vec::new());
        let summary = self.walk_parallel(options, |mut entry| {
            // A kept handle per directory would hold the whole tree open.
            entry.parent = None;
            entries
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(entry);
            WalkControl::Continue
        })?;
        let mut entries = entries.into_inner().unwrap_or_else(PoisonError::into_inner);
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Walk {
            entries,
            truncated: summary.truncated,
            unreadable: summary.unreadable,
        })
    }

    /// Walks on several threads, handing each entry to `visit` as it is
    /// found (in no particular order). Returns the walk's summary with no
    /// entries in it. If `visit` panics, the walk stops and the panic is
    /// propagated once every walker thread has finished.
    pub fn walk_parallel<F>(&self, options: &WalkOptions, visit: F) -> Result<Walk>
    where
        F: Fn(WalkEntry) -> WalkControl + Sync,
    {
        let target = self.target(&options.start, Follow::Final)?;
        let start_meta = self
            .dir
            .symlink_metadata(cap_rel(&target.rel))
            .map_err(|e| self.os_error(&target, "walk", e))?;
        if !start_meta.is_dir() {
            visit(WalkEntry {
                path: options.start.clone(),
                kind: FileKind::of(start_meta.file_type()),
                depth: 0,
                executable: Metadata::from_cap(&start_meta).is_executable(),
                parent: None,
            });
            return Ok(Walk::default());
        }
        if options.max_depth == Some(0) {
            return Ok(Walk::default());
        }
        let start_dir = self
            .dir
            .open_dir_nofollow(cap_rel(&target.rel))
            .map_err(|e| self.os_error(&target, "walk", e))?;
        // cap-std's handle is `O_PATH`, which cannot be listed: reopen it.
        let start_dir = rustix::fs::openat(&start_dir, ".", LIST_FLAGS, Mode::empty())
            .map_err(|e| self.os_error(&target, "walk", e.into()))?;
        let rules = if options.respect_ignore_files {
            self.ancestor_rules(&target.rel)
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
                    resolved: target.rel,
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
        // One level below the start is one directory to list: a thread
        // more would only be spawned to wait (a caller listing thousands
        // of directories one by one would spawn thousands).
        let threads = if options.max_depth == Some(1) {
            1
        } else {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .clamp(1, MAX_THREADS)
        };
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
}

/// A directory to read. Children are opened only when their job runs, and
/// share their parent's handle until then, so a wide tree never holds more
/// than about one open directory per level.
enum DirSource {
    Opened(OwnedFd),
    Child(Arc<OwnedFd>, OsString),
}

/// Flags to open a directory for listing. `O_NOFOLLOW` refuses a symlink
/// swapped in for the directory; `O_NONBLOCK` makes sure nothing else
/// swapped in (a FIFO) could ever block, although `O_DIRECTORY` already
/// refuses it before it is opened.
const LIST_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC);

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

/// One listed entry, before filtering.
struct Listed {
    name: OsString,
    kind: FileKind,
    executable: bool,
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

/// Marks a taken job finished when dropped — also while unwinding from a
/// panicking visitor. Without it the panicking thread would never lower
/// `active`, and the other walker threads would wait for it forever, so
/// the panic could never reach the caller.
struct JobDone<'a> {
    queue: &'a Mutex<Queue>,
    wake: &'a Condvar,
    stop: &'a AtomicBool,
}

impl Drop for JobDone<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.stop.store(true, Ordering::Relaxed);
        }
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.active = queue.active.saturating_sub(1);
        if self.stop.load(Ordering::Relaxed) || (queue.active == 0 && queue.jobs.is_empty()) {
            self.wake.notify_all();
        }
    }
}

impl<F> Walker<'_, F>
where
    F: Fn(WalkEntry) -> WalkControl + Sync,
{
    fn work(&self) {
        while let Some(job) = self.next_job() {
            let _done = JobDone {
                queue: &self.queue,
                wake: &self.wake,
                stop: &self.stop,
            };
            self.read_dir(job);
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

    /// Opens and lists the job's directory: every entry's name and type,
    /// and what the listing shows of ignore files.
    fn list(&self, source: DirSource) -> Option<(OwnedFd, Vec<Listed>, IgnoreEntries)> {
        let dir = match source {
            DirSource::Opened(dir) => dir,
            // One name from the parent's listing: it cannot leave the
            // parent, and O_NOFOLLOW refuses it if it became a link.
            DirSource::Child(parent, name) => {
                rustix::fs::openat(&*parent, name.as_os_str(), LIST_FLAGS, Mode::empty()).ok()?
            }
        };
        let mut buf = Vec::with_capacity(LISTING_BUFFER);
        let mut raw = RawDir::new(&dir, buf.spare_capacity_mut());
        let mut listed = Vec::new();
        let mut ignore_files = IgnoreEntries::default();
        while let Some(entry) = raw.next() {
            let Ok(entry) = entry else {
                // The directory vanished or failed mid-listing: keep what was read.
                self.unreadable.fetch_add(1, Ordering::Relaxed);
                break;
            };
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let file_type = entry.file_type();
            let kind = match file_type {
                // Filesystems without `d_type` leave it to an `lstat`.
                FileType::Unknown => match lstat_at(dir.as_fd(), name) {
                    Some(stat) => FileKind::of_rustix(FileType::from_raw_mode(stat.st_mode)),
                    None => {
                        self.unreadable.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                },
                known => FileKind::of_rustix(known),
            };
            ignore_files.note(name, kind);
            if skip_name(name, self.options.include_hidden) {
                continue;
            }
            let executable = self.options.detect_executables
                && kind == FileKind::File
                && lstat_at(dir.as_fd(), name).is_some_and(|stat| stat.st_mode & 0o111 != 0);
            listed.push(Listed {
                name: name.to_os_string(),
                kind,
                executable,
            });
        }
        Some((dir, listed, ignore_files))
    }

    fn read_dir(&self, job: Job) {
        let options = self.options;
        let Some((dir, listed, ignore_files)) = self.list(job.dir) else {
            self.unreadable.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let rules = if options.respect_ignore_files {
            self.workspace
                .listed_rules(Some(dir.as_fd()), &job.resolved, &ignore_files, job.rules)
        } else {
            None
        };
        let dir = Arc::new(dir);
        let depth = job.depth + 1;
        // Each entry's resolved path is this one buffer with its name
        // pushed on, for the ignore rules; only a directory to descend
        // into gets a copy of its own.
        let mut resolved = job.resolved;
        for Listed {
            name,
            kind,
            executable,
        } in listed
        {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            resolved.push(&name);
            let ignored = is_ignored(rules.as_ref(), &resolved, kind == FileKind::Directory);
            let child_resolved =
                (!ignored && kind == FileKind::Directory).then(|| resolved.clone());
            resolved.pop();
            if ignored {
                continue;
            }
            if let Some(max) = options.max_entries
                && self.found.fetch_add(1, Ordering::Relaxed) >= max
            {
                self.truncated.store(true, Ordering::Relaxed);
                self.stop.store(true, Ordering::Relaxed);
                return;
            }
            let path = job.path.child(&name);
            let descend =
                kind == FileKind::Directory && options.max_depth.is_none_or(|max| depth < max);
            // Only a directory to descend into needs its path twice.
            let job_path = descend.then(|| path.clone());
            let walked = WalkEntry {
                path,
                kind,
                depth,
                executable,
                parent: Some(Arc::clone(&dir)),
            };
            let control = (self.visit)(walked);
            if control == WalkControl::Stop {
                self.stop.store(true, Ordering::Relaxed);
                return;
            }
            if let Some(path) = job_path
                && let Some(resolved) = child_resolved
                && control != WalkControl::SkipChildren
            {
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

/// `lstat` of one entry of `dir`.
fn lstat_at(dir: BorrowedFd<'_>, name: &OsStr) -> Option<rustix::fs::Stat> {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()
}

fn skip_name(name: &OsStr, include_hidden: bool) -> bool {
    name == ".git" || (!include_hidden && name.as_bytes().first() == Some(&b'.'))
}
