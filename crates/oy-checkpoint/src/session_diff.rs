//! Diffs of checkpointed paths: what a restore would apply, and
//! everything a session changed so far (`/diff`, `oy diff`), as unified
//! diffs between kept bytes and the workspace now.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use oy_boundary::Workspace;
use similar::TextDiff;

use crate::blobs::Store;
use crate::capture::state_of;
use crate::checkpoints::Checkpoints;
use crate::error::CheckpointError;
use crate::index::{Commands, State, TurnState};

/// The most bytes of one side read for a diff.
const MAX_DIFF_BYTES: u64 = 16 * 1024 * 1024;

impl Checkpoints {
    /// Everything the session's turns (those not undone) changed, from
    /// before the first turn that touched each path to the workspace now.
    pub fn diff(&self, ws: &Workspace) -> Result<String, CheckpointError> {
        let inner = self.lock();
        let mut first: BTreeMap<String, State> = BTreeMap::new();
        for record in &inner.index.turns {
            if record.state == TurnState::Undone {
                continue;
            }
            for (path, entry) in &record.entries {
                first
                    .entry(path.clone())
                    .or_insert_with(|| entry.before.clone());
            }
        }
        let mut now = Vec::new();
        for (path, before) in &first {
            let Ok(at) = ws.path(path) else { continue };
            // A path that cannot be read now (beneath a link leaving the
            // root) shows as changed; it never stops the rest of the diff.
            let current = state_of(ws, &at).unwrap_or_else(|error| State::Other {
                what: format!("path that could not be read ({error})"),
            });
            if !current.same_as(before) {
                now.push((path.as_str(), before, current));
            }
        }
        Ok(steps_diff(
            &inner.store,
            ws,
            Direction::ToWorkspace,
            now.iter()
                .map(|(path, before, current)| (*path, *before, current)),
        ))
    }
}

impl Checkpoints {
    /// What [`Self::diff`] cannot show, one line each: turns whose
    /// commands' changes were not recorded (also after an undo, which
    /// could not take them back either), turns whose record could not be
    /// read back, and paths a turn saw but could not keep (`turn 3: x: …`).
    /// Turns outside git are not listed: see [`Self::outside_git`].
    pub fn unrecorded(&self) -> Vec<String> {
        let inner = self.lock();
        let mut lines = Vec::new();
        for record in &inner.index.turns {
            if let Commands::Untracked {
                why,
                outside_git: false,
            } = &record.commands
            {
                lines.push(format!("turn {}: {why}", record.turn));
            }
            for item in &record.not_kept {
                lines.push(format!("turn {}: {}: {}", record.turn, item.path, item.why));
            }
        }
        lines.extend(
            inner.index.unreadable.iter().map(|(turn, why)| {
                format!("turn {turn}: its checkpoint could not be read ({why})")
            }),
        );
        lines
    }

    /// True when the session's commands are not tracked because its
    /// workspace is not in a git repository (and some turn ran commands).
    pub fn outside_git(&self) -> bool {
        self.lock().index.turns.iter().any(|record| {
            matches!(
                record.commands,
                Commands::Untracked {
                    outside_git: true,
                    ..
                }
            )
        })
    }
}

/// Which side of a diff is the workspace as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// From now to kept bytes (what a restore applies).
    FromWorkspace,
    /// From kept bytes to now (what the session changed).
    ToWorkspace,
}

/// The diff from each `from` state to each `to` state, path by path; the
/// side `direction` names is read from the workspace, the other from the
/// kept copies.
pub(crate) fn steps_diff<'a>(
    store: &Store,
    ws: &Workspace,
    direction: Direction,
    steps: impl Iterator<Item = (&'a str, &'a State, &'a State)>,
) -> String {
    let mut out = String::new();
    for (path, from, to) in steps {
        if matches!(from, State::Dir { .. }) || matches!(to, State::Dir { .. }) {
            continue;
        }
        let old = side(store, ws, path, from, direction == Direction::FromWorkspace);
        let new = side(store, ws, path, to, direction == Direction::ToWorkspace);
        file_diff(&mut out, path, old, new);
    }
    out
}

/// One side's bytes: `None` for absent.
enum Side {
    Absent,
    Text(String),
    Opaque,
}

fn side(store: &Store, ws: &Workspace, path: &str, state: &State, from_workspace: bool) -> Side {
    let bytes = match state {
        State::Absent => return Side::Absent,
        State::File { .. } if from_workspace => ws
            .path(path)
            .ok()
            .and_then(|at| ws.read_bytes(&at, MAX_DIFF_BYTES).ok()),
        State::File {
            digest,
            len,
            kept: true,
            ..
        } => store.get(digest, *len).ok(),
        _ => None,
    };
    match bytes.map(String::from_utf8) {
        Some(Ok(text)) if !text.contains('\0') => Side::Text(text),
        _ => Side::Opaque,
    }
}

fn file_diff(out: &mut String, path: &str, old: Side, new: Side) {
    let name = |side: &Side, prefix: &str| match side {
        Side::Absent => "/dev/null".to_owned(),
        _ => quoted(prefix, path),
    };
    let (a, b) = (name(&old, "a"), name(&new, "b"));
    let _ = writeln!(
        out,
        "diff --git {} {}",
        quoted("a", path),
        quoted("b", path)
    );
    match (&old, &new) {
        (Side::Opaque, _) | (_, Side::Opaque) => {
            let _ = writeln!(out, "Binary files {a} and {b} differ");
        }
        _ => {
            let text = |side: &Side| match side {
                Side::Text(text) => text.clone(),
                _ => String::new(),
            };
            let (old_text, new_text) = (text(&old), text(&new));
            let diff = TextDiff::from_lines(&old_text, &new_text);
            let _ = write!(
                out,
                "{}",
                diff.unified_diff().context_radius(3).header(&a, &b)
            );
        }
    }
}

/// `prefix/path`, C-quoted as git quotes it when the name holds a control
/// character, a quote or a backslash: a file name can then never add a
/// line (a forged `+++` or hunk) to the diff a person reviews.
fn quoted(prefix: &str, path: &str) -> String {
    if !path
        .chars()
        .any(|c| c.is_control() || c == '"' || c == '\\')
    {
        return format!("{prefix}/{path}");
    }
    oy_boundary::c_quoted(&format!("{prefix}/{path}"))
}
