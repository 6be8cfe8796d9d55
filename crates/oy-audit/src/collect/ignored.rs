//! Counting what ignore files hid: the walker never enters an ignored
//! directory (which keeps a large `node_modules/` cheap), so each
//! directory it could collect from is listed once more without ignore
//! rules, and each top-most entry missing from the walk counts once.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use oy_boundary::{WalkControl, WalkOptions, Workspace, WorkspacePath};

use super::{Rules, SkipReason, State};
use crate::error::AuditError;

/// Counts entries that ignore files hid from the walk: each directory the
/// walk could collect from is listed once more without ignore rules, and
/// what that listing shows beyond the walk was ignored.
///
/// Only directories at or below one holding an ignore file are listed
/// (unless the rules come from above the scope or `.git/info/exclude`):
/// elsewhere nothing can have been ignored.
pub(super) fn count_ignored(
    workspace: &Workspace,
    rules: &Rules<'_>,
    state: &mut State,
) -> Result<(), AuditError> {
    let start = rules.start_text();
    let everywhere = outer_rules_exist(workspace, &start);
    let mut dirs: Vec<&String> = state
        .walked_dirs
        .iter()
        .filter(|dir| everywhere || has_rules_above(dir, &start, &state.ignore_file_dirs))
        .collect();
    dirs.sort();
    let paths = dirs
        .iter()
        .map(|dir| {
            if dir.is_empty() {
                Ok(workspace.root_path())
            } else {
                workspace.path(dir.as_str())
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Each directory is one listing on one thread (a one-level walk spawns
    // none); a few threads share the directories, taking the next one
    // from a counter, and each keeps what it found in listing order.
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, MAX_THREADS)
        .min(paths.len());
    let work = || {
        let mut found = Vec::new();
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = paths.get(at) else {
                return found;
            };
            found.push((at, listing(workspace, path)));
        }
    };
    let mut listings: Vec<(usize, Vec<String>)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut all = work();
        for helper in helpers {
            match helper.join() {
                Ok(found) => all.extend(found),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    listings.sort_by_key(|(at, _)| *at);
    let ignored: Vec<String> = listings
        .into_iter()
        .flat_map(|(_, listing)| listing)
        .filter(|path| !state.seen.contains(path))
        .collect();
    for path in ignored {
        state.skip(SkipReason::Ignored, Some(&path));
    }
    Ok(())
}

/// Threads listing directories at once, at most.
const MAX_THREADS: usize = 8;

/// Every entry directly in `dir`, ignore rules not applied; nothing when
/// it vanished since the walk.
fn listing(workspace: &Workspace, dir: &WorkspacePath) -> Vec<String> {
    let listing = Mutex::new(Vec::new());
    let options = WalkOptions {
        start: dir.clone(),
        max_depth: Some(1),
        respect_ignore_files: false,
        include_hidden: true,
        max_entries: None,
        detect_executables: false,
    };
    let walked = workspace.walk_parallel(&options, |entry| {
        listing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(entry.path.to_text());
        WalkControl::Continue
    });
    if walked.is_err() {
        return Vec::new();
    }
    listing.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// True when ignore rules reach the scope from outside it: an ignore file
/// in a directory above the scope, or `.git/info/exclude`.
fn outer_rules_exist(workspace: &Workspace, start: &str) -> bool {
    let exists = |path: String| {
        workspace
            .path(&path)
            .and_then(|p| workspace.symlink_metadata(&p))
            .is_ok()
    };
    // `git init` writes an exclude file of comments only: it counts when
    // it holds a rule.
    let exclude_has_rules = workspace
        .path(".git/info/exclude")
        .and_then(|p| workspace.read_text(&p, 1024 * 1024))
        .is_ok_and(|text| {
            text.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        });
    if exclude_has_rules {
        return true;
    }
    let mut dir = String::new();
    let mut components = start.split('/').filter(|c| !c.is_empty()).peekable();
    // The scope's own ignore files were seen by the walk; its ancestors'
    // were not.
    while let Some(component) = components.next() {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        if exists(format!("{prefix}.gitignore")) || exists(format!("{prefix}.ignore")) {
            return true;
        }
        if components.peek().is_none() {
            break;
        }
        dir = format!("{prefix}{component}");
    }
    false
}

/// True when `dir` or one of its ancestors within the scope holds an ignore file.
fn has_rules_above(dir: &str, start: &str, ignore_file_dirs: &HashSet<String>) -> bool {
    let mut current = dir;
    loop {
        if ignore_file_dirs.contains(current) {
            return true;
        }
        if current == start || current.is_empty() {
            return false;
        }
        current = current.rsplit_once('/').map_or("", |(parent, _)| parent);
    }
}
