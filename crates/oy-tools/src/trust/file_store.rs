//! `FileTrustStore`: approvals kept as `trusted-tools.json` (or another
//! kind of workspace content's own file) in a private directory the caller
//! names (oy's data dir), written atomically 0600.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oy_boundary::{BoundaryError, Workspace};

use super::private_dir::private_dir;
use super::{TrustError, TrustStore, WORKSPACE_MANIFEST};

/// Largest trust record read.
const RECORD_LIMIT: u64 = 1024 * 1024;

/// A [`TrustStore`] in a JSON file: `{"ROOT:DIGEST": "MANIFEST PATH"}`.
///
/// The directory is created 0700 when missing and tightened to 0700 when
/// it is the user's own and looser ([`private_dir`]); the file is replaced
/// atomically with mode 0600 through `oy-boundary`. The record is read
/// afresh for each question, so runs in parallel lose no approval but
/// their own. A damaged record counts as empty: everything asks again.
#[derive(Debug, Clone)]
pub struct FileTrustStore {
    dir: PathBuf,
    file: &'static str,
    subject: &'static str,
}

impl FileTrustStore {
    /// The record's file name inside the directory.
    pub const FILE_NAME: &'static str = "trusted-tools.json";

    /// The store of `tools.json` approvals in `dir`. Touches nothing until
    /// asked.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self::for_subject(dir, Self::FILE_NAME, WORKSPACE_MANIFEST)
    }

    /// A store in `dir` for another kind of workspace content (`subject`,
    /// its path relative to the root, e.g. a directory of prompt files),
    /// kept in its own `file`: an approval of one kind never answers for
    /// another, whatever the digests.
    pub fn for_subject(dir: impl Into<PathBuf>, file: &'static str, subject: &'static str) -> Self {
        Self {
            dir: dir.into(),
            file,
            subject,
        }
    }

    fn open(&self) -> Result<(Workspace, BTreeMap<String, String>), TrustError> {
        let dir = Workspace::open(private_dir(&self.dir, None)?)?;
        let path = dir.path(self.file)?;
        let entries = match dir.read_text(&path, RECORD_LIMIT) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_default(),
            Err(BoundaryError::NotFound { .. }) => BTreeMap::new(),
            Err(error) => return Err(error.into()),
        };
        Ok((dir, entries))
    }
}

/// Trust is per workspace: the same content in another root is another key.
fn key(root: &Path, digest: &str) -> String {
    format!("{}:{digest}", root.display())
}

impl TrustStore for FileTrustStore {
    fn is_trusted(&self, root: &Path, digest: &str) -> Result<bool, TrustError> {
        let (_, entries) = self.open()?;
        Ok(entries.contains_key(&key(root, digest)))
    }

    fn trust(&mut self, root: &Path, digest: &str) -> Result<(), TrustError> {
        let (dir, mut entries) = self.open()?;
        let key = key(root, digest);
        if entries.contains_key(&key) {
            return Ok(());
        }
        let source = root.join(self.subject).display().to_string();
        entries.insert(key, source);
        let text = serde_json::to_string_pretty(&entries).map_err(|error| TrustError::Record {
            problem: error.to_string(),
        })?;
        dir.write_private(&dir.path(self.file)?, text.as_bytes())?;
        Ok(())
    }
}
