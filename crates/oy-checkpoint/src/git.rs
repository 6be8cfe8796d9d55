//! Snapshots of a git working tree that the user's repository never sees.
//!
//! A snapshot is a tree object built with a temporary copy of the index
//! (`GIT_INDEX_FILE`) and written to oy's own object directory
//! (`GIT_OBJECT_DIRECTORY`, with the repository's objects as an
//! alternate, read only): no ref, no index, no stash and no object of the
//! user's changes, so `git status`, `git log --all`, `git stash list` and
//! `git for-each-ref` show nothing new. Tracked files and untracked files
//! that are not ignored are included; untracked files over the size bound
//! are left out and named.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use oy_boundary::{BoundaryError, Workspace};

use crate::error::CheckpointError;

/// A git repository the workspace lies in, and where oy keeps its objects.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    root: PathBuf,
    objects: PathBuf,
    repo_objects: PathBuf,
    index: PathBuf,
    env: Vec<(OsString, OsString)>,
}

/// One path two snapshots disagree on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeChange {
    pub(crate) path: String,
    /// Mode and blob id before (`None`: absent).
    pub(crate) before: Option<(u32, String)>,
}

/// A blob read back: its size, and its bytes when wanted.
#[derive(Debug)]
pub(crate) struct Blob {
    pub(crate) size: u64,
    pub(crate) bytes: Option<Vec<u8>>,
}

impl Git {
    /// The repository holding `root`, or why there is none (not a
    /// repository, git missing): the undo then says command changes
    /// cannot be undone.
    pub(crate) fn discover(
        root: &Path,
        objects: PathBuf,
        env: &[(OsString, OsString)],
    ) -> Result<Self, String> {
        let mut git = Self {
            root: root.to_path_buf(),
            objects,
            repo_objects: PathBuf::new(),
            index: PathBuf::new(),
            env: env
                .iter()
                .filter(|(name, _)| !name.to_string_lossy().starts_with("GIT_"))
                .cloned()
                .collect(),
        };
        let out = git
            .run(
                &[
                    "rev-parse",
                    "--path-format=absolute",
                    "--is-inside-work-tree",
                    "--git-common-dir",
                    "--git-path",
                    "index",
                ],
                None,
                false,
            )
            .map_err(|error| match error {
                CheckpointError::Git { detail, .. } if detail.contains("not a git repository") => {
                    "the workspace is not a git repository".to_owned()
                }
                other => other.to_string(),
            })?;
        let text = String::from_utf8_lossy(&out);
        let mut lines = text.lines();
        if lines.next() != Some("true") {
            return Err("the workspace is not inside a git working tree".to_owned());
        }
        let (Some(common), Some(index)) = (lines.next(), lines.next()) else {
            return Err("git did not say where the repository is".to_owned());
        };
        git.repo_objects = Path::new(common).join("objects");
        git.index = PathBuf::from(index);
        Ok(git)
    }

    /// Snapshots the working tree below the root: the tree id, and the
    /// untracked files left out for being larger than `max_untracked`.
    pub(crate) fn snapshot(
        &self,
        ws: &Workspace,
        max_untracked: u64,
    ) -> Result<(String, Vec<String>), CheckpointError> {
        let index = self.objects.with_file_name(format!(
            "snapshot-index-{}-{}",
            std::process::id(),
            fastrand_suffix()
        ));
        let result = self.snapshot_with(ws, &index, max_untracked);
        #[expect(
            clippy::disallowed_methods,
            reason = "oy's own temporary index in its private checkpoint directory"
        )]
        let _ = std::fs::remove_file(&index);
        result
    }

    fn snapshot_with(
        &self,
        ws: &Workspace,
        index: &Path,
        max_untracked: u64,
    ) -> Result<(String, Vec<String>), CheckpointError> {
        // The copy keeps git's stat cache, so unchanged tracked files are
        // not hashed again; the user's index itself is only read.
        #[expect(
            clippy::disallowed_methods,
            reason = "git's index file, copied (never written) for a private snapshot"
        )]
        match std::fs::copy(&self.index, index) {
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(CheckpointError::Git {
                    command: "index copy".to_owned(),
                    detail: error.to_string(),
                });
            }
        }
        let with_index =
            |args: &[&str], input: Option<&[u8]>| self.run_with_index(index, args, input);
        with_index(&["add", "--update", "--", "."], None)?;
        let listed = with_index(
            &[
                "ls-files",
                "-z",
                "--others",
                "--exclude-standard",
                "--",
                ".",
            ],
            None,
        )?;
        let mut small = Vec::new();
        let mut skipped = Vec::new();
        for name in listed
            .split(|byte| *byte == 0)
            .filter(|name| !name.is_empty())
        {
            let text = String::from_utf8_lossy(name).into_owned();
            let too_big = ws
                .path(&text)
                .ok()
                .and_then(|path| match ws.symlink_metadata(&path) {
                    Ok(meta) => Some(meta.len > max_untracked),
                    Err(BoundaryError::NotFound { .. }) => Some(false),
                    Err(_) => None,
                })
                .unwrap_or(true);
            if too_big {
                skipped.push(text);
            } else {
                small.extend_from_slice(name);
                small.push(0);
            }
        }
        if !small.is_empty() {
            with_index(
                &["add", "--pathspec-from-file=-", "--pathspec-file-nul"],
                Some(&small),
            )?;
        }
        let tree = with_index(&["write-tree"], None)?;
        Ok((String::from_utf8_lossy(&tree).trim().to_owned(), skipped))
    }

    /// The paths (relative to the root) whose content differs between two
    /// snapshots, with what the first had.
    pub(crate) fn changes(
        &self,
        before: &str,
        after: &str,
    ) -> Result<Vec<TreeChange>, CheckpointError> {
        let out = self.run(
            &[
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--relative",
                before,
                after,
            ],
            None,
            true,
        )?;
        let mut fields = out.split(|byte| *byte == 0);
        let mut changes = Vec::new();
        while let Some(meta) = fields.next() {
            if meta.is_empty() {
                continue;
            }
            let Some(path) = fields.next() else { break };
            let meta = String::from_utf8_lossy(meta);
            let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            let [old_mode, _, old_id, _, _status] = parts[..] else {
                return Err(CheckpointError::Git {
                    command: "diff-tree".to_owned(),
                    detail: format!("unexpected line `{meta}`"),
                });
            };
            let mode = u32::from_str_radix(old_mode, 8).unwrap_or(0);
            changes.push(TreeChange {
                path: String::from_utf8_lossy(path).into_owned(),
                before: (mode != 0).then(|| (mode, old_id.to_owned())),
            });
        }
        Ok(changes)
    }

    /// Blobs by id: every size, and the bytes of those up to `max_bytes`.
    pub(crate) fn blobs(
        &self,
        ids: &[String],
        max_bytes: u64,
    ) -> Result<Vec<Blob>, CheckpointError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let sizes = self.run(&["cat-file", "--batch-check"], Some(list.as_bytes()), true)?;
        let mut blobs = Vec::new();
        let mut wanted = String::new();
        for (line, id) in String::from_utf8_lossy(&sizes).lines().zip(ids) {
            let size = line
                .rsplit(' ')
                .next()
                .and_then(|size| size.parse::<u64>().ok())
                .ok_or_else(|| CheckpointError::Git {
                    command: "cat-file".to_owned(),
                    detail: format!("no object {id} ({line})"),
                })?;
            if size <= max_bytes {
                wanted.push_str(id);
                wanted.push('\n');
            }
            blobs.push(Blob { size, bytes: None });
        }
        let out = self.run(&["cat-file", "--batch"], Some(wanted.as_bytes()), true)?;
        let mut rest = &out[..];
        for blob in blobs.iter_mut().filter(|blob| blob.size <= max_bytes) {
            let header_end = rest
                .iter()
                .position(|byte| *byte == b'\n')
                .unwrap_or(rest.len());
            let body_start = header_end + 1;
            let size = usize::try_from(blob.size).unwrap_or(usize::MAX);
            let body_end = body_start.saturating_add(size);
            if body_end > rest.len() {
                return Err(CheckpointError::Git {
                    command: "cat-file".to_owned(),
                    detail: "a blob was cut short".to_owned(),
                });
            }
            blob.bytes = Some(rest[body_start..body_end].to_vec());
            rest = rest.get(body_end + 1..).unwrap_or_default();
        }
        Ok(blobs)
    }

    fn run_with_index(
        &self,
        index: &Path,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, CheckpointError> {
        self.command(args, true)
            .env("GIT_INDEX_FILE", index)
            .pipe(args, input)
    }

    fn run(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
        objects: bool,
    ) -> Result<Vec<u8>, CheckpointError> {
        self.command(args, objects).pipe(args, input)
    }

    fn command(&self, args: &[&str], objects: bool) -> Command {
        let mut command = Command::new("git");
        command
            .env_clear()
            .envs(self.env.iter().map(|(name, value)| (name, value)))
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .current_dir(&self.root)
            // No fsmonitor daemon or hook is started, no maintenance runs
            // in the user's repository.
            .args(["-c", "core.fsmonitor=false", "-c", "gc.auto=0"])
            .args([
                "-c",
                "maintenance.auto=false",
                "-c",
                "core.untrackedCache=false",
            ])
            .args(args);
        if objects {
            command
                .env("GIT_OBJECT_DIRECTORY", &self.objects)
                .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", &self.repo_objects);
        }
        command
    }
}

trait Pipe {
    fn pipe(&mut self, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, CheckpointError>;
}

impl Pipe for Command {
    fn pipe(&mut self, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, CheckpointError> {
        let name = args.first().copied().unwrap_or("git").to_owned();
        let failed = |detail: String| CheckpointError::Git {
            command: name.clone(),
            detail,
        };
        let mut child = self
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
}

/// A few digits to keep two snapshots in one process apart.
fn fastrand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
