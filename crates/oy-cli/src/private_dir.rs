//! oy's own directories under the user's data and config directories
//! (`$XDG_DATA_HOME/oy`, `$XDG_CONFIG_HOME/oy` and what oy makes in them),
//! made private by `oy_tools::private_dir`: created 0700, and tightened to
//! 0700 when an earlier version or the umask left them readable by others.
//! The files in them are written 0600 through `Workspace::write_private`.
//!
//! They hold session transcripts (prompts, file contents, command output),
//! the chat history, tool state and the trust record: nothing another
//! local user may list or read.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// Creates `own` (oy's data or config directory) and, when given,
/// `own/sub`, 0700, tightening looser ones of the user's own. Returns the
/// directory made.
pub(crate) fn private_dir(own: &Path, sub: Option<&str>) -> Result<PathBuf> {
    Ok(oy_tools::private_dir(own, sub)?)
}
