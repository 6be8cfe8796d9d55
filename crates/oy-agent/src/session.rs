//! Saved sessions: versioned JSONL files in a directory the
//! frontend chooses (`$XDG_DATA_HOME/oy/sessions`), rewritten whole and
//! atomically (temp, fsync, rename) with mode 0600 through `oy-boundary`,
//! so a crash mid-write leaves the previous version intact.
//!
//! File layout, one JSON object per line: a `header` first, then the
//! uncompacted `history` entries, the working `context` entries, and one
//! `tool_state` record.

use std::path::Path;
use std::time::SystemTime;

use oy_boundary::{BoundaryError, LineWindow, WalkOptions, Workspace};
use oy_tools::ToolState;
use serde::{Deserialize, Serialize};

use crate::error::AgentError;
use crate::transcript::Entry;

/// The format version this build writes and reads.
pub const SESSION_VERSION: u32 = 1;

/// Session files larger than this are refused rather than read.
const MAX_SESSION_BYTES: u64 = 256 * 1024 * 1024;

/// The first line of a session file: what `oy sessions` lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionHeader {
    /// The format version.
    pub version: u32,
    /// The id (`oy run --resume ID`).
    pub id: String,
    /// The workspace root it belongs to; resuming elsewhere is refused.
    pub workspace: String,
    /// When it began (RFC 3339, UTC).
    pub created_at: String,
    /// When it was last saved.
    pub updated_at: String,
    /// The provider's short name at the last save.
    #[serde(default)]
    pub provider: String,
    /// The model at the last save.
    #[serde(default)]
    pub model: String,
    /// The mode at the last save — informational only: a resumed session
    /// runs in the mode the user gives now.
    #[serde(default)]
    pub mode: String,
    /// The first prompt, shortened: a title for listings.
    #[serde(default)]
    pub title: String,
    /// Turns taken.
    #[serde(default)]
    pub turns: u64,
}

impl SessionHeader {
    /// A header for a new session in `workspace`.
    pub fn new(id: String, workspace: String) -> Self {
        let now = timestamp();
        Self {
            version: SESSION_VERSION,
            id,
            workspace,
            created_at: now.clone(),
            updated_at: now,
            provider: String::new(),
            model: String::new(),
            mode: String::new(),
            title: String::new(),
            turns: 0,
        }
    }

    pub(crate) fn touch(&mut self) {
        self.updated_at = timestamp();
    }
}

/// A whole saved session.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedSession {
    /// The header.
    pub header: SessionHeader,
    /// Every entry ever, uncompacted, with full tool output.
    pub history: Vec<Entry>,
    /// The working (possibly compacted) transcript.
    pub context: Vec<Entry>,
    /// The tools' state (read records, todos).
    pub tool_state: ToolState,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Record {
    Header(SessionHeader),
    History { entry: Entry },
    Context { entry: Entry },
    ToolState { state: ToolState },
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum RecordRef<'a> {
    Header(&'a SessionHeader),
    History { entry: &'a Entry },
    Context { entry: &'a Entry },
    ToolState { state: &'a ToolState },
}

/// The directory of saved sessions.
#[derive(Debug)]
pub struct SessionStore {
    dir: Workspace,
}

impl SessionStore {
    /// Opens the existing directory `dir` (the frontend creates it).
    pub fn open(dir: &Path) -> Result<Self, AgentError> {
        Ok(Self {
            dir: Workspace::open(dir)?,
        })
    }

    /// The directory, as a workspace of its own.
    pub(crate) fn dir(&self) -> &Workspace {
        &self.dir
    }

    /// Writes `session` atomically, mode 0600.
    pub fn save(&self, session: &SavedSession) -> Result<(), AgentError> {
        check_id(&session.header.id)?;
        let mut text = String::new();
        let mut line = |record: RecordRef<'_>| -> Result<(), AgentError> {
            let json = serde_json::to_string(&record).map_err(|error| {
                AgentError::session(format!("cannot encode the session: {error}"))
            })?;
            text.push_str(&json);
            text.push('\n');
            Ok(())
        };
        line(RecordRef::Header(&session.header))?;
        for entry in &session.history {
            line(RecordRef::History { entry })?;
        }
        for entry in &session.context {
            line(RecordRef::Context { entry })?;
        }
        line(RecordRef::ToolState {
            state: &session.tool_state,
        })?;
        let path = self.dir.path(file_name(&session.header.id))?;
        self.dir.write_private(&path, text.as_bytes())?;
        Ok(())
    }

    /// Loads the session `id`.
    pub fn load(&self, id: &str) -> Result<SavedSession, AgentError> {
        check_id(id)?;
        let path = self.dir.path(file_name(id))?;
        let text = match self.dir.read_text(&path, MAX_SESSION_BYTES) {
            Ok(text) => text,
            Err(BoundaryError::NotFound { .. }) => {
                return Err(AgentError::session(format!(
                    "no saved session `{id}`; `oy sessions` lists them"
                )));
            }
            Err(error) => return Err(error.into()),
        };
        parse(id, &text)
    }

    /// Every session's header, newest first. Unreadable files are skipped.
    pub fn list(&self) -> Result<Vec<SessionHeader>, AgentError> {
        let root = self.dir.path(".")?;
        let mut options = WalkOptions::new(root);
        options.max_depth = Some(1);
        options.respect_ignore_files = false;
        let walk = self.dir.walk(&options)?;
        let mut headers: Vec<SessionHeader> = walk
            .entries
            .iter()
            .filter(|entry| entry.path.to_string().ends_with(".jsonl"))
            .filter_map(|entry| {
                let window = LineWindow {
                    offset: 1,
                    limit: 1,
                    max_line_bytes: 64 * 1024,
                    max_total_bytes: 64 * 1024,
                };
                let slice = self.dir.read_lines(&entry.path, window).ok()?;
                let first = slice.lines.first()?;
                match serde_json::from_str::<Record>(&first.text).ok()? {
                    Record::Header(header) => Some(header),
                    _ => None,
                }
            })
            .collect();
        headers.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
        Ok(headers)
    }

    /// The most recently saved session of `workspace` (`--continue`).
    pub fn latest_for(&self, workspace: &str) -> Result<Option<SessionHeader>, AgentError> {
        Ok(self
            .list()?
            .into_iter()
            .find(|header| header.workspace == workspace))
    }
}

fn parse(id: &str, text: &str) -> Result<SavedSession, AgentError> {
    let damaged = |line: usize, why: String| {
        AgentError::session(format!(
            "session `{id}` is damaged at line {line} ({why}); start a new session"
        ))
    };
    let mut header = None;
    let mut history = Vec::new();
    let mut context = Vec::new();
    let mut tool_state = ToolState::default();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if index == 0 {
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|error| damaged(1, error.to_string()))?;
            let version = value.get("version").and_then(serde_json::Value::as_u64);
            if version.is_some_and(|version| version > u64::from(SESSION_VERSION)) {
                return Err(AgentError::session(format!(
                    "session `{id}` was saved by a newer oy (format {}); update oy to resume it",
                    version.unwrap_or_default()
                )));
            }
        }
        let record: Record =
            serde_json::from_str(line).map_err(|error| damaged(index + 1, error.to_string()))?;
        match record {
            Record::Header(found) if index == 0 => header = Some(found),
            Record::Header(_) => return Err(damaged(index + 1, "a second header".to_owned())),
            Record::History { entry } => history.push(entry),
            Record::Context { entry } => context.push(entry),
            Record::ToolState { state } => tool_state = state,
        }
    }
    let header = header.ok_or_else(|| damaged(1, "no header".to_owned()))?;
    if header.id != id {
        return Err(damaged(1, format!("it names itself `{}`", header.id)));
    }
    Ok(SavedSession {
        header,
        history,
        context,
        tool_state,
    })
}

fn file_name(id: &str) -> String {
    format!("{id}.jsonl")
}

pub(crate) fn check_id(id: &str) -> Result<(), AgentError> {
    let valid = !id.is_empty()
        && id.len() <= 100
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if valid {
        Ok(())
    } else {
        Err(AgentError::session(format!(
            "`{id}` is not a session id; `oy sessions` lists them"
        )))
    }
}

/// A new id: UTC date and time plus eight random hex digits
/// (`20261122-041503-a1f3c07e`), sortable, short enough to type, and
/// unlikely to collide between runs started in the same second.
pub fn new_session_id() -> String {
    let stamp = timestamp();
    let digits: String = stamp
        .chars()
        .filter(char::is_ascii_digit)
        .take(14)
        .collect();
    let (date, time) = digits.split_at(digits.len().min(8));
    format!("{date}-{time}-{:08x}", fastrand::u32(..))
}

fn timestamp() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}
