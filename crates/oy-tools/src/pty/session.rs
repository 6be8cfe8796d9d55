//! `Session`: one `bash -c` command on its own pseudo-terminal — a reader
//! thread filling a bounded buffer, a writer thread feeding input, and the
//! process group (the child is a session leader) killed when it ends.
//! While a call collects its output, what arrives is also sent live.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize};
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};

use crate::cancel::CancelToken;
use crate::events::OutputStream;
use crate::process::live::{LiveSink, LiveTail, Ticker};
use crate::pty::buffer::{OutputBuffer, Rendered};
use crate::sandbox::Launched;

/// The terminal size a session's program sees.
const SIZE: PtySize = PtySize {
    rows: 24,
    cols: 80,
    pixel_width: 0,
    pixel_height: 0,
};
/// Chunks of input waiting for a process that does not read them.
const INPUT_QUEUE: usize = 8;
/// How often a wait looks at the process between output wake-ups.
const POLL: Duration = Duration::from_millis(10);
/// After the terminal closes, how long the process gets to exit by itself.
const EXIT_GRACE: Duration = Duration::from_millis(300);
/// After the process exits, how long its last output gets to arrive.
const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// How long a kill waits to reap the killed process.
const REAP_WAIT: Duration = Duration::from_secs(2);

/// How a session's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
    /// Someone else reaped it; the status is not known.
    Unknown,
}

/// A session's end, as reported to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ended {
    /// How the process ended.
    pub(crate) ending: Ending,
    /// True when the terminal closed while the process still ran, so it
    /// was killed.
    pub(crate) killed_after_eof: bool,
}

/// Output gathered by one call.
#[derive(Debug)]
pub(crate) struct Collected {
    /// `Some` when the process has ended (the session is then closed).
    pub(crate) ended: Option<Ended>,
    /// The output since the previous call.
    pub(crate) output: Rendered,
}

/// Why input could not be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SendError {
    /// Earlier input is still waiting: the process is not reading.
    Full,
    /// The session has ended.
    Closed,
}

#[derive(Debug)]
struct OutputState {
    buffer: OutputBuffer,
    /// What arrived since the last live delta (bounded).
    live: LiveTail,
    eof: bool,
}

/// The buffer the reader thread fills, and the signal it gives.
#[derive(Debug)]
struct Output {
    state: Mutex<OutputState>,
    changed: Condvar,
}

impl Output {
    fn lock(&self) -> MutexGuard<'_, OutputState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, bytes: &[u8]) {
        {
            let mut state = self.lock();
            state.buffer.push(bytes);
            state.live.push(bytes);
        }
        self.changed.notify_all();
    }

    /// Sends what arrived since the last delta; a character not complete
    /// yet waits, unless this is the `last` delta of the session.
    fn send_live(&self, sink: &dyn LiveSink, last: bool) {
        let taken = self.lock().live.take(last);
        if let Some((text, skipped)) = taken {
            sink.output(OutputStream::Stdout, text, skipped);
        }
    }

    fn finish(&self) {
        self.lock().eof = true;
        self.changed.notify_all();
    }

    fn at_eof(&self) -> bool {
        self.lock().eof
    }

    /// Waits up to `timeout` for new output or the end of the terminal.
    fn wait(&self, timeout: Duration) {
        let state = self.lock();
        if !state.eof {
            drop(
                self.changed
                    .wait_timeout(state, timeout)
                    .unwrap_or_else(PoisonError::into_inner),
            );
        }
    }

    /// Waits until the terminal reaches end of file, at most `timeout`.
    fn wait_eof(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let mut state = self.lock();
        while !state.eof {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return;
            };
            state = self
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// One live PTY session.
pub(crate) struct Session {
    id: u32,
    command: String,
    pid: Pid,
    /// The leader is the sandbox's supervisor: SIGTERM makes it kill every
    /// descendant (even those that left the group) before it exits.
    supervised: bool,
    /// Protected names checked when it is reaped and at every collect.
    watched: crate::sandbox::Watched,
    child: Mutex<Box<dyn Child + Send + Sync>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    input: Mutex<Option<SyncSender<Vec<u8>>>>,
    output: Arc<Output>,
    ended: Mutex<Option<Ended>>,
    reaped: AtomicBool,
    in_use: AtomicBool,
    last_used_at: Mutex<Instant>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("pid", &self.pid)
            .field("command", &self.command)
            .finish_non_exhaustive()
    }
}

fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    /// Starts `launched` (the launcher wrapping `bash -c command`, or
    /// bash itself without a sandbox) on a new PTY. The child is a session
    /// leader with the PTY as its controlling terminal, so its process
    /// group — or, supervised, its supervisor — is what a kill takes down.
    pub(crate) fn spawn(
        id: u32,
        command: &str,
        launched: &Launched,
        buffer: OutputBuffer,
    ) -> Result<Self, String> {
        let pair = portable_pty::native_pty_system()
            .openpty(SIZE)
            .map_err(|error| format!("could not open a pseudo-terminal: {error:#}"))?;
        let mut builder = CommandBuilder::new(&launched.program);
        builder.env_clear();
        for (name, value) in &launched.env {
            builder.env(name, value);
        }
        builder.args(&launched.args);
        builder.cwd(launched.cwd.as_os_str());
        let child = pair
            .slave
            .spawn_command(builder)
            .map_err(|error| format!("could not start bash: {error:#}"))?;
        // Only the child holds the terminal's other end now, so the reader
        // sees end of file once every process on it is gone.
        drop(pair.slave);
        let pid = child
            .process_id()
            .and_then(|pid| i32::try_from(pid).ok())
            .and_then(Pid::from_raw);
        let Some(pid) = pid else {
            // Not expected on Unix; without a pid nothing could be killed.
            let mut child = child;
            let _ = child.kill();
            let _ = child.wait();
            return Err("the started process has no process id".to_owned());
        };
        let session = Self {
            id,
            command: command.to_owned(),
            pid,
            supervised: launched.supervised,
            watched: launched.watched.clone(),
            child: Mutex::new(child),
            master: Mutex::new(pair.master),
            input: Mutex::new(None),
            output: Arc::new(Output {
                state: Mutex::new(OutputState {
                    buffer,
                    live: LiveTail::default(),
                    eof: false,
                }),
                changed: Condvar::new(),
            }),
            ended: Mutex::new(None),
            reaped: AtomicBool::new(false),
            in_use: AtomicBool::new(true),
            last_used_at: Mutex::new(Instant::now()),
        };
        // From here on, dropping `session` kills and reaps the process.
        session.start_threads()?;
        Ok(session)
    }

    fn start_threads(&self) -> Result<(), String> {
        let (reader, writer) = {
            let master = lock(&self.master);
            let reader = master
                .try_clone_reader()
                .map_err(|error| format!("could not read the terminal: {error:#}"))?;
            let writer = master
                .take_writer()
                .map_err(|error| format!("could not write to the terminal: {error:#}"))?;
            (reader, writer)
        };
        let output = Arc::clone(&self.output);
        thread::Builder::new()
            .name(format!("oy-pty-{}-out", self.id))
            .spawn(move || read_loop(reader, &output))
            .map_err(|error| format!("could not start the output thread: {error}"))?;
        let (sender, receiver) = mpsc::sync_channel::<Vec<u8>>(INPUT_QUEUE);
        thread::Builder::new()
            .name(format!("oy-pty-{}-in", self.id))
            .spawn(move || write_loop(writer, &receiver))
            .map_err(|error| format!("could not start the input thread: {error}"))?;
        *lock(&self.input) = Some(sender);
        Ok(())
    }

    /// The session's id.
    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    /// The command it runs.
    pub(crate) fn command(&self) -> &str {
        &self.command
    }

    /// When a call last finished with it.
    pub(crate) fn last_used_at(&self) -> Instant {
        *lock(&self.last_used_at)
    }

    /// True while a call is using it (such a session is never reaped).
    pub(crate) fn is_in_use(&self) -> bool {
        self.in_use.load(Ordering::SeqCst)
    }

    /// Marks it used by a call until the guard drops.
    pub(crate) fn claim(&self) -> Claim<'_> {
        self.in_use.store(true, Ordering::SeqCst);
        Claim(self)
    }

    /// Queues `bytes` for the process's terminal without blocking.
    pub(crate) fn send(&self, bytes: Vec<u8>) -> Result<(), SendError> {
        let input = lock(&self.input);
        let Some(sender) = input.as_ref() else {
            return Err(SendError::Closed);
        };
        sender.try_send(bytes).map_err(|error| match error {
            TrySendError::Full(_) => SendError::Full,
            TrySendError::Disconnected(_) => SendError::Closed,
        })
    }

    /// Gathers output for up to `wait` (less if the process ends or
    /// `cancel` fires), then takes it within `max_bytes`; sends it to
    /// `live` as it arrives (paced like a command's, see
    /// [`crate::process::live`]).
    pub(crate) fn collect(
        &self,
        wait: Duration,
        cancel: &CancelToken,
        max_bytes: usize,
        live: Option<&dyn LiveSink>,
    ) -> Collected {
        let deadline = Instant::now() + wait;
        let mut ticker = Ticker::new();
        let ended = loop {
            if let Some(sink) = live
                && ticker.due()
            {
                self.output.send_live(sink, false);
            }
            if let Some(ended) = self.check_ended() {
                break Some(ended);
            }
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break None;
            };
            if left.is_zero() || cancel.is_cancelled() {
                break None;
            }
            self.output.wait(left.min(POLL));
        };
        if let Some(sink) = live {
            self.output.send_live(sink, ended.is_some());
        }
        let output = self.output.lock().buffer.take(max_bytes, ended.is_none());
        Collected { ended, output }
    }

    /// `Some` once the process has ended; the first time, finishes the
    /// session: kills what is left of its process group, lets the last
    /// output arrive, and reaps it.
    fn check_ended(&self) -> Option<Ended> {
        let mut ended = lock(&self.ended);
        if let Some(ended) = *ended {
            return Some(ended);
        }
        let mut status = self.peek_exit();
        let mut killed_after_eof = false;
        if status.is_none() && self.output.at_eof() {
            status = self.wait_exit(EXIT_GRACE);
            if status.is_none() {
                killed_after_eof = true;
                self.signal_groups();
                status = self.wait_exit(REAP_WAIT);
            }
        }
        let ending = status?;
        // The leader is a zombie until reaped, so its group id cannot be
        // reused yet: anything it left running in the group goes now.
        self.signal_groups();
        self.output.wait_eof(DRAIN_GRACE);
        self.close_input();
        self.reap(Duration::ZERO);
        let done = Ended {
            ending,
            killed_after_eof,
        };
        *ended = Some(done);
        Some(done)
    }

    /// The leader's status if it has exited, without reaping it.
    fn peek_exit(&self) -> Option<Ending> {
        if self.reaped.load(Ordering::SeqCst) {
            return Some(Ending::Unknown);
        }
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match rustix::process::waitid(WaitId::Pid(self.pid), options) {
            Ok(Some(status)) => Some(
                status
                    .exit_status()
                    .map(Ending::Code)
                    .or_else(|| status.terminating_signal().map(Ending::Signal))
                    .unwrap_or(Ending::Unknown),
            ),
            Ok(None) => None,
            // ECHILD: someone else reaped it, so its id may already be
            // reused: never signal it again.
            Err(_) => {
                self.reaped.store(true, Ordering::SeqCst);
                Some(Ending::Unknown)
            }
        }
    }

    fn wait_exit(&self, timeout: Duration) -> Option<Ending> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(ending) = self.peek_exit() {
                return Some(ending);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// SIGKILL to the leader's process group and to the terminal's
    /// foreground group when that differs — never once the leader is
    /// reaped, when its id may belong to someone else.
    pub(crate) fn signal_groups(&self) {
        if self.reaped.load(Ordering::SeqCst) {
            return;
        }
        if self.supervised {
            let _ = rustix::process::kill_process(self.pid, Signal::TERM);
            return;
        }
        self.kill_groups();
    }

    fn kill_groups(&self) {
        if self.reaped.load(Ordering::SeqCst) {
            return;
        }
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
        let foreground = lock(&self.master)
            .process_group_leader()
            .and_then(Pid::from_raw);
        if let Some(group) = foreground
            && group != self.pid
        {
            let _ = rustix::process::kill_process_group(group, Signal::KILL);
        }
    }

    fn close_input(&self) {
        lock(&self.input).take();
    }

    /// Reaps the leader, waiting up to `timeout` for it to exit.
    pub(crate) fn reap(&self, timeout: Duration) {
        if self.reaped.load(Ordering::SeqCst) {
            return;
        }
        let deadline = Instant::now() + timeout;
        let mut child = lock(&self.child);
        loop {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => {
                    self.reaped.store(true, Ordering::SeqCst);
                    // The supervisor exits only once every process of the
                    // session is gone: nothing can make these again now.
                    let _ = self.watched.undo();
                    return;
                }
                Ok(None) if Instant::now() < deadline => {
                    thread::sleep(Duration::from_millis(5));
                }
                Ok(None) => return,
            }
        }
    }

    /// Removes protected paths the session's processes created (checked at
    /// every call that collects its output) and says so.
    pub(crate) fn undo_protected(&self) -> Option<String> {
        self.watched.undo()
    }

    /// Kills the process group and reaps the leader (bounded wait).
    pub(crate) fn kill(&self) {
        self.signal_groups();
        self.close_input();
        self.reap(REAP_WAIT);
        if !self.reaped.load(Ordering::SeqCst) {
            // A supervisor that did not finish in time: take the group.
            self.kill_groups();
            self.reap(REAP_WAIT);
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A call's hold on a session; releasing it records the time of use.
pub(crate) struct Claim<'a>(&'a Session);

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        *lock(&self.0.last_used_at) = Instant::now();
        self.0.in_use.store(false, Ordering::SeqCst);
    }
}

fn read_loop(mut reader: Box<dyn Read + Send>, output: &Output) {
    let mut chunk = [0_u8; 8192];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => output.push(&chunk[..read]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    output.finish();
}

fn write_loop(mut writer: Box<dyn Write + Send>, input: &mpsc::Receiver<Vec<u8>>) {
    for bytes in input {
        if writer
            .write_all(&bytes)
            .and_then(|()| writer.flush())
            .is_err()
        {
            break;
        }
    }
}
