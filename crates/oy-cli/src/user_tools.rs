//! Loading `tools.json` manifests into the registry, and the trust record
//! for workspace manifests.
//!
//! The global manifest (`$XDG_CONFIG_HOME/oy/tools.json`) is the user's own
//! and trusted. A workspace manifest (`.oy/tools.json` in the root) comes
//! with the repository, so it is ignored until the user approves its exact
//! content once — at the terminal, or with `--trust-tools` — and approval
//! is remembered by workspace root and the content's SHA-256, so an edited
//! file, or the same file in another repository, asks again.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use oy_boundary::{BoundaryError, Workspace};
use oy_tools::{Registry, UserTool, content_digest, parse_manifest};

use crate::config::Config;

const MANIFEST_LIMIT: u64 = 1024 * 1024;
const WORKSPACE_MANIFEST: &str = ".oy/tools.json";
const TRUST_FILE: &str = "trusted-tools.json";

/// What happened to the workspace manifest, for the caller to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WorkspaceTools {
    /// There is none.
    Absent,
    /// Loaded (trusted earlier, now, or by flag).
    Loaded(Vec<String>),
    /// Present but not trusted: ignored.
    Ignored { digest: String },
    /// Present but not a readable regular file inside the workspace.
    Unreadable(String),
}

/// Adds the global and (when trusted) the workspace user tools to `registry`.
pub(crate) fn load_into(
    registry: &mut Registry,
    config: &Config,
    workspace: &Workspace,
    trust_now: bool,
    ask: impl FnOnce(&str) -> bool,
) -> Result<WorkspaceTools> {
    if let Some(config_dir) = &config.config_dir
        && let Some(text) = read_global(config_dir)?
    {
        let source = config_dir.join("tools.json").display().to_string();
        add(registry, &source, &text)?;
    }
    let path = workspace.path(WORKSPACE_MANIFEST)?;
    let text = match workspace.read_text(&path, MANIFEST_LIMIT) {
        Ok(text) => text,
        Err(BoundaryError::NotFound { .. }) => return Ok(WorkspaceTools::Absent),
        // A link out of the root, a directory, a FIFO, binary…: the
        // manifest is unusable, but every other tool still works.
        Err(error) => return Ok(WorkspaceTools::Unreadable(error.to_string())),
    };
    // Trust is per workspace: the same file in another repository asks again.
    let digest = content_digest(text.as_bytes());
    let key = format!("{}:{digest}", workspace.root().display());
    let mut trusted = TrustStore::open(config)?;
    if !trusted.contains(&key) && !trust_now {
        // Validate before asking, so the person sees what would load.
        let summary = match parse_manifest(WORKSPACE_MANIFEST, &text, &registry.names()) {
            Ok(defs) => defs
                .iter()
                .map(|def| {
                    let argv: Vec<&str> = def.command.iter().map(String::as_str).collect();
                    format!("  {}: runs {:?}", def.name, argv)
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Err(error) => return Err(error.into()),
        };
        let question = format!(
            "This workspace defines its own tools in {WORKSPACE_MANIFEST} (sha256 {}):\n{summary}\nThey run these programs (and any scripts they name) on your machine when the model calls them. Trust this file?",
            &digest[..16],
        );
        if !ask(&question) {
            return Ok(WorkspaceTools::Ignored { digest });
        }
    }
    trusted.insert(&key, &workspace.host_path(&path).display().to_string())?;
    let names = add(registry, WORKSPACE_MANIFEST, &text)?;
    Ok(WorkspaceTools::Loaded(names))
}

fn read_global(config_dir: &Path) -> Result<Option<String>> {
    let path = config_dir.join("tools.json");
    #[expect(
        clippy::disallowed_methods,
        reason = "the user's own config file, outside any workspace"
    )]
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error).with_context(|| format!("cannot read {}", path.display())),
    }
}

fn add(registry: &mut Registry, source: &str, text: &str) -> Result<Vec<String>> {
    let defs = parse_manifest(source, text, &registry.names())?;
    let names = defs.iter().map(|def| def.name.clone()).collect();
    for def in defs {
        registry.push(Box::new(UserTool::new(def)));
    }
    Ok(names)
}

/// Digests of approved workspace manifests, in the data dir, 0600.
struct TrustStore {
    store: Option<(Workspace, BTreeMap<String, String>)>,
}

impl TrustStore {
    fn open(config: &Config) -> Result<Self> {
        let Some(data_dir) = &config.data_dir else {
            return Ok(Self { store: None });
        };
        let dir = Workspace::open(&crate::private_dir::private_dir(data_dir, None)?)?;
        let path = dir.path(TRUST_FILE)?;
        let entries = match dir.read_text(&path, MANIFEST_LIMIT) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_default(),
            Err(BoundaryError::NotFound { .. }) => BTreeMap::new(),
            Err(error) => return Err(error.into()),
        };
        Ok(Self {
            store: Some((dir, entries)),
        })
    }

    fn contains(&self, digest: &str) -> bool {
        self.store
            .as_ref()
            .is_some_and(|(_, entries)| entries.contains_key(digest))
    }

    fn insert(&mut self, digest: &str, source: &str) -> Result<()> {
        let Some((dir, entries)) = self.store.as_mut() else {
            return Ok(());
        };
        if entries.contains_key(digest) {
            return Ok(());
        }
        entries.insert(digest.to_owned(), source.to_owned());
        let path = dir.path(TRUST_FILE)?;
        dir.write_private(&path, serde_json::to_string_pretty(entries)?.as_bytes())?;
        Ok(())
    }
}

/// Opens the workspace and builds the registry with the built-in tools and
/// the user tools that are trusted, asking at the terminal when it can.
pub(crate) fn registry_for(config: &Config) -> Result<(Registry, Workspace)> {
    let workspace = Workspace::open(&config.root)
        .with_context(|| format!("cannot open workspace {}", config.root.display()))?;
    let mut registry = oy_tools::default_registry();
    let prompt = crate::approver::TerminalPrompt;
    let outcome = load_into(
        &mut registry,
        config,
        &workspace,
        config.trust_workspace_tools,
        |question| config.policy.interactive && prompt.confirm(question),
    )?;
    match outcome {
        WorkspaceTools::Ignored { digest } => crate::report::hint(&format!(
            "ignoring {WORKSPACE_MANIFEST}: its tools are not trusted (sha256 {}…); review it, then rerun with --trust-tools",
            &digest[..16]
        )),
        WorkspaceTools::Unreadable(why) => {
            crate::report::hint(&format!("ignoring {WORKSPACE_MANIFEST}: {why}"));
        }
        WorkspaceTools::Absent | WorkspaceTools::Loaded(_) => {}
    }
    Ok((registry, workspace))
}
