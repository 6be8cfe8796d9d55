//! A session's side-effect ledger on disk (docs/crash-safety.md): while a
//! turn runs, every tool call that acts is recorded in `ID.ledger` beside
//! the session file, durably, before it acts and again when it ends; the
//! file is removed once the session — and so the turn — is saved. A ledger
//! still there when the session is resumed holds the effects of a turn
//! whose process died before it was saved: they are reported (the
//! `interrupted_turn` event) and told to the model, which would otherwise
//! not know that files may have changed.

use std::sync::Arc;

use oy_boundary::BoundaryError;
use oy_tools::{LedgerEntry, LedgerSink};

use crate::agent::Agent;
use crate::error::AgentError;
use crate::events::AgentEvent;
use crate::notes::ContextNote;
use crate::session::{SessionStore, check_id};

/// A ledger larger than this is not read back whole (a turn of many
/// thousands of calls): its end is what matters, and it is cut.
const MAX_LEDGER_BYTES: u64 = 16 * 1024 * 1024;

/// Calls named in the model's note, at most.
const NOTE_CALLS: usize = 50;

/// Writes a session's ledger entries to its store, durably.
pub(crate) struct LedgerFile {
    pub(crate) store: Arc<SessionStore>,
    pub(crate) id: String,
}

impl LedgerSink for LedgerFile {
    fn record(&mut self, entry: &LedgerEntry) {
        // The ledger must never fail a tool call; a record that cannot be
        // written is only lost for the report after a crash.
        let _ = self.store.append_ledger(&self.id, entry);
    }
}

fn ledger_name(id: &str) -> String {
    format!("{id}.ledger")
}

impl SessionStore {
    /// Appends `entry` to session `id`'s ledger (atomically, mode 0600).
    pub(crate) fn append_ledger(&self, id: &str, entry: &LedgerEntry) -> Result<(), AgentError> {
        check_id(id)?;
        let path = self.dir().path(ledger_name(id))?;
        let mut text = match self.dir().read_bytes(&path, MAX_LEDGER_BYTES) {
            Ok(text) => text,
            Err(BoundaryError::NotFound { .. }) => Vec::new(),
            Err(error) => return Err(error.into()),
        };
        let line = serde_json::to_string(entry)
            .map_err(|error| AgentError::session(format!("cannot encode the ledger: {error}")))?;
        text.extend_from_slice(line.as_bytes());
        text.push(b'\n');
        self.dir().write_private(&path, &text)?;
        Ok(())
    }

    /// The effects session `id`'s last run recorded and never saved: one
    /// entry per call, as it last stood. Empty when the last turn was saved
    /// (or nothing was recorded, or the ledger cannot be read).
    pub fn unsaved_effects(&self, id: &str) -> Vec<LedgerEntry> {
        let Ok(path) = check_id(id).and_then(|()| Ok(self.dir().path(ledger_name(id))?)) else {
            return Vec::new();
        };
        let Ok(text) = self.dir().read_text(&path, MAX_LEDGER_BYTES) else {
            return Vec::new();
        };
        let mut entries: Vec<LedgerEntry> = Vec::new();
        for entry in text
            .lines()
            .filter_map(|line| serde_json::from_str::<LedgerEntry>(line).ok())
        {
            // An outcome line follows its attempt: it replaces it.
            match entries
                .iter_mut()
                .find(|known| known.call_id == entry.call_id && known.turn == entry.turn)
            {
                Some(known) => *known = entry,
                None => entries.push(entry),
            }
        }
        entries
    }

    /// Forgets session `id`'s ledger: its turn is saved.
    pub(crate) fn clear_ledger(&self, id: &str) {
        if let Ok(path) = check_id(id).and_then(|()| Ok(self.dir().path(ledger_name(id))?)) {
            let _ = self.dir().remove(&path, false);
        }
    }
}

/// What the model reads about a turn that was cut off.
pub(crate) fn note_for(effects: &[LedgerEntry]) -> ContextNote {
    let mut text = String::from(
        "The previous run of this session stopped during a turn that is not in this conversation (oy was killed or crashed). These tool calls had started in it:\n",
    );
    for entry in effects.iter().take(NOTE_CALLS) {
        let outcome = outcome(entry);
        let unknown = if entry.succeeded.is_none() {
            ": it may or may not have acted"
        } else {
            ""
        };
        text.push_str(&format!("- {} ({outcome}{unknown})\n", entry.tool));
    }
    if effects.len() > NOTE_CALLS {
        text.push_str(&format!("- and {} more\n", effects.len() - NOTE_CALLS));
    }
    text.push_str(
        "Files may hold changes from them. Look at the workspace before relying on what you remember of it.",
    );
    ContextNote::new("interrupted", text)
}

/// How a recorded call ended, in a word or two.
fn outcome(entry: &LedgerEntry) -> &'static str {
    match entry.succeeded {
        Some(true) => "succeeded",
        Some(false) => "failed",
        None => "outcome unknown",
    }
}

/// One line for people about a resumed session's cut-off turn (the
/// `interrupted_turn` event's `effects`).
pub fn interrupted_turn_message(effects: &[LedgerEntry]) -> String {
    const SHOWN: usize = 8;
    let calls: Vec<String> = effects
        .iter()
        .take(SHOWN)
        .map(|entry| format!("{} ({})", entry.tool, outcome(entry)))
        .collect();
    let more = match effects.len().saturating_sub(SHOWN) {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    format!(
        "the last run of this session was stopped during a turn that was not saved, after these tool calls: {}{more}; files may hold their changes (the model is told)",
        calls.join(", ")
    )
}

impl Agent {
    /// Reports the effects of the resumed session's unsaved turn, once.
    pub(crate) fn report_unsaved(&mut self, effects: Vec<LedgerEntry>) {
        if effects.is_empty() {
            return;
        }
        self.add_context_note(note_for(&effects));
        self.emit(&AgentEvent::InterruptedTurn { effects });
    }
}
