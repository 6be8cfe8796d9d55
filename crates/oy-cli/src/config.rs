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
    /// `--trust-prompts`: approve the workspace's prompt files as they are.
    pub trust_workspace_prompts: bool,
    /// `--trust-mcp`: approve the workspace's MCP server file as it is.
    pub trust_workspace_mcp: bool,
    /// `--root` named the workspace (rather than the current directory).
    pub root_named: bool,
    /// The home directory (`HOME`), links resolved as a workspace root's
    /// are, to compare the two.
    pub home: Option<PathBuf>,
}

/// A config file `oy doctor` could not use, reported as one of its checks
/// while it goes on with the defaults.
#[derive(Debug, Clone)]
pub(crate) struct ConfigProblem {
    /// `config file` or `workspace config`.
    pub(crate) what: &'static str,
    /// The error, naming the file (and the line, for a parse error).
    pub(crate) message: String,
    /// What to do about it.
    pub(crate) hint: &'static str,
}

/// How strictly the config is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strictness {
    /// Every problem stops the command (`oy run` and the rest).
    Strict,
    /// Problems with the files and the root are collected (`oy doctor`).
    Lenient,
}

fn lookup(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

impl Config {
    /// Collects flags, the environment and the config files' texts, and
    /// resolves them. A root that is not a directory, or a config file
    /// that cannot be read or parsed, is a usage error.
    pub(crate) fn resolve(common: &Common) -> Result<Self> {
        Self::collect(common, Strictness::Strict).map(|(config, _)| config)
    }

    /// [`Config::resolve`] for `oy doctor`: a config file that cannot be
    /// used is left out and returned as a problem to report, and a root
    /// that cannot be opened is left for the report. Flags that name no
    /// value are still usage errors.
    pub(crate) fn resolve_lenient(common: &Common) -> Result<(Self, Vec<ConfigProblem>)> {
        Self::collect(common, Strictness::Lenient)
    }

    fn collect(common: &Common, strictness: Strictness) -> Result<(Self, Vec<ConfigProblem>)> {
        let lenient = strictness == Strictness::Lenient;
        let mut problems = Vec::new();
        let root = match &common.root {
            Some(root) => {
                if !lenient {
                    check_root(root)?;
                }
                root.clone()
            }
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let mut global = match Dirs::from_env(lookup).config_file() {
            Some(path) => match read_global(&path) {
                Ok(text) => text,
                Err(error) if lenient => {
                    problems.push(ConfigProblem::global(format!("{error:#}")));
                    None
                }
                Err(error) => return Err(error),
            },
            None => None,
        };
        let mut workspace = match Workspace::open(&root) {
            Ok(workspace) => match oy_config::read_workspace_config(&workspace) {
                Ok(text) => text,
                Err(error) if lenient => {
                    problems.push(ConfigProblem::workspace(error.to_string()));
                    None
                }
                Err(error) => return Err(cli_error(error)),
            },
            // Strict: checked above when named; the current directory is
            // reported by the commands that open it.
            Err(_) => None,
        };
        if lenient {
            // Parsed once here to know which file is at fault; the
            // settings parse them again.
            if let (Some(path), Some(text)) = (Dirs::from_env(lookup).config_file(), &global)
                && let Err(error) = oy_config::parse_global(&path, text)
            {
                problems.push(ConfigProblem::global(error.to_string()));
                global = None;
            }
            if let Some((path, text)) = &workspace
                && let Err(error) = oy_config::parse_workspace(path, text)
            {
                problems.push(ConfigProblem::workspace(error.to_string()));
                workspace = None;
            }
        }
        let mut overrides = Overrides::default();
        overrides.mode.clone_from(&common.mode);
        overrides.network.clone_from(&common.network);
        overrides.sandbox.clone_from(&common.sandbox);
        overrides.wire_api.clone_from(&common.wire_api);
        // An empty `--model ""` or `OY_MODEL=` is no choice at all.
        let given = |value: &Option<String>| value.clone().filter(|text| !text.trim().is_empty());
        overrides.model = given(&common.model).map(|id| Sourced::new(id, "--model/OY_MODEL"));
        overrides.provider =
            given(&common.provider).map(|name| Sourced::new(name, "--provider/OY_PROVIDER"));
        let terminals = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        let interactive = oy_config::is_interactive(lookup, terminals);
        let resolve = |global: Option<String>| {
            let texts = ConfigTexts {
                global,
                workspace: workspace.clone(),
            };
            Settings::resolve(&overrides, texts, interactive, lookup, Path::is_file)
        };
        let settings = match resolve(global.clone()) {
            // A value the global file holds that parses but cannot be
            // used (`idle_timeout_secs = 0`): doctor goes on without it.
            Err(error) if lenient && global.is_some() && is_file_error(&error) => {
                problems.push(ConfigProblem::global(error.to_string()));
                resolve(None).map_err(cli_error)?
            }
            resolved => resolved.map_err(cli_error)?,
        };
        report_warnings(&settings.warnings);
        // `/proc/self/exe` names the running binary even if it is replaced
        // on disk during the run; `main` dispatches the launcher first.
        let sandbox = Sandbox::resolve(settings.sandbox_inputs(
            lookup,
            Some(PathBuf::from("/proc/self/exe")),
            std::env::temp_dir(),
        ));
        let config = Self {
            root,
            settings,
            child_env: ChildEnv::filtered(std::env::vars_os(), &common.env_allow),
            sandbox: Arc::new(sandbox),
            trust_workspace_tools: common.trust_tools,
            trust_workspace_prompts: common.trust_prompts,
            trust_workspace_mcp: common.trust_mcp,
            root_named: common.root.is_some(),
            home: lookup("HOME").map(|home| canonical(PathBuf::from(home))),
        };
        Ok((config, problems))
    }

    /// The warning for a workspace that is the filesystem's root or the
    /// home directory ([`oy_boundary::BroadRoot`]), with its hint.
    pub(crate) fn broad_root(&self) -> Option<String> {
        let root = canonical(self.root.clone());
        let broad = oy_boundary::BroadRoot::of(&root, self.home.as_deref())?;
        Some(format!(
            "the workspace {} is {}, which is very broad: oy may read anything under it\n\
             hint: cd into a project first, or pass --root DIR",
            root.display(),
            broad.what()
        ))
    }
}

impl ConfigProblem {
    fn global(message: String) -> Self {
        Self {
            what: "config file",
            message,
            hint: "fix the file (or move it aside to use the defaults); other commands stop at it",
        }
    }

    fn workspace(message: String) -> Self {
        Self {
            what: "workspace config",
            message,
            hint: "fix .oy/config.toml: it may lower the mode, so runs here stop at it",
        }
    }
}

/// True for an error a config file's content caused (rather than a flag).
fn is_file_error(error: &ConfigError) -> bool {
    matches!(
        error,
        ConfigError::Syntax { .. } | ConfigError::ZeroIdleTimeout { .. }
    )
}

/// A named root must be a directory: anything else is the person's
/// mistake, said before any command starts.
fn check_root(root: &Path) -> Result<()> {
    #[expect(
        clippy::disallowed_methods,
        reason = "what the named root is, before the boundary opens it"
    )]
    let metadata = std::fs::metadata(root);
    let shown = crate::render::terminal_line(&root.display().to_string());
    let problem = match metadata {
        Ok(metadata) if metadata.is_dir() => return Ok(()),
        Ok(_) => format!("--root {shown} is a file, not a directory"),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            format!("--root {shown} does not exist")
        }
        Err(error) => format!("--root {shown} cannot be used: {error}"),
    };
    Err(UsageError::new(format!(
        "{problem}\nhint: pass the project's directory (--root DIR or OY_ROOT), or leave it out to use the current directory"
    ))
    .into())
}

/// `path` with links resolved, as a workspace's root is, or as given when
/// it cannot be.
#[expect(
    clippy::disallowed_methods,
    reason = "resolving a directory's name (the home, the root), nothing is opened"
)]
fn canonical(path: PathBuf) -> PathBuf {
    std::fs::canonicalize(&path).unwrap_or(path)
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

/// Prints `oy: warning: …` on stderr, its `hint:` lines after it.
#[expect(clippy::print_stderr, reason = "a diagnostic for the user")]
pub(crate) fn warn(warning: &str) {
    let mut lines = warning.lines();
    eprintln!(
        "oy: warning: {}",
        crate::render::terminal_line(lines.next().unwrap_or_default())
    );
    for line in lines {
        eprintln!("{}", crate::render::terminal_line(line));
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
