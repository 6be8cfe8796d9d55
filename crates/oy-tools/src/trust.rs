//! Which `tools.json` manifests may add tools, and loading them.
//!
//! The user's own (global) manifest is trusted. A workspace's
//! `.oy/tools.json` comes with the repository, so it adds nothing until its
//! exact content is approved for that workspace: approval is kept by a
//! [`TrustStore`] under the workspace root and the content's SHA-256, so an
//! edited file, or the same file in another repository, needs approval
//! again. [`load_user_tools`] makes that decision; the frontend only says
//! whether the person approves now (a flag, or an answer at a prompt).

mod file_store;
mod private_dir;

pub use file_store::FileTrustStore;
pub use private_dir::{PrivateDirError, private_dir};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use oy_boundary::{BoundaryError, Workspace};

use crate::registry::Registry;
use crate::state::content_digest;
use crate::user_tools::{ManifestError, UserTool, UserToolDef, parse_manifest};

/// The workspace manifest, relative to the root.
pub const WORKSPACE_MANIFEST: &str = ".oy/tools.json";

/// Largest manifest read; a manifest is a few tool definitions.
const MANIFEST_LIMIT: u64 = 1024 * 1024;

/// Remembers which workspace manifests were approved: by workspace root
/// (canonical) and the manifest's SHA-256 ([`content_digest`]).
pub trait TrustStore {
    /// True when this content was approved for this root.
    fn is_trusted(&self, root: &Path, digest: &str) -> Result<bool, TrustError>;

    /// Records approval of this content for this root.
    fn trust(&mut self, root: &Path, digest: &str) -> Result<(), TrustError>;
}

/// A [`TrustStore`] that keeps approvals for as long as it lives: for a
/// run with nowhere to keep state, and for tests.
#[derive(Debug, Default)]
pub struct MemoryTrustStore {
    approved: BTreeSet<(PathBuf, String)>,
}

impl TrustStore for MemoryTrustStore {
    fn is_trusted(&self, root: &Path, digest: &str) -> Result<bool, TrustError> {
        Ok(self
            .approved
            .contains(&(root.to_path_buf(), digest.to_owned())))
    }

    fn trust(&mut self, root: &Path, digest: &str) -> Result<(), TrustError> {
        self.approved
            .insert((root.to_path_buf(), digest.to_owned()));
        Ok(())
    }
}

/// The user's own manifest (trusted as it is).
#[derive(Debug, Clone, Copy)]
pub struct GlobalManifest<'a> {
    /// Where it came from, for messages (its path).
    pub source: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// What a person is asked to approve: a workspace manifest not trusted
/// yet, already validated, with the tools it would add.
#[derive(Debug, Clone, Copy)]
pub struct TrustRequest<'a> {
    /// The manifest's path relative to the root ([`WORKSPACE_MANIFEST`]).
    pub manifest: &'a str,
    /// The SHA-256 of its content, lowercase hex.
    pub digest: &'a str,
    /// The tools it defines, in order.
    pub tools: &'a [UserToolDef],
}

/// What happened to the workspace manifest.
#[derive(Debug)]
#[non_exhaustive]
pub enum WorkspaceTools {
    /// The workspace has none.
    Absent,
    /// Trusted (earlier, or now) and loaded.
    Trusted {
        /// The tools it added, in order.
        names: Vec<String>,
    },
    /// Present but not trusted: it added nothing.
    Untrusted {
        /// The SHA-256 of its content, lowercase hex.
        digest: String,
    },
    /// Present but not a readable text file inside the workspace (a link
    /// out of the root, a directory, binary…): it added nothing, and every
    /// other tool still works.
    Unreadable(BoundaryError),
}

/// Why user tools could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    /// A manifest (global, or a workspace one being approved or already
    /// trusted) is invalid.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The workspace, or the trust record's directory, refused an
    /// operation.
    #[error(transparent)]
    Boundary(#[from] BoundaryError),
    /// The trust record's directory cannot be made private.
    #[error(transparent)]
    PrivateDir(#[from] PrivateDirError),
    /// The trust record cannot be encoded.
    #[error("cannot encode the trust record: {problem}")]
    Record {
        /// The encoder's message.
        problem: String,
    },
}

/// Adds the global manifest's tools, then the workspace manifest's when
/// `store` trusts its content for this root, or `trust_now` is set, or
/// `ask` approves it (then `store` remembers). `ask` is called only for
/// a valid manifest that is not trusted yet, and at most once.
///
/// Errors: an invalid manifest (nothing from it is added) and a trust
/// record that cannot be read or written. A workspace manifest that is
/// missing or unreadable is an outcome, not an error.
pub fn load_user_tools(
    registry: &mut Registry,
    workspace: &Workspace,
    global: Option<GlobalManifest<'_>>,
    store: &mut dyn TrustStore,
    trust_now: bool,
    ask: impl FnOnce(&TrustRequest<'_>) -> bool,
) -> Result<WorkspaceTools, TrustError> {
    if let Some(global) = global {
        let defs = parse_manifest(global.source, global.text, &registry.names())?;
        add(registry, defs);
    }
    let path = workspace.path(WORKSPACE_MANIFEST)?;
    let text = match workspace.read_text(&path, MANIFEST_LIMIT) {
        Ok(text) => text,
        Err(BoundaryError::NotFound { .. }) => return Ok(WorkspaceTools::Absent),
        Err(error) => return Ok(WorkspaceTools::Unreadable(error)),
    };
    // Validated before anyone is asked: the person sees what would load,
    // and a broken file is never recorded as trusted.
    let defs = parse_manifest(WORKSPACE_MANIFEST, &text, &registry.names())?;
    let digest = content_digest(text.as_bytes());
    let root = workspace.root();
    if !store.is_trusted(root, &digest)? {
        let request = TrustRequest {
            manifest: WORKSPACE_MANIFEST,
            digest: &digest,
            tools: &defs,
        };
        if !(trust_now || ask(&request)) {
            return Ok(WorkspaceTools::Untrusted { digest });
        }
        store.trust(root, &digest)?;
    }
    Ok(WorkspaceTools::Trusted {
        names: add(registry, defs),
    })
}

fn add(registry: &mut Registry, defs: Vec<UserToolDef>) -> Vec<String> {
    let names = defs.iter().map(|def| def.name.clone()).collect();
    for def in defs {
        registry.push(Box::new(UserTool::new(def)));
    }
    names
}
