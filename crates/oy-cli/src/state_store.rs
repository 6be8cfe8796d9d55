//! Named tool sessions for `oy tool --session NAME`: the tools' state
//! (read records, todos) saved as JSON under the data directory, 0600,
//! written atomically through the boundary.

use std::path::Path;

use anyhow::{Context, Result};
use oy_boundary::{BoundaryError, Workspace};
use oy_tools::ToolState;

use crate::exit::UsageError;

const SESSION_DIR: &str = "tool-sessions";
const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;

/// The store for one named session.
pub(crate) struct StateStore {
    dir: Workspace,
    file: String,
}

impl StateStore {
    /// Opens (creating, 0700) `DATA_DIR/tool-sessions` and checks the name.
    pub(crate) fn open(data_dir: &Path, name: &str) -> Result<Self> {
        let valid = !name.is_empty()
            && name.len() <= 100
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !name.starts_with('.');
        if !valid {
            return Err(UsageError::new(format!(
                "invalid session name `{name}`: use letters, digits, `-`, `_` and `.`"
            ))
            .into());
        }
        let dir = crate::private_dir::private_dir(data_dir, Some(SESSION_DIR))?;
        let dir =
            Workspace::open(&dir).with_context(|| format!("cannot open {}", dir.display()))?;
        Ok(Self {
            dir,
            file: format!("{name}.json"),
        })
    }

    /// The saved state, or a fresh one.
    pub(crate) fn load(&self) -> Result<ToolState> {
        let path = self.dir.path(&self.file)?;
        match self.dir.read_text(&path, MAX_STATE_BYTES) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("session file {} is damaged", self.file)),
            Err(BoundaryError::NotFound { .. }) => Ok(ToolState::default()),
            Err(error) => Err(error.into()),
        }
    }

    /// Saves `state` atomically with mode 0600.
    pub(crate) fn save(&self, state: &ToolState) -> Result<()> {
        let path = self.dir.path(&self.file)?;
        let text = serde_json::to_string_pretty(state)?;
        self.dir.write_private(&path, text.as_bytes())?;
        Ok(())
    }
}
