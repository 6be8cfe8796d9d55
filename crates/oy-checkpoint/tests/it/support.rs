//! A workspace and a checkpoint directory in temporary directories, and a
//! fake "tool" that announces its change the way oy-tools does.

use std::path::Path;

use oy_boundary::Workspace;
use oy_checkpoint::{Checkpoints, Limits};

pub struct Setup {
    pub dir: tempfile::TempDir,
    pub ws: Workspace,
    pub checkpoints: Checkpoints,
}

impl Setup {
    pub fn new() -> Self {
        Self::with_limits(Limits::default())
    }

    pub fn with_limits(limits: Limits) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ws")).unwrap();
        std::fs::create_dir(dir.path().join("cp")).unwrap();
        let ws = Workspace::open(dir.path().join("ws")).unwrap();
        let checkpoints = Checkpoints::open(&dir.path().join("cp"), limits)
            .unwrap()
            .with_git(
                git_program(),
                std::env::vars_os()
                    .filter(|(name, _)| name == "PATH" || name == "HOME")
                    .collect(),
            );
        Self {
            dir,
            ws,
            checkpoints,
        }
    }

    pub fn root(&self) -> &Path {
        self.ws.root()
    }

    /// Reopens the checkpoints, as a new process would.
    pub fn reopen(&self) -> Checkpoints {
        Checkpoints::open(&self.dir.path().join("cp"), Limits::default())
            .unwrap()
            .with_git(git_program(), Vec::new())
    }

    /// What a file tool does: announce, change, record.
    pub fn tool(&self, paths: &[&str], change: impl FnOnce(&Workspace)) {
        let paths: Vec<_> = paths.iter().map(|p| self.ws.path(p).unwrap()).collect();
        self.checkpoints.before_change(&self.ws, &paths).unwrap();
        change(&self.ws);
        self.checkpoints.after_call(&self.ws).unwrap();
    }

    pub fn write(&self, path: &str, text: &str) {
        self.tool(&[path], |ws| {
            ws.write(&ws.path(path).unwrap(), text.as_bytes()).unwrap();
        });
    }

    pub fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.root().join(path)).ok()
    }

    /// Writes directly, as a person (or a command) would.
    pub fn outside_write(&self, path: &str, text: &str) {
        let full = self.root().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
}

/// The git on this machine's PATH, as the tools would find it.
pub fn git_program() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("git"))
        .find(|candidate| candidate.is_file())
}

pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}
