//! Landing a checked patch: the commit (`commit.rs`) with, when it takes
//! more than one step on disk, the journal's record made durable before
//! the first file changes (`crate::journal`), so a patch killed half way
//! is completed or undone whole at the next start. The read-lock digests
//! and the event diff are made on other threads meanwhile.

use std::sync::Mutex;

use oy_boundary::Workspace;

use super::Plan;
use super::commit::{self, Step};
use crate::context::Invocation;
use crate::diff::{DiffWriter, LazyDiff};
use crate::error::ToolError;
use crate::journal::{Change, Intent, Record, undo_splices};
use crate::state::content_digest;

/// A read-lock record: a path and the digest of what it now holds
/// (`None`: nothing, forget it).
type LockRecord = (String, Option<String>);

/// Lands `plans` and returns the bytes written and the event's diff (`None`
/// when no sink would see it).
pub(super) fn land<F: Fn(&mut DiffWriter) + Send>(
    call: &Invocation<'_>,
    plans: &[Plan],
    diff: LazyDiff<F>,
) -> Result<(u64, Option<String>), ToolError> {
    let ws = call.workspace();
    let steps: Vec<&Step> = plans.iter().map(|plan| &plan.step).collect();
    let journal = call.ctx().journal().filter(|_| needs_journal(plans));
    let call_id = call.call_id();
    let tool = call.tool();
    // The read-lock's digests of the new texts and the event's diff are
    // made on a second thread while this one lands the files (one
    // directory fsync per directory, after all the renames). With a
    // journal, the digests go into its record first: that thread writes
    // it while the new texts are staged, and the commit waits for it
    // before the first rename. Whatever the threads did not make (one
    // could not start) is made here after.
    // Nobody listening (`oy tool`, a library caller without a sink): no
    // event diff is made at all.
    let diff = Mutex::new(call.ctx().wants_diffs().then_some(diff));
    let event_diff = || {
        diff.lock()
            .ok()
            .and_then(|mut diff| diff.take())
            .map(LazyDiff::for_event)
    };
    let (outcome, records, intent, made_diff) = std::thread::scope(|scope| {
        let recorder = journal.map(|journal| {
            let thread = std::thread::Builder::new().spawn_scoped(scope, move || {
                let records = read_lock(plans);
                let record = record(ws, tool, call_id, plans, &records);
                (records, journal.begin(&record))
            });
            (journal, thread)
        });
        let helper = std::thread::Builder::new()
            .spawn_scoped(scope, || {
                let records = journal.is_none().then(|| read_lock(plans));
                (records, event_diff())
            })
            .ok();
        let mut records = None;
        let mut intent: Option<Intent> = None;
        let outcome = ws.batch(|| {
            commit::commit(ws, &steps, || {
                let Some((journal, recorder)) = recorder else {
                    return Ok(());
                };
                let (made, begun) = match recorder {
                    Ok(thread) => thread.join().map_err(|_| journal_failed("it panicked"))?,
                    // The thread could not start: the record is made here.
                    Err(_) => {
                        let made = read_lock(plans);
                        let begun = journal.begin(&record(ws, tool, call_id, plans, &made));
                        (made, begun)
                    }
                };
                records = Some(made);
                intent = Some(begun.map_err(|error| journal_failed(&error.to_string()))?);
                Ok(())
            })
        });
        let (helper_records, made_diff) = helper
            .and_then(|thread| thread.join().ok())
            .unwrap_or((None, None));
        (outcome, records.or(helper_records), intent, made_diff)
    });
    // The batch is over: every rename and its directory are durable, so
    // the record can go. A failure whose undo did not fully work keeps it
    // for the next start to finish.
    let finished = outcome
        .as_ref()
        .map_or_else(|failed| failed.undone, |_| true);
    if finished && let Some(intent) = intent {
        intent.finish();
    }
    let bytes_written = outcome.map_err(|failed| failed.error)?;
    remember(call, records.unwrap_or_else(|| read_lock(plans)));
    Ok((bytes_written, made_diff.or_else(event_diff)))
}

/// The error for a record that could not be made durable: nothing changed.
fn journal_failed(why: &str) -> ToolError {
    ToolError::failed(
        format!(
            "the patch was not applied: the journal that lets it be completed or undone after a crash could not be written ({why})"
        ),
        "tell the user; oy's data directory must be writable",
    )
}

/// True when landing `plans` takes more than one step on disk (several
/// files, or a move that also changes the text): one rename alone is
/// already all or nothing.
fn needs_journal(plans: &[Plan]) -> bool {
    plans.len() > 1
        || plans
            .iter()
            .any(|plan| matches!(plan.step, Step::Move { bytes: Some(_), .. }))
}

/// The journal's record of `plans`, with the new texts' digests from
/// `records` (as [`read_lock`] made them, in the same order).
fn record(
    ws: &Workspace,
    tool: &str,
    call_id: &str,
    plans: &[Plan],
    records: &[LockRecord],
) -> Record {
    let mut digests = records.iter().filter_map(|(_, digest)| digest.clone());
    let mut next = || digests.next().unwrap_or_default();
    let texts = |dirs: &[oy_boundary::WorkspacePath]| dirs.iter().map(|d| d.to_text()).collect();
    let mut changes: Vec<Change> = plans
        .iter()
        .map(|plan| match &plan.step {
            Step::Create { path, new_dirs, .. } => Change::Create {
                path: path.to_text(),
                new: next(),
                new_dirs: texts(new_dirs),
            },
            Step::Replace { path, old, bytes } => Change::Replace {
                path: path.to_text(),
                new: next(),
                old_len: old.len() as u64,
                undo: undo_splices(old, bytes, &plan.stats.regions),
            },
            Step::Move {
                from,
                to,
                old,
                bytes,
                new_dirs,
            } => Change::Move {
                from: from.to_text(),
                to: to.to_text(),
                old: content_digest(old.as_bytes()),
                new: next(),
                new_dirs: texts(new_dirs),
                undo: bytes
                    .as_deref()
                    .map(|bytes| undo_splices(old, bytes, &plan.stats.regions))
                    .unwrap_or_default(),
            },
            Step::Delete { path, old } => Change::Delete {
                path: path.to_text(),
                old_text: old.clone(),
                mode: ws.symlink_metadata(path).map_or(0o644, |meta| meta.mode),
            },
        })
        .collect();
    // In the order `commit` makes them (deletions last), so a record's
    // done steps are always its first ones.
    changes.sort_by_key(|change| matches!(change, Change::Delete { .. }));
    Record {
        version: crate::journal::VERSION,
        workspace: ws.root().to_string_lossy().into_owned(),
        tool: tool.to_owned(),
        call_id: call_id.to_owned(),
        pid: std::process::id(),
        started_ms: crate::journal::now_ms(),
        changes,
    }
}

/// The read-lock records of `plans` once landed: the digest of each new
/// text, and the paths that no longer hold one.
fn read_lock(plans: &[Plan]) -> Vec<LockRecord> {
    let mut records = Vec::new();
    for plan in plans {
        match &plan.step {
            Step::Create { path, bytes, .. } | Step::Replace { path, bytes, .. } => {
                records.push((path.to_text(), Some(content_digest(bytes.as_bytes()))));
            }
            Step::Move {
                from,
                to,
                old,
                bytes,
                ..
            } => {
                records.push((from.to_text(), None));
                let new = bytes.as_deref().unwrap_or(old);
                records.push((to.to_text(), Some(content_digest(new.as_bytes()))));
            }
            Step::Delete { path, .. } => records.push((path.to_text(), None)),
        }
    }
    records
}

/// Keeps the session's read records in step with what was written.
fn remember(call: &Invocation<'_>, records: Vec<LockRecord>) {
    let mut state = call.ctx().state();
    for (path, digest) in records {
        match digest {
            Some(digest) => state.remember_digest(&path, digest),
            None => state.forget(&path),
        }
    }
}
