//! The registry of a run: the built-in tools plus the user tools that
//! `oy_tools::load_user_tools` lets in. This file reads the global
//! `tools.json`, names the trust record's place (the data dir), asks at the
//! terminal and prints what was ignored; the library decides.

use std::path::Path;

use anyhow::{Context, Result};
use oy_boundary::Workspace;
use oy_tools::{
    FileTrustStore, GlobalManifest, MemoryTrustStore, Registry, TrustRequest, TrustStore,
    WORKSPACE_MANIFEST, WorkspaceTools, load_user_tools,
};

use crate::config::Config;

/// Opens the workspace and builds the registry with the built-in tools and
/// the user tools that are trusted, asking at the terminal when it can.
pub(crate) fn registry_for(config: &Config) -> Result<(Registry, Workspace)> {
    let workspace = Workspace::open(&config.root)
        .with_context(|| format!("cannot open workspace {}", config.root.display()))?;
    let mut registry = oy_tools::default_registry();
    let global = match config
        .settings
        .dirs
        .config_dir
        .as_ref()
        .map(|dir| dir.join("tools.json"))
    {
        Some(path) => read_global(&path)?.map(|text| (path.display().to_string(), text)),
        None => None,
    };
    // Without a data dir, approval lasts for this run only.
    let mut store: Box<dyn TrustStore> = match &config.settings.dirs.data_dir {
        Some(dir) => Box::new(FileTrustStore::new(dir)),
        None => Box::new(MemoryTrustStore::default()),
    };
    let prompt = crate::approver::TerminalPrompt;
    let outcome = load_user_tools(
        &mut registry,
        &workspace,
        global
            .as_ref()
            .map(|(source, text)| GlobalManifest { source, text }),
        store.as_mut(),
        config.trust_workspace_tools,
        |request| config.settings.policy.interactive && prompt.confirm(&question(request)),
    )?;
    match outcome {
        WorkspaceTools::Untrusted { digest } => crate::report::hint(&format!(
            "ignoring {WORKSPACE_MANIFEST}: its tools are not trusted (sha256 {}…); review it, then rerun with --trust-tools",
            &digest[..16]
        )),
        WorkspaceTools::Unreadable(why) => {
            crate::report::hint(&format!("ignoring {WORKSPACE_MANIFEST}: {why}"));
        }
        _ => {}
    }
    Ok((registry, workspace))
}

/// What the person is asked before a workspace's tools load.
fn question(request: &TrustRequest<'_>) -> String {
    let summary = request
        .tools
        .iter()
        .map(|def| {
            let argv: Vec<&str> = def.command.iter().map(String::as_str).collect();
            format!("  {}: runs {:?}", def.name, argv)
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "This workspace defines its own tools in {} (sha256 {}):\n{summary}\nThey run these programs (and any scripts they name) on your machine when the model calls them. Trust this file?",
        request.manifest,
        &request.digest[..16],
    )
}

/// The global `tools.json`'s text, or `None` when there is none.
fn read_global(path: &Path) -> Result<Option<String>> {
    #[expect(
        clippy::disallowed_methods,
        reason = "the user's own config file, outside any workspace"
    )]
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error).with_context(|| format!("cannot read {}", path.display())),
    }
}
