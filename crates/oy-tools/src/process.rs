//! Running one child process for a tool call (`bash`, `exec`): spawned in
//! its own process group with a closed or fed stdin, stdout and stderr read
//! concurrently into bounded head + tail captures, a deadline and the
//! context's cancel token polled, and the whole group killed at the end —
//! so neither a timeout, a cancellation, a stray background job nor an
//! unwinding tool leaves a process behind.
//!
//! Returning never waits for the pipes to reach end-of-file: a process that
//! left the group (`setsid`) and still holds a pipe is abandoned to its
//! reader thread after a short grace, with the output read so far.
//!
//! With a [`LiveSink`], the watcher also sends what each stream printed as
//! it runs, paced and bounded at the source (see [`live`]), and a last
//! delta with what is left before returning.

mod capture;
mod group;
mod launch;
pub(crate) mod live;

use std::io::{self, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::cancel::CancelToken;
use crate::events::{CallStatus, OutputStream};
use crate::limit::Limit;
use capture::{Capture, SharedCapture, drain};
use group::Group;
use live::{LiveSink, Ticker};

pub(crate) use capture::STREAM_LIMIT;
pub(crate) use launch::{spawn_error, working_dir};

/// Longest pause between two checks of the child, the clock and the token.
const POLL: Duration = Duration::from_millis(20);

/// How long reader threads get to finish after the group was killed.
const READER_GRACE: Duration = Duration::from_millis(500);

/// Exit code reported for a timeout (as coreutils' `timeout`).
pub(crate) const TIMEOUT_EXIT: i32 = 124;

/// Exit code reported for a cancellation (128 + SIGINT).
pub(crate) const CANCEL_EXIT: i32 = 130;

/// One child to run.
pub(crate) struct Spawn<'a> {
    /// Program, arguments, working directory and environment, all set;
    /// stdio and the process group are set by [`run`].
    pub(crate) command: Command,
    /// Bytes written to the child's stdin before it is closed; `None`
    /// gives it a closed stdin (`/dev/null`).
    pub(crate) stdin: Option<Vec<u8>>,
    /// When to kill the group.
    pub(crate) timeout: Duration,
    /// Killing the group early when it fires.
    pub(crate) cancel: &'a CancelToken,
    /// The command is the sandbox's supervisor (see [`crate::sandbox`]),
    /// which makes its own session: no process group is set here, and it
    /// is stopped with SIGTERM so it can kill every descendant.
    pub(crate) supervised: bool,
    /// Where the output goes while it runs, if anywhere.
    pub(crate) live: Option<&'a dyn LiveSink>,
}

/// How the child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// A signal it did not get from us ended it.
    Signaled(i32),
    /// The timeout passed; the group was killed.
    TimedOut,
    /// The cancel token fired; the group was killed.
    Cancelled,
}

impl Ending {
    /// The exit code to report: the child's own, 128 + a signal, 124 for
    /// a timeout, 130 for a cancellation.
    pub(crate) fn exit_code(self) -> i32 {
        match self {
            Self::Exited(code) => code,
            Self::Signaled(signal) => 128 + signal,
            Self::TimedOut => TIMEOUT_EXIT,
            Self::Cancelled => CANCEL_EXIT,
        }
    }

    /// How a call that ran the child ended: `cancelled` or `timed_out`
    /// when oy stopped it, else `ok` (the exit code says the rest).
    pub(crate) fn status(self) -> CallStatus {
        match self {
            Self::TimedOut => CallStatus::TimedOut,
            Self::Cancelled => CallStatus::Cancelled,
            Self::Exited(_) | Self::Signaled(_) => CallStatus::Ok,
        }
    }

    fn from_status(status: ExitStatus) -> Self {
        match (status.code(), status.signal()) {
            (Some(code), _) => Self::Exited(code),
            (None, Some(signal)) => Self::Signaled(signal),
            (None, None) => Self::Exited(-1),
        }
    }
}

/// One stream as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stream {
    /// Head + marker + tail, or the whole text.
    pub(crate) text: String,
    /// True when the middle was cut.
    pub(crate) truncated: bool,
}

/// What a finished child left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finished {
    /// How it ended.
    pub(crate) ending: Ending,
    /// Its stdout, capped at [`STREAM_LIMIT`].
    pub(crate) stdout: Stream,
    /// Its stderr, capped at [`STREAM_LIMIT`].
    pub(crate) stderr: Stream,
    /// From spawn to reap.
    pub(crate) duration: Duration,
}

/// Runs `spawn` to its end, its timeout or its cancellation. `Err` only
/// when it could not be started or watched (the caller names the cause:
/// `NotFound` means no such program); every way the child ends is `Ok`.
pub(crate) fn run(spawn: Spawn<'_>) -> io::Result<Finished> {
    let Spawn {
        mut command,
        stdin,
        timeout,
        cancel,
        supervised,
        live,
    } = spawn;
    if cancel.is_cancelled() {
        // Already stopped: start nothing.
        let empty = || Stream {
            text: String::new(),
            truncated: false,
        };
        return Ok(Finished {
            ending: Ending::Cancelled,
            stdout: empty(),
            stderr: empty(),
            duration: Duration::ZERO,
        });
    }
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !supervised {
        command.process_group(0);
    }
    let started = Instant::now();
    // From here on the guard kills the group if anything returns early or
    // unwinds.
    let mut group = Group::new(command.spawn()?, supervised);
    let capture = || -> SharedCapture {
        let capture = if live.is_some() {
            Capture::with_live()
        } else {
            Capture::default()
        };
        std::sync::Arc::new(std::sync::Mutex::new(capture))
    };
    let (stdout, stderr) = (capture(), capture());
    let mut readers = Vec::with_capacity(2);
    if let Some(pipe) = group.child_mut().stdout.take() {
        readers.push(reader("oy-child-stdout", pipe, &stdout)?);
    }
    if let Some(pipe) = group.child_mut().stderr.take() {
        readers.push(reader("oy-child-stderr", pipe, &stderr)?);
    }
    if let (Some(input), Some(mut pipe)) = (stdin, group.child_mut().stdin.take()) {
        // On its own thread, so a child that never reads cannot block us;
        // the write fails (EPIPE) once the group is dead, ending the thread.
        thread::Builder::new()
            .name("oy-child-stdin".to_owned())
            .spawn(move || {
                let _ = pipe.write_all(&input);
            })?;
    }
    let mut ticker = Ticker::new();
    let stopped = watch(&group, timeout, cancel, started, &mut || {
        if let Some(sink) = live
            && ticker.due()
        {
            send_live(sink, &stdout, &stderr, false);
        }
    })?;
    // Also after a normal exit: background jobs do not outlive the call.
    group.kill();
    let status = group.reap()?;
    let duration = started.elapsed();
    join_bounded(readers, READER_GRACE);
    if let Some(sink) = live {
        send_live(sink, &stdout, &stderr, true);
    }
    Ok(Finished {
        ending: stopped.unwrap_or_else(|| Ending::from_status(status)),
        stdout: render(&stdout, STREAM_LIMIT),
        stderr: render(&stderr, STREAM_LIMIT),
        duration,
    })
}

/// Waits until the leader exits (`None`), the timeout passes or the token
/// fires (the reason), calling `tick` at every check.
fn watch(
    group: &Group,
    timeout: Duration,
    cancel: &CancelToken,
    started: Instant,
    tick: &mut dyn FnMut(),
) -> io::Result<Option<Ending>> {
    let mut pause = Duration::from_millis(1);
    loop {
        tick();
        if group.has_exited()? {
            return Ok(None);
        }
        if cancel.is_cancelled() {
            return Ok(Some(Ending::Cancelled));
        }
        let elapsed = started.elapsed();
        if elapsed >= timeout {
            return Ok(Some(Ending::TimedOut));
        }
        thread::sleep(pause.min(timeout - elapsed));
        pause = (pause * 2).min(POLL);
    }
}

/// Sends each stream's output read since its last delta (stdout first);
/// the `last` delta ends live output.
fn send_live(sink: &dyn LiveSink, stdout: &SharedCapture, stderr: &SharedCapture, last: bool) {
    for (stream, capture) in [
        (OutputStream::Stdout, stdout),
        (OutputStream::Stderr, stderr),
    ] {
        // The lock is dropped before the sink runs, so a slow sink never
        // holds up the reader thread.
        let taken = capture
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take_live(last);
        if let Some((text, skipped)) = taken {
            sink.output(stream, text, skipped);
        }
    }
}

fn reader(
    name: &str,
    pipe: impl io::Read + Send + 'static,
    capture: &SharedCapture,
) -> io::Result<JoinHandle<()>> {
    let capture = SharedCapture::clone(capture);
    thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || drain(pipe, &capture))
}

/// Joins the readers that finish within `grace`; the rest are left to end
/// on their own (their captures are read as they stand).
fn join_bounded(readers: Vec<JoinHandle<()>>, grace: Duration) {
    let deadline = Instant::now() + grace;
    while readers.iter().any(|reader| !reader.is_finished()) && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(2));
    }
    for reader in readers {
        if reader.is_finished() {
            let _ = reader.join();
        }
    }
}

fn render(capture: &SharedCapture, cap: Limit) -> Stream {
    let (text, truncated) = capture
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .render(cap);
    Stream { text, truncated }
}
