//! Running the snapshot git: the program the caller found, the filtered
//! environment with no `GIT_*` of the user's, and settings that keep every
//! configurable behaviour off (docs/undo.md, "Commands").

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use super::Git;
use crate::error::CheckpointError;

/// `-c` settings given to every call. Each one closes a way git could run
/// something, write somewhere, or read a file differently from its bytes.
const SETTINGS: &[&str] = &[
    "core.fsmonitor=false",
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
        self.run_with_index(&self.dir.join("index"), args, input)
    }

    pub(super) fn run_with_index(
        &self,
        index: &Path,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, CheckpointError> {
        let mut command = Command::new(&self.program);
        command
            .env_clear()
            .envs(self.env.iter().map(|(name, value)| (name, value)))
            .env("GIT_DIR", &self.dir)
            .env("GIT_WORK_TREE", &self.root)
            .env("GIT_INDEX_FILE", index)
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
        pipe(&mut command, args, input)
    }
}

fn pipe(
    command: &mut Command,
    args: &[&str],
    input: Option<&[u8]>,
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
    let out = child
        .wait_with_output()
        .map_err(|error| failed(error.to_string()))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        let first = text
            .lines()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("no message")
            .trim()
            .to_owned();
        return Err(failed(first));
    }
    Ok(out.stdout)
}
