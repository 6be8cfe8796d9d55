//! The fixture the oy-tools fuzz targets share: a small fresh workspace per
//! case (text, CRLF, no-final-newline and binary files, links leading out)
//! beside an "outside" directory, and a snapshot of both, so a target can
//! check that a failed call changed nothing and that no call ever touched
//! anything outside the root.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use oy_boundary::Workspace;
use oy_tools::{Mode, Policy, Registry, ToolContext, ToolOutput, default_registry};

/// The files every case starts from.
pub const FILES: &[(&str, &[u8])] = &[
    ("a.txt", b"one\ntwo\nthree\n"),
    (
        "src/lib.rs",
        b"fn one() {\n    1\n}\nfn two() {\n    2\n}\n\nfn three() {\n    3\n}\n",
    ),
    ("crlf.txt", b"x\r\ny\r\nz\r\n"),
    ("noeol.txt", b"first\nlast"),
    ("empty.txt", b""),
    ("bin.dat", b"\0\x01\x02binary\xff"),
    ("dir/deep/f.md", b"# title\n\nbody\n"),
];

/// Links planted in every case: `(link, target)`.
pub const LINKS: &[(&str, &str)] = &[
    ("out", "../outside/secret.txt"),
    ("outdir", "../outside"),
    ("dir/up", ".."),
];

const SECRET: &[u8] = b"OUTSIDE-SECRET\n";

/// What a tree holds: each path's kind and bytes (a link's target).
pub type Tree = BTreeMap<PathBuf, (char, Vec<u8>)>;

/// Reads everything under `dir`, never following links.
pub fn snapshot(dir: &Path) -> Tree {
    let mut tree = Tree::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            let meta = fs::symlink_metadata(&path).unwrap();
            let kind = meta.file_type();
            let value = if kind.is_symlink() {
                (
                    'l',
                    fs::read_link(&path)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                )
            } else if kind.is_dir() {
                stack.push(path);
                ('d', Vec::new())
            } else {
                ('f', fs::read(&path).unwrap())
            };
            tree.insert(rel, value);
        }
    }
    tree
}

/// One case's workspace and its sibling outside directory.
pub struct Case {
    pub base: PathBuf,
    pub root: PathBuf,
    pub outside: PathBuf,
    pub ctx: ToolContext,
    pub before: Tree,
}

impl Drop for Case {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

impl Case {
    /// Everything under the root now.
    pub fn now(&self) -> Tree {
        snapshot(&self.root)
    }

    /// Panics unless the outside directory and the case's base hold exactly
    /// what they were made with.
    pub fn outside_untouched(&self) -> Result<(), String> {
        let outside = snapshot(&self.outside);
        let expected: Tree = [(PathBuf::from("secret.txt"), ('f', SECRET.to_vec()))].into();
        if outside != expected {
            return Err(format!("outside changed: {outside:?}"));
        }
        let mut siblings: Vec<_> = fs::read_dir(&self.base)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        siblings.sort();
        if siblings != ["outside", "ws"] {
            return Err(format!("something was made beside the root: {siblings:?}"));
        }
        Ok(())
    }
}

/// Makes fresh cases under one temp dir, and the registry that runs them.
pub struct Bench {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    next: AtomicU64,
    pub registry: Registry,
}

impl Bench {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = fs::canonicalize(tmp.path()).unwrap();
        Self {
            _tmp: tmp,
            dir,
            next: AtomicU64::new(0),
            registry: default_registry(),
        }
    }

    /// A fresh workspace in `mode` with no approver.
    pub fn case(&self, mode: Mode) -> Case {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let base = self.dir.join(n.to_string());
        let root = base.join("ws");
        let outside = base.join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.txt"), SECRET).unwrap();
        for (rel, bytes) in FILES {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
        for (link, target) in LINKS {
            symlink(target, root.join(link)).unwrap();
        }
        let ws = Arc::new(Workspace::open(&root).unwrap());
        let ctx = ToolContext::new(ws, Policy::new(mode, false));
        let before = snapshot(&root);
        Case {
            base,
            root,
            outside,
            ctx,
            before,
        }
    }
}

/// Checks what every tool call must be: a success, or a `TOOL_ERROR` with a
/// `RECOVERY` line.
pub fn well_formed(output: &ToolOutput) -> Result<(), String> {
    if output.ok {
        return Ok(());
    }
    if output.text.starts_with("TOOL_ERROR: ") && output.text.contains("\nRECOVERY: ") {
        Ok(())
    } else {
        Err(format!("a malformed error: {:?}", output.text))
    }
}
