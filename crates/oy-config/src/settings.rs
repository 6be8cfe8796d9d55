//! [`Settings`]: the user's configuration for one run, resolved from the
//! values a frontend collected.
//!
//! Precedence: overrides (flags, or the `OY_*` variables) > the global
//! config file > defaults. A workspace's `.oy/config.toml` comes last and
//! can only lower privileges: it caps the mode, the network switch, the
//! sandbox and the turn limit, whatever set them, because it speaks for a
//! repository the user may not trust (docs/configuration.md).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oy_provider::{ProviderEnv, ProviderTable, Sourced, WireApi};
use oy_tools::{Ceiling, Mode, Network, Policy, Privileges, SandboxSetting};

use crate::file::{GlobalFile, parse_global, parse_workspace};
use crate::{ConfigError, Dirs, Overrides};

/// The config files' texts, as the frontend read them.
#[derive(Debug, Clone, Default)]
pub struct ConfigTexts {
    /// The text of the global config file at [`Dirs::config_file`], when
    /// it exists.
    pub global: Option<String>,
    /// The workspace config's host path and text, when it exists
    /// ([`crate::read_workspace_config`]).
    pub workspace: Option<(PathBuf, String)>,
}

/// The resolved configuration of one run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Settings {
    /// Mode, network switch, and whether a person can answer.
    pub policy: Policy,
    /// oy's config and data directories.
    pub dirs: Dirs,
    /// The model (an override, the config's default, the provider table's
    /// default) and where it came from.
    pub model: Option<Sourced>,
    /// The provider name (an override, the config's default) and where it
    /// came from.
    pub provider: Option<Sourced>,
    /// The OpenAI-compatible wire API named by an override; the provider
    /// table's `wire_api` and the endpoint decide otherwise.
    pub wire_api: Option<WireApi>,
    /// Model requests allowed per turn (config, capped by the workspace's).
    /// A per-run limit goes through [`Settings::max_turns_with`].
    pub max_turns: Option<u32>,
    /// The model's context window, when configured (the provider table's,
    /// else the global one).
    pub context_window: Option<u64>,
    /// A stream silent this long is cut (`idle_timeout_secs`).
    pub idle_timeout: Option<Duration>,
    /// The `[providers.NAME]` tables of the global config.
    pub providers: BTreeMap<String, ProviderTable>,
    /// The global config file's path, and whether it was loaded.
    pub config_file: Option<(PathBuf, bool)>,
    /// The workspace config's path when it exists, and what it changed.
    pub workspace_config: Option<(PathBuf, Vec<String>)>,
    /// Warnings for the user (unknown keys, ignored workspace keys).
    pub warnings: Vec<String>,
    /// The workspace config's caps: a mode switch, the network switch and
    /// a turn limit cannot go above them.
    pub ceiling: Ceiling,
    /// True when an override or the global config chose the network
    /// switch (rather than the mode's default).
    pub network_chosen: bool,
    /// The command sandbox: on or off.
    pub sandbox: SandboxSetting,
    /// More paths commands may read, as configured (`~/` is the home
    /// directory; see [`Settings::sandbox_inputs`]).
    pub sandbox_read: Vec<String>,
    /// Provider-related environment.
    pub provider_env: ProviderEnv,
    /// The global config's MCP servers that pass their checks, by name
    /// (a table that does not is left out with a warning).
    pub mcp_servers: Vec<(String, oy_mcp::ServerConfig)>,
}

impl Settings {
    /// Resolves `overrides`, the config `texts` and the environment
    /// (`lookup`, and `is_file` for the AWS shared files) into settings.
    /// `interactive` says whether a person can answer ([`crate::is_interactive`]).
    pub fn resolve(
        overrides: &Overrides,
        texts: ConfigTexts,
        interactive: bool,
        lookup: impl Fn(&str) -> Option<OsString>,
        is_file: impl Fn(&Path) -> bool,
    ) -> Result<Self, ConfigError> {
        let dirs = Dirs::from_env(&lookup);
        let mut warnings = Vec::new();
        let (global, config_file) = match (dirs.config_file(), texts.global) {
            (Some(path), Some(text)) => {
                let (file, mut found) = parse_global(&path, &text)?;
                warnings.append(&mut found);
                (file, Some((path, true)))
            }
            (Some(path), None) => (GlobalFile::default(), Some((path, false))),
            (None, _) => (GlobalFile::default(), None),
        };
        let config_source = match &config_file {
            Some((path, _)) => path.display().to_string(),
            None => "the config file".to_owned(),
        };

        if global.idle_timeout_secs == Some(0) {
            return Err(ConfigError::ZeroIdleTimeout {
                source_name: config_source,
            });
        }
        let explicit_mode = match &overrides.mode {
            Some(name) => Some(name.parse::<Mode>().map_err(ConfigError::Mode)?),
            None => None,
        };
        let explicit_network = match &overrides.network {
            Some(name) => Some(name.parse::<Network>().map_err(ConfigError::Network)?),
            None => None,
        };
        let mode = explicit_mode.or(global.mode).unwrap_or_default();
        let network = explicit_network.or(global.network);
        let mut policy = Policy::new(mode, interactive);
        if let Some(network) = network {
            policy.network = network;
        }

        let provider = overrides.provider.clone().or_else(|| {
            global
                .provider
                .as_ref()
                .map(|name| Sourced::new(name, &config_source))
        });
        let table = provider
            .as_ref()
            .and_then(|name| global.providers.get(&name.value));
        let model = overrides
            .model
            .clone()
            .or_else(|| {
                global
                    .model
                    .as_ref()
                    .map(|model| Sourced::new(model, &config_source))
            })
            .or_else(|| {
                let name = &provider.as_ref()?.value;
                let model = table?.model.as_ref()?;
                Some(Sourced::new(
                    model,
                    format!("providers.{name}.model in the config"),
                ))
            });
        let wire_api = match &overrides.wire_api {
            Some(name) => Some(name.parse::<WireApi>().map_err(ConfigError::WireApi)?),
            None => None,
        };
        let context_window = table
            .and_then(|table| table.context_window)
            .or(global.context_window);

        let explicit_sandbox = match &overrides.sandbox {
            Some(name) => {
                Some(
                    SandboxSetting::parse(name).ok_or_else(|| ConfigError::Sandbox {
                        given: name.clone(),
                    })?,
                )
            }
            None => None,
        };
        let sandbox = explicit_sandbox.or(global.sandbox).unwrap_or_default();

        let mut workspace_config = None;
        let mut ceiling = Ceiling::default();
        let mut privileges = Privileges {
            policy,
            network_chosen: network.is_some(),
            sandbox,
            max_turns: global.max_turns,
        };
        if let Some((path, text)) = texts.workspace {
            let (file_ceiling, mut found) = parse_workspace(&path, &text)?;
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
            sandbox,
            max_turns,
            ..
        } = privileges;
        let mut mcp_servers = Vec::new();
        for (name, server) in global.mcp_servers {
            match server.check(&name) {
                Ok(()) => mcp_servers.push((name, server)),
                Err(error) => warnings.push(format!("ignoring it: {error} (in {config_source})")),
            }
        }

        Ok(Self {
            policy,
            dirs,
            model,
            provider,
            wire_api,
            max_turns,
            context_window,
            idle_timeout: global.idle_timeout_secs.map(Duration::from_secs),
            provider_env: ProviderEnv::from_vars(&global.providers, &lookup, is_file),
            providers: global.providers,
            config_file,
            workspace_config,
            warnings,
            ceiling,
            network_chosen: network.is_some(),
            sandbox,
            sandbox_read: global.sandbox_read,
            mcp_servers,
        })
    }

    /// The policy for switching to `mode` mid-session (a chat's `/mode`):
    /// the mode's network default unless a network was chosen, and never
    /// above what the workspace config allows.
    pub fn policy_for_mode(&self, mode: Mode) -> Policy {
        let chosen = self.network_chosen.then_some(self.policy.network);
        self.ceiling
            .policy_for(mode, chosen, self.policy.interactive)
    }

    /// The turn limit for a run given a per-run limit (if any): it beats
    /// the global config, but not the workspace's ceiling.
    pub fn max_turns_with(&self, per_run: Option<u32>) -> Option<u32> {
        self.ceiling.cap_turns(per_run.or(self.max_turns))
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
