//! [`Settings`] as the libraries' inputs: `ConnectSettings` for
//! oy-provider, `AgentOptions` for oy-agent, the audit's context window,
//! the sandbox's inputs for oy-tools, and the MCP servers for oy-mcp.

use std::ffi::OsString;
use std::path::PathBuf;

use oy_agent::AgentOptions;
use oy_audit::ContextWindow;
use oy_mcp::{Origin, ServerConfig, ServerSpec};
use oy_provider::{ConnectSettings, ServerWindow};
use oy_tools::SandboxInputs;

use crate::Settings;

impl Settings {
    /// The MCP servers of a run: the global config's, then the trusted
    /// workspace file's (`workspace`) except a name the global config
    /// already uses — the user's own server wins, and a note says so. The
    /// variables a server names are looked up with `lookup`.
    pub fn mcp_specs(
        &self,
        workspace: Vec<(String, ServerConfig)>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> (Vec<ServerSpec>, Vec<String>) {
        let mut notes = Vec::new();
        let mut specs: Vec<ServerSpec> = self
            .mcp_servers
            .iter()
            .map(|(name, config)| ServerSpec::resolve(name, Origin::Global, config.clone(), lookup))
            .collect();
        for (name, config) in workspace {
            if specs.iter().any(|spec| spec.name == name) {
                notes.push(format!(
                    "the workspace's MCP server `{name}` is ignored: your config defines a server of that name"
                ));
                continue;
            }
            specs.push(ServerSpec::resolve(
                &name,
                Origin::Workspace,
                config,
                lookup,
            ));
        }
        (specs, notes)
    }

    /// The provider settings: the tables, the provider and model named
    /// (with where), the wire API, the idle timeout and the environment's
    /// provider values; `oy_provider::connect` makes the choice.
    pub fn connect_settings(&self) -> ConnectSettings {
        let mut settings = ConnectSettings::default();
        settings.providers.clone_from(&self.providers);
        settings.provider.clone_from(&self.provider);
        settings.model.clone_from(&self.model);
        settings.wire_api = self.wire_api;
        settings.idle_timeout = self.idle_timeout;
        settings.env.clone_from(&self.provider_env);
        settings
    }

    /// The agent's options for a run with a per-run turn limit (if any):
    /// the limit (capped by the workspace, at least 1) and the context
    /// window.
    pub fn agent_options(&self, max_turns: Option<u32>) -> AgentOptions {
        let mut options = AgentOptions::default();
        if let Some(max) = self.max_turns_with(max_turns) {
            options.max_turns = max.max(1);
        }
        options.context_window = self.context_window;
        options
    }

    /// The window an audit plans with: the configured one, else the one
    /// the `server` reported (`Provider::context_window`), else the one
    /// known for the `model` (the configured one when `None`), else the
    /// agent's fallback.
    pub fn audit_window(&self, model: Option<&str>, server: Option<ServerWindow>) -> ContextWindow {
        ContextWindow::choose(
            self.context_window,
            server,
            model.or(self.model.as_ref().map(|model| model.value.as_str())),
            oy_agent::known_window,
            oy_agent::FALLBACK_WINDOW,
        )
    }

    /// The sandbox's inputs from the setting and what it needs from the
    /// environment (`lookup`): the home directory, toolchain variables,
    /// the `sandbox_read` paths with `~/` expanded (dropped without a
    /// home), and oy's own directories. The frontend adds what only it
    /// knows: the `launcher` (the running program, which dispatches the
    /// launcher first thing) and the system's temporary directory.
    pub fn sandbox_inputs(
        &self,
        lookup: impl Fn(&str) -> Option<OsString>,
        launcher: Option<PathBuf>,
        temp_base: PathBuf,
    ) -> SandboxInputs {
        let home = lookup("HOME")
            .map(PathBuf::from)
            .filter(|home| home.is_absolute());
        let extra_read = self
            .sandbox_read
            .iter()
            .filter_map(|path| match (path.strip_prefix("~/"), &home) {
                (Some(rest), Some(home)) => Some(home.join(rest)),
                (Some(_), None) => None,
                (None, _) => Some(PathBuf::from(path)),
            })
            .collect();
        let toolchain_env = oy_tools::sandbox::TOOLCHAIN_VARS
            .iter()
            .filter_map(|name| Some(((*name).to_owned(), lookup(name)?)))
            .collect();
        let private_dirs = [self.dirs.config_dir.clone(), self.dirs.data_dir.clone()]
            .into_iter()
            .flatten()
            .collect();
        SandboxInputs {
            setting: self.sandbox,
            launcher,
            home,
            toolchain_env,
            extra_read,
            private_dirs,
            temp_base,
        }
    }
}
