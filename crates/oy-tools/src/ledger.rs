//! The side-effect ledger: a record of every mutating call attempted, so
//! the provider's retry gate can ask "has anything been attempted in this
//! turn?" and never replay a prompt after a side effect. Entries are keyed
//! by the provider's call id, so a side effect joins its transcript entry
//! and its events.

use std::io::Write;
use std::sync::Mutex;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One recorded attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// The provider's id for the call that attempted it (the transcript's
    /// and the events' `call_id`).
    pub call_id: String,
    /// The turn it happened in.
    pub turn: u64,
    /// The tool.
    pub tool: String,
    /// First 16 hex digits of the SHA-256 of the arguments' JSON.
    pub args_digest: String,
    /// When the attempt was recorded (before the tool acted).
    #[serde(with = "unix_millis")]
    pub attempted_at: SystemTime,
    /// `None` while running; then whether it succeeded.
    pub succeeded: Option<bool>,
}

/// Where entries are also written (for audit trails); the ledger itself
/// stays in memory.
pub trait LedgerSink: Send {
    /// Called when an entry is recorded and again when its outcome is known.
    fn record(&mut self, entry: &LedgerEntry);
}

/// A sink writing one JSON object per line to any writer.
pub struct JsonlSink<W: Write + Send> {
    writer: W,
}

impl<W: Write + Send> JsonlSink<W> {
    /// Wraps a writer (a file the frontend opened).
    pub fn new(writer: W) -> Self {
        Self { writer }
    }
}

impl<W: Write + Send> LedgerSink for JsonlSink<W> {
    fn record(&mut self, entry: &LedgerEntry) {
        // The ledger must never fail a tool call: a sink that cannot write loses lines.
        if let Ok(line) = serde_json::to_string(entry) {
            let _ = writeln!(self.writer, "{line}");
            let _ = self.writer.flush();
        }
    }
}

#[derive(Default)]
struct Inner {
    turn: u64,
    entries: Vec<LedgerEntry>,
    sink: Option<Box<dyn LedgerSink>>,
}

/// The ledger. Cheap to share behind an `Arc`.
#[derive(Default)]
pub struct Ledger {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("entries", &self.entries().len())
            .finish()
    }
}

impl Ledger {
    /// An empty in-memory ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty ledger that also writes every entry to `sink`.
    pub fn with_sink(sink: Box<dyn LedgerSink>) -> Self {
        Self {
            inner: Mutex::new(Inner {
                sink: Some(sink),
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A poisoned ledger still holds valid entries; keep using it.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts a new turn (a new prompt); returns its number.
    pub fn begin_turn(&self) -> u64 {
        let mut inner = self.lock();
        inner.turn += 1;
        inner.turn
    }

    /// Records that call `call_id` of `tool` is about to act with `args`.
    pub fn record_attempt(&self, call_id: &str, tool: &str, args: &Value) {
        let mut inner = self.lock();
        let entry = LedgerEntry {
            call_id: call_id.to_owned(),
            turn: inner.turn,
            tool: tool.to_owned(),
            args_digest: digest(args),
            attempted_at: SystemTime::now(),
            succeeded: None,
        };
        if let Some(sink) = inner.sink.as_mut() {
            sink.record(&entry);
        }
        inner.entries.push(entry);
    }

    /// Records how the current turn's attempts of call `call_id` ended.
    pub fn record_outcome(&self, call_id: &str, succeeded: bool) {
        let mut inner = self.lock();
        let Inner {
            turn,
            entries,
            sink,
        } = &mut *inner;
        let open = entries.iter_mut().filter(|entry| {
            entry.turn == *turn && entry.call_id == call_id && entry.succeeded.is_none()
        });
        for entry in open {
            entry.succeeded = Some(succeeded);
            if let Some(sink) = sink.as_mut() {
                sink.record(entry);
            }
        }
    }

    /// True when any side effect was attempted in the current turn —
    /// whether or not it succeeded. The retry gate asks exactly this.
    pub fn side_effect_attempted(&self) -> bool {
        let inner = self.lock();
        inner.entries.iter().any(|entry| entry.turn == inner.turn)
    }

    /// Every entry so far.
    pub fn entries(&self) -> Vec<LedgerEntry> {
        self.lock().entries.clone()
    }
}

fn digest(args: &Value) -> String {
    let hash = Sha256::digest(args.to_string().as_bytes());
    hash.iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

mod unix_millis {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    use serde::Deserialize as _;

    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<SystemTime, D::Error> {
        let millis = u64::deserialize(deserializer)?;
        Ok(UNIX_EPOCH + Duration::from_millis(millis))
    }

    pub(super) fn serialize<S: serde::Serializer>(
        time: &SystemTime,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let millis = time
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        serializer.serialize_u128(millis)
    }
}
