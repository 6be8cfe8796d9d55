//! Ctrl-C, SIGTERM and SIGHUP while a command runs: the first one fires the
//! tools' [`CancelToken`] — a running `bash`/`exec` call kills its process
//! group and returns — and the command then exits 130; another one more
//! than [`SECOND_SIGNAL_AFTER`] later kills every PTY session's process
//! group and exits at once.
//!
//! Commands run in their own process groups, so the terminal's Ctrl-C
//! reaches only oy: without this handler oy would die and leave them running.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use oy_tools::{CancelToken, ChildKiller};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};

/// A second signal sooner than this after the first is taken as the same
/// keypress repeated: the cancellation in flight gets to kill the group.
const SECOND_SIGNAL_AFTER: Duration = Duration::from_millis(500);

/// The installed handler; dropping it stops listening.
pub(crate) struct Interrupts {
    handle: Handle,
    interrupted: Arc<AtomicBool>,
    /// When the first signal of the current turn arrived.
    first: Arc<Mutex<Option<Instant>>>,
    /// A SIGTERM or SIGHUP arrived: the program should end, not just the turn.
    terminate: Arc<AtomicBool>,
    /// True while a chat waits at its prompt: a SIGTERM or SIGHUP then
    /// ends the program at once (the line editor would not return).
    idle: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Interrupts {
    /// Listens for SIGINT, SIGTERM and SIGHUP on a thread and fires
    /// `cancel` on the first one.
    pub(crate) fn install(cancel: CancelToken, killer: ChildKiller) -> Result<Self> {
        let mut signals =
            Signals::new([SIGINT, SIGTERM, SIGHUP]).context("cannot install signal handlers")?;
        let handle = signals.handle();
        let interrupted = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&interrupted);
        let first = Arc::new(Mutex::new(None::<Instant>));
        let first_seen = Arc::clone(&first);
        let terminate = Arc::new(AtomicBool::new(false));
        let terminate_seen = Arc::clone(&terminate);
        let idle = Arc::new(AtomicBool::new(false));
        let idle_seen = Arc::clone(&idle);
        let thread = std::thread::Builder::new()
            .name("oy-signals".to_owned())
            .spawn(move || {
                for signal in signals.forever() {
                    if signal != SIGINT {
                        terminate_seen.store(true, Ordering::SeqCst);
                        if idle_seen.load(Ordering::SeqCst) {
                            killer.kill_all();
                            std::process::exit(130);
                        }
                    }
                    let mut first = first_seen.lock().unwrap_or_else(PoisonError::into_inner);
                    match *first {
                        None => {
                            *first = Some(Instant::now());
                            seen.store(true, Ordering::SeqCst);
                            cancel.cancel();
                            notice(
                                "oy: interrupted; stopping (press Ctrl-C again to quit at once)",
                            );
                        }
                        Some(at) if at.elapsed() >= SECOND_SIGNAL_AFTER => {
                            // Exiting skips destructors: kill the PTY
                            // sessions' groups first so none outlives oy.
                            killer.kill_all();
                            notice("oy: quitting");
                            std::process::exit(130);
                        }
                        Some(_) => {}
                    }
                }
            })
            .context("cannot start the signal thread")?;
        Ok(Self {
            handle,
            interrupted,
            first,
            terminate,
            idle,
            thread: Some(thread),
        })
    }

    /// True once a SIGTERM or SIGHUP arrived: a chat ends after the turn.
    pub(crate) fn terminate_requested(&self) -> bool {
        self.terminate.load(Ordering::SeqCst)
    }

    /// Marks whether a chat is waiting at its prompt.
    pub(crate) fn set_idle(&self, idle: bool) {
        self.idle.store(idle, Ordering::SeqCst);
    }

    /// Re-arms after a cancelled chat turn: the next signal cancels the
    /// next turn instead of quitting. The caller resets the token too.
    pub(crate) fn rearm(&self) {
        *self.first.lock().unwrap_or_else(PoisonError::into_inner) = None;
        self.interrupted.store(false, Ordering::SeqCst);
    }

    /// True once a signal arrived.
    pub(crate) fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        self.handle.close();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[expect(
    clippy::print_stderr,
    reason = "a diagnostic for the person who pressed Ctrl-C"
)]
fn notice(text: &str) {
    eprintln!("{text}");
}
