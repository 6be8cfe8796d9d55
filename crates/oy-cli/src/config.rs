//! `Config`: the ambient values (flags, environment, config files, current
//! directory, terminal) collected once and resolved by `oy_config` into
//! [`Settings`], plus what only the running program can build: the child
//! environment and the sandbox. Nothing downstream reads them again.
//!
//! The precedence and the workspace ceiling are `oy_config`'s; clap reads
//! `OY_MODE`, `OY_MODEL`, `OY_PROVIDER` and `OY_WIRE_API` into the flags.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use oy_boundary::Workspace;
use oy_config::{ConfigError, ConfigTexts, Dirs, MAX_CONFIG_BYTES, Overrides, Settings};
use oy_provider::Sourced;
use oy_tools::{ChildEnv, Sandbox};

use crate::cli::Common;
use crate::exit::UsageError;

/// The resolved configuration of one `oy` run.
#[derive(Debug, Clone)]
pub struct Config {
    /// The workspace root (as given; the boundary canonicalises it).
    pub root: PathBuf,
    /// The user's configuration, resolved by `oy_config`.
    pub settings: Settings,
    /// The environment child processes get: ours minus credentials.
    pub child_env: ChildEnv,
    /// The kernel sandbox every command runs under.
    pub sandbox: Arc<Sandbox>,
    /// `--trust-tools`: approve the workspace's tools.json as it is.
    pub trust_workspace_tools: bool,
    /// `--root` named the workspace (rather than the current directory).
    pub root_named: bool,
}

fn lookup(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

impl Config {
    /// Collects flags, the environment and the config files' texts, and
    /// resolves them.
    pub(crate) fn resolve(common: &Common) -> Result<Self> {
        let root = match &common.root {
            Some(root) => root.clone(),
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let global = match Dirs::from_env(lookup).config_file() {
            Some(path) => read_global(&path)?,
            None => None,
        };
        // A root that cannot be opened is reported by the commands that
        // need it; completions and doctor still work.
        let workspace = match Workspace::open(&root) {
            Ok(workspace) => oy_config::read_workspace_config(&workspace).map_err(cli_error)?,
            Err(_) => None,
        };
        let mut overrides = Overrides::default();
        overrides.mode.clone_from(&common.mode);
        overrides.network.clone_from(&common.network);
        overrides.sandbox.clone_from(&common.sandbox);
        overrides.wire_api.clone_from(&common.wire_api);
        overrides.model = (common.model.clone()).map(|id| Sourced::new(id, "--model/OY_MODEL"));
        overrides.provider =
            (common.provider.clone()).map(|name| Sourced::new(name, "--provider/OY_PROVIDER"));
        let terminals = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        let settings = Settings::resolve(
            &overrides,
            ConfigTexts { global, workspace },
            oy_config::is_interactive(lookup, terminals),
            lookup,
            Path::is_file,
        )
        .map_err(cli_error)?;
        report_warnings(&settings.warnings);
        // `/proc/self/exe` names the running binary even if it is replaced
        // on disk during the run; `main` dispatches the launcher first.
        let sandbox = Sandbox::resolve(settings.sandbox_inputs(
            lookup,
            Some(PathBuf::from("/proc/self/exe")),
            std::env::temp_dir(),
        ));
        Ok(Self {
            root,
            settings,
            child_env: ChildEnv::filtered(std::env::vars_os(), &common.env_allow),
            sandbox: Arc::new(sandbox),
            trust_workspace_tools: common.trust_tools,
            root_named: common.root.is_some(),
        })
    }
}

/// `error` as the command line reports it: a usage error (exit 2), naming
/// `--sandbox` where the setting came from it; a workspace path that
/// cannot be formed stays a failure.
fn cli_error(error: ConfigError) -> anyhow::Error {
    match error {
        ConfigError::Sandbox { given } => {
            UsageError::new(format!("unknown --sandbox `{given}`: use on or off")).into()
        }
        error if !error.is_usage() => error.into(),
        error => UsageError::new(error.to_string()).into(),
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
