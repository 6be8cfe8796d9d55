//! The checkpoint index: one record per turn, each mapping the paths the
//! turn changed to their state before and after it. Stored as one JSON
//! file beside the blobs, rewritten whole and atomically (0600) after
//! every change, so a crash loses at most the call in flight.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The index format this build writes and reads.
pub(crate) const INDEX_VERSION: u32 = 3;

/// What was at a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum State {
    /// Nothing.
    Absent,
    /// A regular file: its SHA-256, permission bits and length, and
    /// whether its bytes are kept (a file over the size bound is only
    /// recognised, not kept).
    File {
        /// Lowercase hex SHA-256 of the content.
        digest: String,
        /// Permission bits.
        mode: u32,
        /// Length in bytes.
        len: u64,
        /// True when the blob store holds the content.
        kept: bool,
    },
    /// A directory (its entries are states of their own).
    Dir {
        /// Permission bits.
        mode: u32,
    },
    /// Something a checkpoint does not restore: a symbolic link, a FIFO,
    /// a socket, a device.
    Other {
        /// What it is (`symlink`, `fifo`, …).
        what: String,
    },
    /// Something was there, but what is not known (git ignored it, or it
    /// was too large to snapshot): never restored, never removed.
    Unknown {
        /// Why it is not known.
        why: String,
    },
}

impl State {
    /// True when two states are the same thing on disk, as far as undo
    /// cares: a file's bytes and mode, a directory, or nothing. Whether
    /// bytes are kept does not matter.
    pub(crate) fn same_as(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Absent, Self::Absent) | (Self::Dir { .. }, Self::Dir { .. }) => true,
            (
                Self::File {
                    digest: a,
                    mode: ma,
                    ..
                },
                Self::File {
                    digest: b,
                    mode: mb,
                    ..
                },
            ) => a == b && (ma & 0o777) == (mb & 0o777),
            (Self::Other { what: a }, Self::Other { what: b }) => a == b,
            // What an unknown state was cannot match anything.
            _ => false,
        }
    }

    /// A short description for people (`absent`, `file (12 bytes)`).
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Absent => "absent".to_owned(),
            Self::File { len, .. } => format!("file ({len} bytes)"),
            Self::Dir { .. } => "directory".to_owned(),
            Self::Other { what } => what.clone(),
            Self::Unknown { .. } => "unknown".to_owned(),
        }
    }
}

/// Who made a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Source {
    /// A file tool, saved before it acted.
    Tool,
    /// A command, seen by comparing two git snapshots.
    Command,
}

/// One path in one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// What was there before the turn touched it.
    pub(crate) before: State,
    /// What the turn left (`None` when the turn never finished: oy was
    /// killed in the middle of it).
    pub(crate) after: Option<State>,
    /// Order of saving within the session (a tool's save versus the
    /// turn's git snapshot).
    pub(crate) seq: u64,
    pub(crate) source: Source,
}

/// What became of a turn's commands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Commands {
    /// The turn ran no command.
    #[default]
    None,
    /// Snapshots of the working tree before the first command and at the
    /// end of the turn, as tree ids in oy's own object directory.
    Git {
        /// The tree before the first command.
        before_tree: String,
        /// The tree at the end of the turn.
        after_tree: Option<String>,
        /// The session's save order when the first snapshot was taken.
        seq: u64,
        /// Untracked files too large to snapshot (never restored, never
        /// removed).
        skipped: Vec<String>,
    },
    /// Commands ran, and what they changed cannot be undone: why.
    Untracked {
        /// Outside git, or what went wrong with git.
        why: String,
        /// True when the reason is only that the session's workspace is
        /// not in a git repository (nothing went wrong).
        #[serde(default)]
        outside_git: bool,
    },
}

/// Where a turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnState {
    /// Running (or oy died during it).
    Open,
    /// Finished; its changes are in the workspace.
    Closed,
    /// Undone; its changes were taken back.
    Undone,
}

/// A path whose change was seen but whose old bytes were not kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotKept {
    /// The path.
    pub path: String,
    /// Why (`12.0 MiB, over the 8.0 MiB a checkpoint keeps`).
    pub why: String,
}

/// One turn's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TurnRecord {
    pub(crate) turn: u64,
    pub(crate) state: TurnState,
    pub(crate) entries: BTreeMap<String, Entry>,
    #[serde(default)]
    pub(crate) commands: Commands,
    #[serde(default)]
    pub(crate) not_kept: Vec<NotKept>,
}

impl TurnRecord {
    pub(crate) fn new(turn: u64) -> Self {
        Self {
            turn,
            state: TurnState::Open,
            entries: BTreeMap::new(),
            commands: Commands::None,
            not_kept: Vec::new(),
        }
    }

    /// True when the turn changed (or may have changed) something.
    pub(crate) fn changed_anything(&self) -> bool {
        self.entries.values().any(|entry| match &entry.after {
            Some(after) => !after.same_as(&entry.before),
            None => true,
        }) || matches!(self.commands, Commands::Untracked { .. })
            || !self.not_kept.is_empty()
    }

    pub(crate) fn summary(&self) -> TurnSummary {
        let changed: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, entry)| match &entry.after {
                Some(after) => !after.same_as(&entry.before),
                None => true,
            })
            .map(|(path, _)| path.clone())
            .collect();
        TurnSummary {
            turn: self.turn,
            state: self.state,
            files: changed,
            commands: self.commands.clone(),
            not_kept: self.not_kept.clone(),
        }
    }
}

/// What a turn's checkpoint holds, for people and the event stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnSummary {
    /// The turn's number in the session.
    pub turn: u64,
    /// Where it stands.
    pub state: TurnState,
    /// The paths it changed, sorted.
    pub files: Vec<String>,
    /// What became of its commands.
    pub commands: Commands,
    /// Paths whose old bytes were too large (or otherwise not kept).
    pub not_kept: Vec<NotKept>,
}

/// The last undo, which can be redone once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RedoRecord {
    /// The turns it undid, newest first.
    pub(crate) turns: Vec<u64>,
}

/// The whole index file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Index {
    pub(crate) version: u32,
    pub(crate) turns: Vec<TurnRecord>,
    #[serde(default)]
    pub(crate) redo: Option<RedoRecord>,
    /// The next save order number.
    #[serde(default)]
    pub(crate) seq: u64,
    /// Bytes of blobs kept so far (the session's bound).
    #[serde(default)]
    pub(crate) kept_bytes: u64,
    /// The workspace was not in a git repository when the session first
    /// asked: its commands are never snapshotted, even when a command
    /// makes a repository later (whose excludes it would have written).
    #[serde(default)]
    pub(crate) outside_git: bool,
    /// Turns whose record could not be read back, with why.
    #[serde(skip)]
    pub(crate) unreadable: Vec<(u64, String)>,
}

impl Default for Index {
    fn default() -> Self {
        Self {
            version: INDEX_VERSION,
            turns: Vec::new(),
            redo: None,
            seq: 0,
            kept_bytes: 0,
            outside_git: false,
            unreadable: Vec::new(),
        }
    }
}
