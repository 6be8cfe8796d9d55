//! A stdio server's process: spawned from the command the process sandbox
//! built (supervised and confined like a `bash` call), its stdin and stdout
//! the MCP transport, its stderr kept as a bounded tail for messages, and
//! stopped when oy drops it — the supervisor then kills every descendant.
//! If oy dies, the supervisor's parent-death signal does the same.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process, kill_process_group};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout};

/// Bytes of stderr kept (the end).
const STDERR_TAIL: usize = 4096;

/// How long a server gets to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// The last bytes a server wrote to stderr.
#[derive(Debug, Clone, Default)]
pub(crate) struct StderrTail(Arc<Mutex<Vec<u8>>>);

impl StderrTail {
    fn push(&self, bytes: &[u8]) {
        let mut tail = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        tail.extend_from_slice(bytes);
        if tail.len() > STDERR_TAIL {
            let cut = tail.len() - STDERR_TAIL;
            tail.drain(..cut);
        }
    }

    /// The tail as text, trimmed (untrusted: the frontend makes it
    /// terminal-safe).
    pub(crate) fn text(&self) -> String {
        let tail = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&tail).trim().to_owned()
    }
}

/// A running stdio server. Dropping it stops the server.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    child: Option<Child>,
    pub(crate) stderr: StderrTail,
}

/// Spawns `command` (from `Sandbox::command`, which already sets the
/// environment, the working directory and the session or process group)
/// with piped stdio. It must be called on a thread that lives as long as
/// the server (a runtime worker, not a blocking-pool thread): the
/// supervisor's parent-death signal follows the thread that spawned it.
pub(crate) fn spawn(
    command: std::process::Command,
) -> std::io::Result<(ServerProcess, ChildStdout, ChildStdin)> {
    let mut command = tokio::process::Command::from(command);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        // Stopped by `Drop` below: SIGTERM first, so the supervisor can
        // kill what the server started.
        .kill_on_drop(false);
    let mut child = command.spawn()?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(std::io::Error::other("the server's pipes were not made"));
    };
    let stderr = StderrTail::default();
    if let Some(mut pipe) = child.stderr.take() {
        let tail = stderr.clone();
        tokio::spawn(async move {
            let mut buffer = [0_u8; 1024];
            while let Ok(read) = pipe.read(&mut buffer).await {
                if read == 0 {
                    break;
                }
                tail.push(&buffer[..read]);
            }
        });
    }
    Ok((
        ServerProcess {
            child: Some(child),
            stderr,
        },
        stdout,
        stdin,
    ))
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let Some(pid) = child.id().and_then(|id| Pid::from_raw(id.cast_signed())) else {
            return;
        };
        // Unreaped, so the id is still this server's.
        let _ = kill_process(pid, Signal::TERM);
        // Waiting here would hold up whoever dropped it: a thread gives
        // the grace, then kills the group (the server leads its own: a
        // supervisor's session, or the process group `Sandbox::command`
        // made without a launcher).
        let _ = std::thread::Builder::new()
            .name("oy-mcp-stop".to_owned())
            .spawn(move || {
                let deadline = Instant::now() + STOP_GRACE;
                while Instant::now() < deadline {
                    if !matches!(child.try_wait(), Ok(None)) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                let _ = kill_process_group(pid, Signal::KILL);
                let _ = kill_process(pid, Signal::KILL);
                let _ = child.try_wait();
            });
    }
}
