//! `Config`: everything ambient (flags, environment, current directory,
//! terminal) resolved into plain values once, so nothing downstream reads
//! them again.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result};
use oy_tools::{ChildEnv, Mode, Network, Policy};

use crate::cli::Common;
use crate::exit::UsageError;

/// The resolved configuration of one `oy` run.
#[derive(Debug, Clone)]
pub struct Config {
    /// The workspace root (as given; the boundary canonicalises it).
    pub root: PathBuf,
    /// Mode, network switch, and whether a person can answer.
    pub policy: Policy,
    /// `$XDG_DATA_HOME/oy` (or `~/.local/share/oy`): sessions and history.
    pub data_dir: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME/oy` (or `~/.config/oy`): config and global tools.json.
    pub config_dir: Option<PathBuf>,
    /// The environment child processes get: ours minus credentials.
    pub child_env: ChildEnv,
    /// `--trust-tools`: approve the workspace's tools.json as it is.
    pub trust_workspace_tools: bool,
}

impl Config {
    /// Resolves flags and the environment.
    pub(crate) fn resolve(common: &Common) -> Result<Self> {
        let root = match &common.root {
            Some(root) => root.clone(),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let mode = match &common.mode {
            Some(name) => name.parse::<Mode>().map_err(UsageError::from)?,
            None => Mode::default(),
        };
        let mut policy = Policy::new(mode, is_interactive());
        if let Some(network) = &common.network {
            policy.network = network.parse::<Network>().map_err(UsageError::from)?;
        }
        Ok(Self {
            root,
            policy,
            data_dir: xdg_dir("XDG_DATA_HOME", ".local/share"),
            config_dir: xdg_dir("XDG_CONFIG_HOME", ".config"),
            child_env: ChildEnv::filtered(std::env::vars_os(), &common.env_allow),
            trust_workspace_tools: common.trust_tools,
        })
    }
}

/// A person can answer only when both stdin and stderr are terminals and
/// `OY_NON_INTERACTIVE` is not set: scripts and CI never get a silent yes.
fn is_interactive() -> bool {
    let forced_off =
        std::env::var_os("OY_NON_INTERACTIVE").is_some_and(|v| !v.is_empty() && v != "0");
    !forced_off && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// `$VAR/oy` when `VAR` is an absolute path, else `$HOME/FALLBACK/oy`.
fn xdg_dir(var: &str, fallback: &str) -> Option<PathBuf> {
    let base = std::env::var_os(var)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(fallback)))?;
    Some(base.join("oy"))
}
