//! oy's own directories under the user's data and config directories
//! (`$XDG_DATA_HOME/oy`, `$XDG_CONFIG_HOME/oy` and what oy makes in them):
//! created 0700, and tightened to 0700 when an earlier version or the
//! umask left them readable by others. The files in them are written 0600
//! through `Workspace::write_private`.
//!
//! They hold session transcripts (prompts, file contents, command output),
//! the chat history, tool state and the trust record: nothing another
//! local user may list or read.

use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Creates `own` (oy's data or config directory) and, when given,
/// `own/sub`, 0700; each one that exists looser and belongs to the user
/// running oy is tightened. Returns the directory made.
pub(crate) fn private_dir(own: &Path, sub: Option<&str>) -> Result<PathBuf> {
    let dir = sub.map_or_else(|| own.to_path_buf(), |sub| own.join(sub));
    // Recursive with a mode: every missing component gets 0700, also the
    // XDG base itself on a fresh account (as the XDG spec asks).
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    tighten(own)?;
    if sub.is_some() {
        tighten(&dir)?;
    }
    Ok(dir)
}

/// Clears the group and other bits of `dir` when it is the user's own: a
/// directory someone else owns (a shared or managed setup) is left alone.
fn tighten(dir: &Path) -> Result<()> {
    #[expect(
        clippy::disallowed_methods,
        reason = "oy's own data or config directory, outside any workspace"
    )]
    let meta = std::fs::metadata(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 == 0 || meta.uid() != rustix::process::geteuid().as_raw() {
        return Ok(());
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & !0o077))
        .with_context(|| format!("cannot make {} private (mode 0700)", dir.display()))
}
