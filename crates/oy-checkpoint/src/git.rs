//! Snapshots of the working tree in a git repository of oy's own.
//!
//! The user's repository is never asked anything: its config, index,
//! objects and hooks are things a command in the workspace can write, so
//! trusting them would let a command decide what oy runs, hides or
//! restores (docs/undo.md, "Commands"). Instead each session keeps a
//! private git directory in its checkpoint directory (`GIT_DIR`, with the
//! workspace as `GIT_WORK_TREE`): its own index (whose stat cache keeps
//! unchanged files from being hashed again), its own objects, and a
//! config-free environment — no system or global config, no repository
//! config a command wrote, and `info/attributes` turning every filter and
//! conversion off, so a blob is the file's exact bytes and no driver can
//! run. The git program is an absolute path outside the workspace, found
//! by the caller. `.gitignore` files and the repository's `info/exclude`
//! (read once, when the session's git directory is made) say what is
//! left out.

mod run;
mod snapshot;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use sha1::{Digest as _, Sha1};

use crate::blobs::hex;
use crate::error::CheckpointError;

pub(crate) use snapshot::Snapshot;

/// The session's private git directory, bound to the workspace.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    program: PathBuf,
    root: PathBuf,
    dir: PathBuf,
    env: Vec<(OsString, OsString)>,
}

/// Why a session's commands are not snapshotted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NoSnapshots {
    pub(crate) why: String,
    /// Only because the workspace is not in a git repository.
    pub(crate) outside_git: bool,
}

impl NoSnapshots {
    pub(crate) fn failed(why: impl Into<String>) -> Self {
        Self {
            why: why.into(),
            outside_git: false,
        }
    }
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

/// Attributes that win over any `.gitattributes`: no filter, no line-end
/// or encoding conversion, no `ident` expansion.
const ATTRIBUTES: &str = "* -text -filter -ident -working-tree-encoding\n";

impl Git {
    /// The private git directory `dir` for the workspace at `root`, or why
    /// command changes cannot be undone there (not in a git repository, no
    /// git outside the workspace). `program` is the git to run; `env` the
    /// filtered child environment (every `GIT_*` variable is dropped).
    pub(crate) fn open(
        program: Option<&Path>,
        root: &Path,
        dir: PathBuf,
        env: &[(OsString, OsString)],
    ) -> Result<Self, NoSnapshots> {
        let Some(dot_git) = repository_marker(root) else {
            return Err(NoSnapshots {
                why: "the workspace is not in a git repository".to_owned(),
                outside_git: true,
            });
        };
        let Some(program) = program else {
            return Err(NoSnapshots::failed(
                "no git program was found outside the workspace on the command PATH",
            ));
        };
        let git = Self {
            program: program.to_path_buf(),
            root: root.to_path_buf(),
            dir,
            env: env
                .iter()
                .filter(|(name, _)| !name.to_string_lossy().starts_with("GIT_"))
                .cloned()
                .collect(),
        };
        git.prepare(&dot_git)
            .map_err(|error| NoSnapshots::failed(error.to_string()))?;
        Ok(git)
    }

    /// Makes the git directory's skeleton once: `HEAD`, `objects/`,
    /// `refs/`, the attributes that turn conversions off, and the
    /// repository's own excludes as they are now.
    fn prepare(&self, dot_git: &Path) -> Result<(), CheckpointError> {
        let io = |what: &str, error: std::io::Error| CheckpointError::Git {
            command: "init".to_owned(),
            detail: format!("{what}: {error}"),
        };
        if self.dir.join("HEAD").is_file() {
            return Ok(());
        }
        for sub in ["objects", "refs", "info"] {
            std::os::unix::fs::DirBuilderExt::mode(
                std::fs::DirBuilder::new().recursive(true),
                0o700,
            )
            .create(self.dir.join(sub))
            .map_err(|error| io(sub, error))?;
        }
        write_private(&self.dir.join("info/attributes"), ATTRIBUTES.as_bytes())
            .map_err(|error| io("info/attributes", error))?;
        // Only a real directory's own exclude file: a `.git` file points
        // wherever a command may have made it point.
        let excludes = if dot_git.is_dir() && !dot_git.is_symlink() {
            read_small(&dot_git.join("info/exclude"))
        } else {
            Vec::new()
        };
        write_private(&self.dir.join("info/exclude"), &excludes)
            .map_err(|error| io("info/exclude", error))?;
        // Written last: its presence says the directory is complete.
        write_private(&self.dir.join("HEAD"), b"ref: refs/heads/oy\n")
            .map_err(|error| io("HEAD", error))
    }

    /// The paths (relative to the root) whose content differs between two
    /// snapshots, with what the first had.
    pub(crate) fn changes(
        &self,
        before: &str,
        after: &str,
    ) -> Result<Vec<TreeChange>, CheckpointError> {
        let out = self.run(
            &["diff-tree", "-r", "-z", "--no-renames", before, after],
            None,
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

    /// Blobs by id: every size, and the bytes of those up to `max_bytes`,
    /// each checked against its id (a damaged object is never restored).
    pub(crate) fn blobs(
        &self,
        ids: &[String],
        max_bytes: u64,
    ) -> Result<Vec<Blob>, CheckpointError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let sizes = self.run(&["cat-file", "--batch-check"], Some(list.as_bytes()))?;
        let mut blobs = Vec::new();
        let mut wanted = Vec::new();
        for (line, id) in String::from_utf8_lossy(&sizes).lines().zip(ids) {
            let size = line
                .strip_prefix(id.as_str())
                .and_then(|rest| rest.strip_prefix(" blob "))
                .and_then(|size| size.parse::<u64>().ok())
                .ok_or_else(|| CheckpointError::Git {
                    command: "cat-file".to_owned(),
                    detail: format!("no blob {id} ({line})"),
                })?;
            if size <= max_bytes {
                wanted.push(id);
            }
            blobs.push(Blob { size, bytes: None });
        }
        let request: String = wanted.iter().map(|id| format!("{id}\n")).collect();
        let out = self.run(&["cat-file", "--batch"], Some(request.as_bytes()))?;
        let mut rest = &out[..];
        let mut wanted = wanted.into_iter();
        for blob in blobs.iter_mut().filter(|blob| blob.size <= max_bytes) {
            let id = wanted
                .next()
                .ok_or_else(|| CheckpointError::damaged("blob list"))?;
            let header_end = rest
                .iter()
                .position(|byte| *byte == b'\n')
                .unwrap_or(rest.len());
            let body_start = header_end + 1;
            let size = usize::try_from(blob.size).unwrap_or(usize::MAX);
            let body_end = body_start.saturating_add(size);
            let Some(body) = rest.get(body_start..body_end) else {
                return Err(CheckpointError::Git {
                    command: "cat-file".to_owned(),
                    detail: "a blob was cut short".to_owned(),
                });
            };
            if blob_id(body) != *id {
                return Err(CheckpointError::damaged(format!(
                    "git object {id} does not hold what its name says"
                )));
            }
            blob.bytes = Some(body.to_vec());
            rest = rest.get(body_end + 1..).unwrap_or_default();
        }
        Ok(blobs)
    }
}

/// git's SHA-1 object id of a blob holding `bytes`.
pub(crate) fn blob_id(bytes: &[u8]) -> String {
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hex(&hasher.finalize())
}

/// The `.git` (directory or file) of the repository holding `root`: the
/// nearest one at `root` or above it. Only looked at, never run: git is
/// not asked, so nothing in that repository's config can take effect.
#[expect(
    clippy::disallowed_methods,
    reason = "a presence check on the workspace root and its ancestors"
)]
fn repository_marker(root: &Path) -> Option<PathBuf> {
    root.ancestors()
        .map(|dir| dir.join(".git"))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_ok())
}

/// A small file's bytes (an exclude list), or nothing.
#[expect(
    clippy::disallowed_methods,
    reason = "the repository's info/exclude, read (bounded) once per session"
)]
fn read_small(path: &Path) -> Vec<u8> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return bytes;
    };
    if !meta.is_file() {
        return bytes;
    }
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(1024 * 1024).read_to_end(&mut bytes);
    }
    bytes
}

/// Writes a file of oy's own git directory, 0600.
#[expect(
    clippy::disallowed_methods,
    reason = "oy's own git directory inside its private checkpoint directory"
)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?
        .write_all(bytes)
}
