//! `PtySessions`: the live `exec_command` sessions of one `ToolContext` —
//! at most [`MAX_SESSIONS`], the oldest idle one reaped to make room, and
//! every process group killed when the context is dropped.

mod buffer;
mod session;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

pub(crate) use buffer::OutputBuffer;
pub(crate) use session::{Collected, Ended, Ending, SendError, Session};

use crate::error::ToolError;
use crate::sandbox::Launched;

/// Most sessions alive at once per context.
pub(crate) const MAX_SESSIONS: usize = 16;
/// Longest a call waits for output.
pub(crate) const MAX_YIELD: Duration = Duration::from_secs(30);
/// Default wait for output.
pub(crate) const DEFAULT_YIELD_MS: u64 = 250;
/// Default output budget in tokens.
pub(crate) const DEFAULT_OUTPUT_TOKENS: u64 = 8000;
/// Largest output budget in tokens (keeps a result under the 64 KiB cap).
pub(crate) const MAX_OUTPUT_TOKENS: u64 = 15_000;
/// Bytes counted per token.
pub(crate) const BYTES_PER_TOKEN: u64 = 4;
/// Largest input one `write_stdin` call may send.
pub(crate) const MAX_INPUT_BYTES: usize = 64 * 1024;

/// Unread output a session keeps between calls: the first and the last
/// bytes, a little more than the largest budget so a cut always shows.
const KEPT_HALF: usize = (MAX_OUTPUT_TOKENS * BYTES_PER_TOKEN) as usize / 2 + 1024;

/// The output budget in bytes for a `max_output_tokens` argument.
pub(crate) fn output_bytes(max_output_tokens: u64) -> usize {
    let tokens = max_output_tokens.clamp(1, MAX_OUTPUT_TOKENS);
    usize::try_from(tokens * BYTES_PER_TOKEN).unwrap_or(usize::MAX)
}

/// The wait for a `yield_time_ms` argument.
pub(crate) fn yield_time(yield_time_ms: u64) -> Duration {
    Duration::from_millis(yield_time_ms).min(MAX_YIELD)
}

/// A session that was closed to make room for a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reaped {
    /// Its id.
    pub(crate) id: u32,
}

#[derive(Debug, Default)]
struct Table {
    last_id: u32,
    live: BTreeMap<u32, Arc<Session>>,
}

/// The live sessions. Dropping it kills every session's process group.
#[derive(Debug, Default)]
pub(crate) struct PtySessions {
    table: Arc<Mutex<Table>>,
}

/// A handle that kills every live PTY session's process group from
/// anywhere (a signal thread about to exit the process without unwinding).
/// The default one has no sessions (a command that starts none).
#[derive(Debug, Clone, Default)]
pub struct ChildKiller {
    table: Arc<Mutex<Table>>,
}

impl ChildKiller {
    /// Sends SIGKILL to every live session's process group. Sessions stay
    /// listed; the owning context reaps them when it is dropped.
    pub fn kill_all(&self) {
        let table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        for session in table.live.values() {
            session.signal_groups();
        }
    }
}

impl PtySessions {
    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A handle for killing every session from another thread.
    pub(crate) fn killer(&self) -> ChildKiller {
        ChildKiller {
            table: Arc::clone(&self.table),
        }
    }

    /// Starts `launched` (`bash -c command`, wrapped by the sandbox) on a
    /// new terminal. When [`MAX_SESSIONS`] are alive, the one idle the
    /// longest is killed to make room and returned as [`Reaped`].
    pub(crate) fn start(
        &self,
        command: &str,
        launched: &Launched,
    ) -> Result<(Arc<Session>, Option<Reaped>), ToolError> {
        let id = {
            let mut table = self.table();
            if table.live.len() >= MAX_SESSIONS && oldest_idle(&table).is_none() {
                return Err(ToolError::failed(
                    format!("all {MAX_SESSIONS} PTY sessions are busy"),
                    "wait for a running call to finish, or end a session (write_stdin \"\\u0003\" or \"\\u0004\")",
                ));
            }
            table.last_id = table.last_id.wrapping_add(1).max(1);
            table.last_id
        };
        let buffer = OutputBuffer::new(KEPT_HALF, KEPT_HALF);
        let session = Session::spawn(id, command, launched, buffer).map_err(|message| {
            ToolError::failed(
                message,
                "check that bash is installed and on PATH, then retry; `bash` runs commands without a terminal",
            )
        })?;
        let session = Arc::new(session);
        let reaped = {
            let mut table = self.table();
            let reaped = if table.live.len() >= MAX_SESSIONS {
                oldest_idle(&table).and_then(|old| table.live.remove(&old))
            } else {
                None
            };
            table.live.insert(id, Arc::clone(&session));
            reaped
        };
        let reaped = reaped.map(|old| {
            old.kill();
            Reaped { id: old.id() }
        });
        Ok((session, reaped))
    }

    /// The live session `id`.
    pub(crate) fn get(&self, id: u32) -> Option<Arc<Session>> {
        self.table().live.get(&id).cloned()
    }

    /// Forgets session `id` (its process has ended and was reaped).
    pub(crate) fn remove(&self, id: u32) {
        let removed = self.table().live.remove(&id);
        drop(removed);
    }
}

fn oldest_idle(table: &Table) -> Option<u32> {
    table
        .live
        .values()
        .filter(|session| !session.is_in_use())
        .min_by_key(|session| session.last_used_at())
        .map(|session| session.id())
}

impl Drop for PtySessions {
    /// Kills every process group first (so they all die at once), then
    /// reaps each leader within one shared, bounded wait.
    fn drop(&mut self) {
        let live = std::mem::take(&mut self.table().live);
        for session in live.values() {
            session.signal_groups();
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        for session in live.values() {
            session.reap(deadline.saturating_duration_since(Instant::now()));
        }
    }
}
