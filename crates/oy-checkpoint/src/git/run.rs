//! Running the snapshot git: the program the caller found, the filtered
//! environment with no `GIT_*` of the user's, and settings that keep every
//! configurable behaviour off (docs/undo.md, "Commands").

use std::io::{Read, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Git;
use crate::error::CheckpointError;

/// `-c` settings given to every call. Each one closes a way git could run
/// something, write somewhere, or read a file differently from its bytes.
const SETTINGS: &[&str] = &[
    "core.fsmonitor=false",
    // Objects and the index private, like the rest of the store.
    "core.sharedRepository=0600",
    "core.hooksPath=/dev/null",
    "core.untrackedCache=false",
    "core.splitIndex=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.attributesFile=/dev/null",
    "core.symlinks=true",
    "core.fileMode=true",
    "core.trustctime=true",
    "core.checkStat=default",
    "core.ignoreCase=false",
    "core.sparseCheckout=false",
    "core.quotePath=false",
    "index.skipHash=false",
    "feature.manyFiles=false",
    "gc.auto=0",
    "maintenance.auto=false",
];

impl Git {
    /// Runs `git ARGS` against the private git directory and index.
    pub(super) fn run(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, CheckpointError> {
        let mut command = self.command(args);
        pipe(&mut command, args, input, None)
    }

    /// [`Self::run`] for a command whose exit status `ok_status` is not a
    /// failure (`check-ignore` says "none of them" with 1).
    pub(super) fn run_allowing_exit(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
        ok_status: i32,
    ) -> Result<Vec<u8>, CheckpointError> {
        let mut command = self.command(args);
        // The one command that refuses literal pathspecs (its caller only
        // passes plain names).
        command.env_remove("GIT_LITERAL_PATHSPECS");
        pipe(&mut command, args, input, Some(ok_status))
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .env_clear()
            .envs(self.env.iter().map(|(name, value)| (name, value)))
            .env("GIT_DIR", &self.dir)
            .env("GIT_WORK_TREE", &self.root)
            .env("GIT_INDEX_FILE", self.dir.join("index"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .current_dir(&self.root);
        for setting in SETTINGS {
            command.args(["-c", setting]);
        }
        command.args(args);
        command
    }
}

/// How long one git call may take. A `.gitignore` that is a FIFO makes git
/// wait forever for a writer; past this the call is killed and the turn's
/// commands are said not to be undoable.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);

fn pipe(
    command: &mut Command,
    args: &[&str],
    input: Option<&[u8]>,
    ok_status: Option<i32>,
) -> Result<Vec<u8>, CheckpointError> {
    let name = args.first().copied().unwrap_or("git").to_owned();
    let failed = |detail: String| CheckpointError::Git {
        command: name.clone(),
        detail,
    };
    let mut child = command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| failed(format!("cannot run git: {error}")))?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        // Written on its own thread: git may fill its stdout before it
        // has read all of its input.
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + GIT_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CheckpointError::GitTimedOut {
                    command: name,
                    seconds: GIT_TIMEOUT.as_secs(),
                });
            }
            Err(error) => return Err(failed(error.to_string())),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !status.success() && (ok_status.is_none() || status.code() != ok_status) {
        let text = String::from_utf8_lossy(&stderr);
        let first = text
            .lines()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("no message")
            .trim()
            .to_owned();
        return Err(failed(first));
    }
    Ok(stdout)
}

/// Reads a child's stream to its end on a thread of its own.
fn drain(stream: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut stream) = stream {
            let _ = stream.read_to_end(&mut bytes);
        }
        bytes
    })
}
