//! `Config`: everything ambient (flags, environment, config files, current
//! directory, terminal) resolved into plain values once, so nothing
//! downstream reads them again.
//!
//! Precedence: flags > environment (`OY_MODE`, `OY_MODEL`, `OY_PROVIDER`,
//! `OY_WIRE_API`, read by clap) > the global config file > defaults. A
//! workspace's `.oy/config.toml` comes last and can only lower privileges:
//! it caps the mode, the network switch and the turn limit, whatever set
//! them, because it speaks for a repository the user may not trust.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use oy_boundary::{BoundaryError, Workspace};
use oy_provider::{ProviderEnv, ProviderTable, WireApi};
use oy_tools::{
    Ceiling, ChildEnv, Mode, Network, Policy, Privileges, Sandbox, SandboxInputs, SandboxSetting,
};

use crate::cli::Common;
use crate::config_file::{self, GlobalFile, MAX_CONFIG_BYTES, WORKSPACE_CONFIG};
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
    /// The kernel sandbox every command runs under.
    pub sandbox: Arc<Sandbox>,
    /// `--trust-tools`: approve the workspace's tools.json as it is.
    pub trust_workspace_tools: bool,
    /// The model (`--model`, `OY_MODEL`, the config's default, the
    /// provider table's default).
    pub model: Option<String>,
    /// Where `model` came from, for `oy doctor` and the session header.
    pub(crate) model_source: Option<String>,
    /// The provider name (`--provider`, `OY_PROVIDER`, the config's default).
    pub provider: Option<String>,
    /// Where `provider` came from.
    pub(crate) provider_source: Option<String>,
    /// The OpenAI-compatible wire API (`--wire-api`, `OY_WIRE_API`); the
    /// provider table's `wire_api` and the endpoint decide otherwise.
    pub(crate) wire_api: Option<WireApi>,
    /// Model requests allowed per turn (config, capped by the workspace's).
    /// A `--max-turns` flag goes through [`Config::max_turns_with`].
    pub max_turns: Option<u32>,
    /// The model's context window, when configured (the provider table's,
    /// else the global one).
    pub context_window: Option<u64>,
    /// A stream silent this long is cut (`idle_timeout_secs`).
    pub(crate) idle_timeout: Option<Duration>,
    /// The `[providers.NAME]` tables of the global config.
    pub(crate) providers: BTreeMap<String, ProviderTable>,
    /// The global config file's path, and whether it exists.
    pub(crate) config_file: Option<(PathBuf, bool)>,
    /// The workspace config's path when it exists, and what it changed.
    pub(crate) workspace_config: Option<(PathBuf, Vec<String>)>,
    /// Warnings already printed (unknown keys, ignored workspace keys).
    pub(crate) warnings: Vec<String>,
    /// The workspace config's caps: `/mode`, the network switch and
    /// `--max-turns` cannot go above them.
    pub(crate) ceiling: Ceiling,
    /// True when `--network` or the global config chose the network
    /// switch (rather than the mode's default).
    pub(crate) network_chosen: bool,
    /// Provider-related environment, read once here.
    pub provider_env: ProviderEnv,
}

impl Config {
    /// Resolves flags, the environment and the config files.
    pub(crate) fn resolve(common: &Common) -> Result<Self> {
        let root = match &common.root {
            Some(root) => root.clone(),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let config_dir = xdg_dir("XDG_CONFIG_HOME", ".config");
        let mut warnings = Vec::new();
        let (global, config_file) = match &config_dir {
            Some(dir) => {
                let path = dir.join("config.toml");
                match read_global(&path)? {
                    Some(text) => {
                        let (file, mut found) = config_file::parse_global(&path, &text)?;
                        warnings.append(&mut found);
                        (file, Some((path, true)))
                    }
                    None => (GlobalFile::default(), Some((path, false))),
                }
            }
            None => (GlobalFile::default(), None),
        };

        if global.idle_timeout_secs == Some(0) {
            return Err(UsageError::new(format!(
                "idle_timeout_secs in {} must be at least 1",
                config_source(&config_file)
            ))
            .into());
        }
        let explicit_mode = match &common.mode {
            Some(name) => Some(name.parse::<Mode>().map_err(UsageError::from)?),
            None => None,
        };
        let explicit_network = match &common.network {
            Some(name) => Some(name.parse::<Network>().map_err(UsageError::from)?),
            None => None,
        };
        let mode = explicit_mode.or(global.mode).unwrap_or_default();
        let network = explicit_network.or(global.network);
        let mut policy = Policy::new(mode, is_interactive());
        if let Some(network) = network {
            policy.network = network;
        }
        let max_turns = global.max_turns;

        let (provider, provider_source) = match (&common.provider, &global.provider) {
            (Some(name), _) => (
                Some(name.clone()),
                Some("--provider/OY_PROVIDER".to_owned()),
            ),
            (None, Some(name)) => (Some(name.clone()), Some(config_source(&config_file))),
            (None, None) => (None, None),
        };
        let table = provider
            .as_ref()
            .and_then(|name| global.providers.get(name));
        let (model, model_source) = match (&common.model, &global.model, table) {
            (Some(model), _, _) => (Some(model.clone()), Some("--model/OY_MODEL".to_owned())),
            (None, Some(model), _) => (Some(model.clone()), Some(config_source(&config_file))),
            (
                None,
                None,
                Some(ProviderTable {
                    model: Some(model), ..
                }),
            ) => (
                Some(model.clone()),
                Some(format!(
                    "providers.{}.model in the config",
                    provider.as_deref().unwrap_or_default()
                )),
            ),
            _ => (None, None),
        };
        let wire_api = match &common.wire_api {
            Some(name) => Some(
                name.parse::<WireApi>()
                    .map_err(|error| UsageError::new(error.to_string()))?,
            ),
            None => None,
        };
        let context_window = table
            .and_then(|table| table.context_window)
            .or(global.context_window);

        let explicit_sandbox = match &common.sandbox {
            Some(name) => Some(SandboxSetting::parse(name).ok_or_else(|| {
                UsageError::new(format!("unknown --sandbox `{name}`: use on or off"))
            })?),
            None => None,
        };
        let sandbox_setting = explicit_sandbox.or(global.sandbox).unwrap_or_default();

        let mut workspace_config = None;
        let mut ceiling = Ceiling::default();
        let mut privileges = Privileges {
            policy,
            network_chosen: network.is_some(),
            sandbox: sandbox_setting,
            max_turns,
        };
        if let Some((path, file)) = read_workspace(&root)? {
            let (file_ceiling, mut found) = config_file::parse_workspace(&path, &file)?;
            warnings.append(&mut found);
            let report = file_ceiling.apply(&mut privileges);
            warnings.extend(
                report
                    .ignored
                    .iter()
                    .map(|ignored| format!("ignored in {}: {ignored}", path.display())),
            );
            let effects = report.lowered.iter().map(ToString::to_string).collect();
            workspace_config = Some((path, effects));
            ceiling = file_ceiling;
        }
        let Privileges {
            policy,
            sandbox: sandbox_setting,
            max_turns,
            ..
        } = privileges;

        report_warnings(&warnings);
        let data_dir = xdg_dir("XDG_DATA_HOME", ".local/share");
        let sandbox = resolve_sandbox(
            sandbox_setting,
            &global.sandbox_read,
            [config_dir.clone(), data_dir.clone()]
                .into_iter()
                .flatten()
                .collect(),
        );
        Ok(Self {
            root,
            sandbox,
            policy,
            data_dir,
            config_dir,
            child_env: ChildEnv::filtered(std::env::vars_os(), &common.env_allow),
            trust_workspace_tools: common.trust_tools,
            model,
            model_source,
            provider,
            provider_source,
            wire_api,
            max_turns,
            context_window,
            idle_timeout: global.idle_timeout_secs.map(Duration::from_secs),
            provider_env: ProviderEnv::from_vars(
                &global.providers,
                |name| std::env::var_os(name),
                |path| path.is_file(),
            ),
            providers: global.providers,
            config_file,
            workspace_config,
            warnings,
            ceiling,
            network_chosen: network.is_some(),
        })
    }

    /// The policy for switching to `mode` mid-session (a chat's `/mode`):
    /// the mode's network default unless a network was chosen, and never
    /// above what the workspace config allows.
    pub(crate) fn policy_for_mode(&self, mode: Mode) -> Policy {
        let chosen = self.network_chosen.then_some(self.policy.network);
        self.ceiling
            .policy_for(mode, chosen, self.policy.interactive)
    }

    /// The turn limit for a run given `--max-turns` (if any): the flag
    /// beats the global config, but not the workspace's ceiling.
    pub(crate) fn max_turns_with(&self, flag: Option<u32>) -> Option<u32> {
        self.ceiling.cap_turns(flag.or(self.max_turns))
    }
}

fn config_source(config_file: &Option<(PathBuf, bool)>) -> String {
    match config_file {
        Some((path, _)) => path.display().to_string(),
        None => "the config file".to_owned(),
    }
}

#[expect(
    clippy::print_stderr,
    reason = "config warnings are diagnostics for the user"
)]
fn report_warnings(warnings: &[String]) {
    // Warnings quote config keys (a workspace's own file chooses them) and
    // paths: one line each, with nothing a terminal acts on.
    for warning in warnings {
        eprintln!("oy: warning: {}", crate::render::terminal_line(warning));
    }
}

/// The global config's text, or `None` when there is none.
fn read_global(path: &Path) -> Result<Option<String>> {
    #[expect(
        clippy::disallowed_methods,
        reason = "the user's own config file, outside any workspace"
    )]
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(UsageError::new(format!("cannot read {}: {error}", path.display())).into());
        }
    };
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(UsageError::new(format!(
            "{} is over {MAX_CONFIG_BYTES} bytes: not a config file",
            path.display()
        ))
        .into());
    }
    Ok(Some(text))
}

/// The workspace config's host path and text, read through the boundary.
/// Missing is fine; present but unreadable (a link out of the root, too
/// large, binary) fails closed, since it may have been meant to restrict.
fn read_workspace(root: &Path) -> Result<Option<(PathBuf, String)>> {
    // A root that cannot be opened is reported by the commands that need
    // it; completions and doctor still work.
    let Ok(workspace) = Workspace::open(root) else {
        return Ok(None);
    };
    let path = workspace.path(WORKSPACE_CONFIG)?;
    let host = workspace.host_path(&path);
    match workspace.read_text(&path, MAX_CONFIG_BYTES) {
        Ok(text) => Ok(Some((host, text))),
        Err(BoundaryError::NotFound { .. }) => Ok(None),
        Err(error) => Err(UsageError::new(format!(
            "cannot read the workspace config {}: {error}",
            host.display()
        ))
        .into()),
    }
}

/// A person can answer only when both stdin and stderr are terminals and
/// `OY_NON_INTERACTIVE` is not set: scripts and CI never get a silent yes.
fn is_interactive() -> bool {
    let forced_off =
        std::env::var_os("OY_NON_INTERACTIVE").is_some_and(|v| !v.is_empty() && v != "0");
    !forced_off && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// The sandbox from the setting and the values it needs from the
/// environment: the home directory, toolchain variables, the system's
/// temporary directory, and this program as the launcher.
fn resolve_sandbox(
    setting: SandboxSetting,
    extra_read: &[String],
    private_dirs: Vec<PathBuf>,
) -> Arc<Sandbox> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| home.is_absolute());
    let extra_read = extra_read
        .iter()
        .filter_map(|path| match (path.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => Some(home.join(rest)),
            (Some(_), None) => None,
            (None, _) => Some(PathBuf::from(path)),
        })
        .collect();
    let toolchain_env = oy_tools::sandbox::TOOLCHAIN_VARS
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), std::env::var_os(name)?)))
        .collect();
    Arc::new(Sandbox::resolve(SandboxInputs {
        setting,
        // `/proc/self/exe` names the running binary even if it is replaced
        // on disk during the run; `main` dispatches the launcher first.
        launcher: Some(PathBuf::from("/proc/self/exe")),
        home,
        toolchain_env,
        extra_read,
        private_dirs,
        temp_base: std::env::temp_dir(),
    }))
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
