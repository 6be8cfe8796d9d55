//! `private_dir`: a frontend's own state directories (oy's under
//! `$XDG_DATA_HOME` and `$XDG_CONFIG_HOME`, and what it makes in them),
//! created 0700 and tightened to 0700 when an earlier version or the umask
//! left them readable by others. They hold the trust record here, and a
//! frontend's transcripts, history and tool state: nothing another local
//! user may list or read. Files in them are written 0600 through
//! `Workspace::write_private`.

use std::io;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// A private directory that cannot be made or made private.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PrivateDirError {
    /// Creating it (or a missing parent) failed.
    #[error("cannot create {}", path.display())]
    Create {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Its metadata cannot be read.
    #[error("cannot read {}", path.display())]
    Inspect {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Its mode cannot be tightened.
    #[error("cannot make {} private (mode 0700)", path.display())]
    Tighten {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// Creates `own` (the frontend's data or config directory) and, when
/// given, `own/sub`, 0700; each one that exists looser and belongs to the
/// user running this process is tightened. Returns the directory made.
pub fn private_dir(own: &Path, sub: Option<&str>) -> Result<PathBuf, PrivateDirError> {
    let dir = sub.map_or_else(|| own.to_path_buf(), |sub| own.join(sub));
    // Recursive with a mode: every missing component gets 0700, also the
    // XDG base itself on a fresh account (as the XDG spec asks).
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(|source| PrivateDirError::Create {
            path: dir.clone(),
            source,
        })?;
    tighten(own)?;
    if sub.is_some() {
        tighten(&dir)?;
    }
    Ok(dir)
}

/// Clears the group and other bits of `dir` when it is the user's own: a
/// directory someone else owns (a shared or managed setup) is left alone.
fn tighten(dir: &Path) -> Result<(), PrivateDirError> {
    #[expect(
        clippy::disallowed_methods,
        reason = "the frontend's own state directory, outside any workspace"
    )]
    let meta = std::fs::metadata(dir).map_err(|source| PrivateDirError::Inspect {
        path: dir.to_path_buf(),
        source,
    })?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 == 0 || meta.uid() != rustix::process::geteuid().as_raw() {
        return Ok(());
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & !0o077)).map_err(
        |source| PrivateDirError::Tighten {
            path: dir.to_path_buf(),
            source,
        },
    )
}
