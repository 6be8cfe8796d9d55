//! `Workspace`: the root capability every file operation goes through.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::error::{BoundaryError, Result};
use crate::metadata::FileKind;
use crate::path::{Anchor, WorkspacePath, normalize_absolute};

/// Source of workspace ids: each opened workspace gets its own, so a path
/// made by one is recognised (and refused) by another.
static NEXT_WORKSPACE_ID: AtomicU64 = AtomicU64::new(1);

/// An opened workspace: a directory capability plus the rules for reaching
/// into it.
///
/// Every method resolves its path against the real tree (following symlinks
/// only while they stay inside the root) and then performs the operation
/// through the capability, so the kernel refuses anything that a race could
/// have redirected outside (`openat2` with `RESOLVE_BENEATH` on Linux).
#[derive(Debug)]
pub struct Workspace {
    pub(crate) dir: Dir,
    pub(crate) anchor: Anchor,
    /// What no change may touch (see [`Self::protect`]).
    pub(crate) protection: std::sync::RwLock<crate::protect::Protection>,
}

impl Workspace {
    /// Opens the workspace rooted at `root`, confined to it.
    ///
    /// The caller chooses the root (normally the process's current
    /// directory); the boundary never widens it to a git root or anything else.
    pub fn open(root: impl AsRef<Path>) -> Result<Self> {
        let (canonical_root, given_root) = locate_root(root.as_ref())?;
        let dir = open_dir(&canonical_root)?;
        Ok(Self {
            dir,
            anchor: Anchor {
                id: next_id(),
                canonical_root,
                given_root,
                host_root_rel: None,
            },
            protection: std::sync::RwLock::default(),
        })
    }

    /// Opens a workspace that is **not confined**: relative paths start at
    /// `root`, but absolute paths, `..` and symlinks may reach anywhere the
    /// user can. This is the explicit `fs_mode = unrestricted`; nothing turns it
    /// on implicitly, and it should only be reached from an explicit user
    /// choice.
    pub fn open_unrestricted_host_filesystem(root: impl AsRef<Path>) -> Result<Self> {
        let (canonical_root, given_root) = locate_root(root.as_ref())?;
        let dir = open_dir(Path::new("/"))?;
        let host_root_rel = canonical_root
            .strip_prefix("/")
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Ok(Self {
            dir,
            anchor: Anchor {
                id: next_id(),
                canonical_root,
                given_root,
                host_root_rel: Some(host_root_rel),
            },
            protection: std::sync::RwLock::default(),
        })
    }

    /// The canonical absolute path of the root.
    pub fn root(&self) -> &Path {
        &self.anchor.canonical_root
    }

    /// True when opened with [`Self::open_unrestricted_host_filesystem`].
    pub fn is_unrestricted(&self) -> bool {
        self.anchor.is_unrestricted()
    }

    /// Parses a caller's path (relative to the root, or absolute) into a
    /// [`WorkspacePath`]. Purely lexical: `..` that stays inside is
    /// normalised, an absolute path inside the root becomes relative, and
    /// anything that leaves is an [`BoundaryError::Escape`].
    pub fn path(&self, input: impl AsRef<Path>) -> Result<WorkspacePath> {
        self.anchor.parse(input.as_ref())
    }

    /// The root itself, as a path.
    pub fn root_path(&self) -> WorkspacePath {
        self.anchor.at_root_rel(PathBuf::new())
    }

    /// Where `path` lives on the host, for messages and for handing to
    /// programs that run in the workspace (never for opening files: use the
    /// workspace's own methods for that).
    pub fn host_path(&self, path: &WorkspacePath) -> PathBuf {
        let mut host = match self.anchor.host_root_rel {
            Some(_) => Path::new("/").join(&path.base_rel),
            None => self.anchor.canonical_root.join(&path.base_rel),
        };
        if path.names_directory() {
            host.as_mut_os_string().push("/");
        }
        host
    }

    /// True when removing or moving `path` would take the root with it.
    pub(crate) fn contains_root(&self, base_rel: &Path) -> bool {
        match &self.anchor.host_root_rel {
            Some(root_rel) => root_rel.starts_with(base_rel),
            None => base_rel.as_os_str().is_empty(),
        }
    }
}

fn next_id() -> u64 {
    NEXT_WORKSPACE_ID.fetch_add(1, Ordering::Relaxed)
}

/// Canonicalises the root and checks that it is a directory. This is one of
/// the boundary's two uses of ambient authority (the other opens it).
fn locate_root(root: &Path) -> Result<(PathBuf, PathBuf)> {
    let shown = root.to_string_lossy();
    #[expect(
        clippy::disallowed_methods,
        reason = "the root is the one path resolved with ambient authority"
    )]
    let canonical =
        std::fs::canonicalize(root).map_err(|e| BoundaryError::from_io("open", &shown, e))?;
    #[expect(
        clippy::disallowed_methods,
        reason = "the root is the one path resolved with ambient authority"
    )]
    let meta =
        std::fs::metadata(&canonical).map_err(|e| BoundaryError::from_io("open", &shown, e))?;
    if !meta.is_dir() {
        return Err(BoundaryError::NotADirectory {
            path: shown.into_owned(),
            kind: FileKind::of_mode(meta.mode()),
        });
    }
    // The caller's spelling maps absolute inputs inside only when it means
    // the same directory lexically: with `..` after a symlink it would not.
    let lexically_plain = !root
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir));
    let given = if root.is_absolute() && lexically_plain {
        normalize_absolute(root)
    } else {
        canonical.clone()
    };
    Ok((canonical, given))
}

fn open_dir(path: &Path) -> Result<Dir> {
    Dir::open_ambient_dir(path, ambient_authority())
        .map_err(|e| BoundaryError::from_io("open", &path.to_string_lossy(), e))
}
