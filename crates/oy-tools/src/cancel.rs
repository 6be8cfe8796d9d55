//! `CancelToken`: how a frontend tells a turn and its tools to stop (Ctrl-C,
//! a cancelled turn). Async code awaits [`CancelToken::cancelled`] in a
//! `select!`; a tool waiting on a child process checks
//! [`CancelToken::is_cancelled`] between its own waits and kills the
//! process group when it fires. Cancellation is reported like a timeout.

use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

/// A shared "stop now" signal. Cloning shares it.
///
/// It wraps tokio-util's [`CancellationToken`] so a wait is a future, not a
/// flag polled on a timer; the wrapper adds [`Self::reset`], because a chat
/// goes on after Ctrl-C cancelled one turn, and every holder (the signal
/// handler, the tool context, the agent) must see the next turn's token.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<Mutex<CancellationToken>>);

impl CancelToken {
    /// A token that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    fn current(&self) -> CancellationToken {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Fires the token: every holder sees it, every waiter wakes.
    pub fn cancel(&self) {
        self.current().cancel();
    }

    /// Re-arms the token for the next turn. Only the frontend that owns the
    /// turn calls it, once nothing of the cancelled turn is still running.
    pub fn reset(&self) {
        let mut current = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if current.is_cancelled() {
            *current = CancellationToken::new();
        }
    }

    /// True once [`Self::cancel`] was called (and not reset since).
    pub fn is_cancelled(&self) -> bool {
        self.current().is_cancelled()
    }

    /// Completes when the token fires; at once if it already has.
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        self.current().cancelled_owned()
    }

    /// The token of the current turn, for a library that takes tokio-util's
    /// type directly (the audit).
    pub fn token(&self) -> CancellationToken {
        self.current()
    }

    /// Awaits `future` unless the token fires first (`None`). A token that
    /// has already fired wins without polling `future`.
    pub async fn run_until_cancelled<F: Future>(&self, future: F) -> Option<F::Output> {
        let cancelled = self.cancelled();
        tokio::select! {
            biased;
            () = cancelled => None,
            output = future => Some(output),
        }
    }
}
