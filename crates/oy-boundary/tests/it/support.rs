//! Fixtures: a temp dir holding a workspace root and a sibling "outside"
//! directory with a secret, so every test can check nothing leaked.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use oy_boundary::Workspace;

pub const SECRET: &str = "OUTSIDE-SECRET-7f3a";

pub struct Fixture {
    pub _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
    pub ws: Workspace,
}

impl Fixture {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("wsroot");
        let outside = base.join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(outside.join("dir")).unwrap();
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        fs::write(outside.join("dir/inner.txt"), SECRET).unwrap();
        let ws = Workspace::open(&root).unwrap();
        Self {
            _tmp: tmp,
            root,
            outside,
            ws,
        }
    }

    pub fn file(&self, rel: &str, contents: &str) -> &Self {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
        self
    }

    pub fn link(&self, rel: &str, target: impl AsRef<Path>) -> &Self {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(target, path).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// Every path and content under `outside`, to compare before and after.
    pub fn outside_snapshot(&self) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        snapshot(&self.outside)
    }
}

pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let entry = entry.unwrap();
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
                out.push((path, None));
            } else {
                out.push((path.clone(), fs::read(&path).ok()));
            }
        }
    }
    out.sort();
    out
}

// ---- Helpers for the adversarial suites (symlinks, special files, writes, walk) ----

/// Expects `result` to be refused and returns the error, checking that
/// neither its message nor its debug form carries the secret.
pub fn refused<T: std::fmt::Debug>(result: oy_boundary::Result<T>) -> oy_boundary::BoundaryError {
    let err = match result {
        Ok(value) => panic!("operation should have been refused, got {value:?}"),
        Err(err) => err,
    };
    let text = format!("{err} {err:?}");
    assert!(!text.contains(SECRET), "the error leaks the secret: {text}");
    err
}

/// Asserts `err` is an escape through the symlink at `link` (root-relative).
pub fn assert_symlink_escape(err: &oy_boundary::BoundaryError, link: &str) {
    match err {
        oy_boundary::BoundaryError::Escape {
            route: oy_boundary::EscapeRoute::Symlink { link: named, .. },
            ..
        } => assert_eq!(named, Path::new(link), "escape names the wrong link: {err}"),
        other => panic!("expected an escape through symlink {link}, got {other:?}"),
    }
}

/// Makes a named pipe with the `mkfifo` command (the crate forbids `unsafe`).
pub fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {} failed", path.display());
}

/// Opens `fifo` for writing (non-blocking) a few times, so that any thread
/// stuck opening it for reading gets through and sees end-of-file.
pub fn release_fifo_readers(fifo: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    for _ in 0..200 {
        let opened = fs::OpenOptions::new()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(fifo);
        drop(opened);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Runs `op` on its own thread and waits at most 10 s for it, so a test of
/// "must not block" finishes (and fails) even when the code does block.
/// On a timeout, readers stuck on `fifo` are released before failing.
pub fn finishes_in_time<T: Send + 'static>(
    what: &str,
    fifo: Option<&Path>,
    op: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(op());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(value) => value,
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{what}: the operation panicked")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            if let Some(fifo) = fifo {
                release_fifo_readers(fifo);
            }
            panic!("{what}: still running after 10 s (it blocks)")
        }
    }
}

/// Every regular file under `dir` (not following links) whose bytes contain `needle`.
pub fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    snapshot(dir)
        .into_iter()
        .filter(|(path, contents)| {
            contents.as_ref().is_some_and(|bytes| {
                bytes
                    .windows(needle.len())
                    .any(|window| window == needle.as_bytes())
            }) && !fs::symlink_metadata(path).unwrap().is_symlink()
        })
        .map(|(path, _)| path)
        .collect()
}

/// The walked paths as text, in walk order.
pub fn walked(walk: &oy_boundary::Walk) -> Vec<String> {
    walk.entries.iter().map(|e| e.path.to_text()).collect()
}

/// Swaps two names atomically (`renameat2(RENAME_EXCHANGE)`), as a racing
/// attacker would.
pub fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        a,
        rustix::fs::CWD,
        b,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .map_err(Into::into)
}
