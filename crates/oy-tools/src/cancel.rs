//! `CancelToken`: how a frontend tells running tools to stop (Ctrl-C, a
//! cancelled turn). Child-process tools poll it and kill their process
//! group when it fires; cancellation is reported like a timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A shared "stop now" flag. Cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fires the token: every holder sees it.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Re-arms the token for the next turn (a chat goes on after Ctrl-C
    /// cancelled one turn). Only the frontend that owns the turn calls it,
    /// once nothing of the cancelled turn is still running.
    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }

    /// True once [`Self::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}
