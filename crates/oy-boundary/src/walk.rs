//! Walking: a gitignore-aware parallel walker (ripgrep's `ignore` crate)
//! that never follows a symlink, reports symlinks as such, and only yields
//! paths inside the walk's start.
//!
//! The walker reads directory listings by path, so it yields *names* only;
//! anything that reads file contents goes back through the capability
//! (`Workspace::open_file`), which re-checks every component.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use ignore::{WalkBuilder, WalkState};

use crate::error::{BoundaryError, Result};
use crate::metadata::FileKind;
use crate::path::WorkspacePath;
use crate::resolve::Follow;
use crate::workspace::Workspace;

/// What to walk and which filters apply.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Where to start (a directory, or a single file).
    pub start: WorkspacePath,
    /// How deep below `start` to go (1 = its direct children); `None` for no limit.
    pub max_depth: Option<usize>,
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude` (also outside a git repository).
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
    /// The path, as a workspace path.
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
            .symlink_metadata(crate::read::cap_rel(&start_rel))
            .map_err(|e| BoundaryError::from_io("walk", &shown, e))?;
        let start_path = self.anchor.at_base_rel(start_rel.clone());
        if !start_meta.is_dir() {
            let kind = FileKind::of(start_meta.file_type());
            let entry = WalkEntry {
                path: start_path,
                kind,
                depth: 0,
                executable: crate::metadata::Metadata::from_cap(&start_meta).is_executable(),
            };
            visit(entry);
            return Ok(Walk::default());
        }
        let host_base = self.host_path(&self.anchor.at_base_rel(PathBuf::new()));
        let host_start = self.host_path(&start_path);
        let mut builder = WalkBuilder::new(&host_start);
        builder
            .follow_links(false)
            .hidden(!options.include_hidden)
            .ignore(options.respect_ignore_files)
            .git_ignore(options.respect_ignore_files)
            .git_exclude(options.respect_ignore_files)
            .parents(options.respect_ignore_files)
            .git_global(false)
            .require_git(false)
            .max_depth(options.max_depth)
            .current_dir(&host_start)
            .filter_entry(|entry| entry.file_name() != ".git");
        let found = AtomicUsize::new(0);
        let unreadable = AtomicUsize::new(0);
        let truncated = AtomicBool::new(false);
        builder.build_parallel().run(|| {
            Box::new(|result| {
                let entry = match result {
                    Ok(entry) => entry,
                    Err(_) => {
                        unreadable.fetch_add(1, Ordering::Relaxed);
                        return WalkState::Continue;
                    }
                };
                if entry.depth() == 0 {
                    return WalkState::Continue;
                }
                // The walker only yields paths below its start, but say so in code.
                let Ok(base_rel) = entry.path().strip_prefix(&host_base) else {
                    unreadable.fetch_add(1, Ordering::Relaxed);
                    return WalkState::Skip;
                };
                if let Some(max) = options.max_entries
                    && found.fetch_add(1, Ordering::Relaxed) >= max
                {
                    truncated.store(true, Ordering::Relaxed);
                    return WalkState::Quit;
                }
                let (kind, executable) = match entry.file_type() {
                    Some(file_type) => {
                        let kind = FileKind::of_std(file_type);
                        let executable = options.detect_executables
                            && kind == FileKind::File
                            && is_executable(&entry);
                        (kind, executable)
                    }
                    None => (FileKind::Other, false),
                };
                let walked = WalkEntry {
                    path: self.anchor.at_base_rel(base_rel.to_path_buf()),
                    kind,
                    depth: entry.depth(),
                    executable,
                };
                match visit(walked) {
                    WalkControl::Continue => WalkState::Continue,
                    WalkControl::Stop => WalkState::Quit,
                }
            })
        });
        Ok(Walk {
            entries: Vec::new(),
            truncated: truncated.load(Ordering::Relaxed),
            unreadable: unreadable.load(Ordering::Relaxed),
        })
    }
}

fn is_executable(entry: &ignore::DirEntry) -> bool {
    use std::os::unix::fs::PermissionsExt;
    entry
        .metadata()
        .map(|meta| meta.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
