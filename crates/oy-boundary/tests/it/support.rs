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
        let root = base.join("root");
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
