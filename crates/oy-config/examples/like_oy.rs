//! Embedding oy's configuration: the same config file and environment as
//! `oy run`, resolved with library calls, then an audit plan and one
//! read-only agent turn on the provider that configuration names.
//!
//! ```text
//! cargo run -p oy-config --example like_oy -- [--plan-only] [WORKSPACE] [PROMPT]
//! ```
//!
//! - The config file is `$XDG_CONFIG_HOME/oy/config.toml` (or
//!   `~/.config/oy/config.toml`), the workspace's `.oy/config.toml` caps
//!   it, and `OY_MODEL`, `OY_PROVIDER`, `OY_MODE`, `OY_WIRE_API` and the
//!   provider variables (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, a table's
//!   `env_key`…) count as they do for `oy`.
//! - WORKSPACE defaults to the current directory; PROMPT to a question
//!   about the project.
//! - `--plan-only` prints the audit plan and stops before any provider.
//!
//! Stdout gets `plan: …`, `provider: …` and the answer; warnings go to
//! stderr. The exit code is 0 when the model finished its answer, 1 on
//! any failure, 2 on a configuration error.

// The libraries never read the environment, files or the terminal, and
// never print; this program is the frontend that does.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program talks to its user on stdout and stderr"
)]

use std::error::Error;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use oy_agent::{AgentBuilder, TurnStop};
use oy_audit::{AuditOptions, ReportFormat, ReportTarget};
use oy_boundary::Workspace;
use oy_config::{ConfigError, ConfigTexts, Dirs, Overrides, Settings};
use oy_provider::{AwsConfig, AwsSettings};
use oy_tools::Mode;

/// The embedder's one view of the environment, handed to the libraries.
fn lookup(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let plan_only = args.iter().any(|arg| arg == "--plan-only");
    args.retain(|arg| arg != "--plan-only");
    let mut args = args.into_iter();
    let root = args.next().map(PathBuf::from);
    let prompt = args
        .next()
        .unwrap_or_else(|| "What does this project do?".to_owned());
    match run(root, &prompt, plan_only).await {
        Ok(None | Some(TurnStop::Done)) => ExitCode::SUCCESS,
        Ok(Some(_)) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error}");
            let usage = error
                .downcast_ref::<ConfigError>()
                .is_some_and(ConfigError::is_usage);
            ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}

async fn run(
    root: Option<PathBuf>,
    prompt: &str,
    plan_only: bool,
) -> Result<Option<TurnStop>, Box<dyn Error>> {
    // 1. The ambient reads: the workspace, the config file's text at the
    //    path the library names, the workspace config through the boundary.
    let root = match root {
        Some(root) => root,
        None => std::env::current_dir()?,
    };
    let workspace = Workspace::open(&root)?;
    let texts = ConfigTexts {
        global: match Dirs::from_env(lookup).config_file() {
            Some(path) => read_if_present(&path)?,
            None => None,
        },
        workspace: oy_config::read_workspace_config(&workspace)?,
    };

    // 2. The settings, as `oy` resolves them. Nobody is at a terminal to
    //    approve anything here.
    let settings = Settings::resolve(
        &Overrides::from_env(lookup),
        texts,
        false,
        lookup,
        Path::is_file,
    )?;
    for warning in &settings.warnings {
        eprintln!("warning: {warning}");
    }

    // 3. The audit plan: which files an audit would send, in how many
    //    chunks, for the configured model's window.
    let target = ReportTarget::check(&workspace, None, ReportFormat::Markdown)?;
    let prepared = oy_audit::prepare(
        &workspace,
        AuditOptions::new(target, settings.audit_window(None, None)),
        &|_| {},
    )?;
    let plan = prepared.plan();
    plan.check()?;
    println!(
        "plan: {} files, {} chunks, {} tokens (window {}, {})",
        prepared.collection().files.len(),
        plan.chunks.len(),
        plan.estimated_tokens,
        prepared.window().tokens,
        prepared.window().source,
    );
    if plan_only {
        return Ok(None);
    }

    // 4. The provider the settings choose. Bedrock would need an AWS
    //    configuration loaded with aws-config; this example has none.
    let no_aws = async |_: AwsSettings| AwsConfig::default();
    let connected = oy_provider::connect(&settings.connect_settings(), no_aws).await?;
    println!("provider: {}", connected.description);

    // 5. One read-only turn: plan mode, capped by the workspace config.
    let mut agent = AgentBuilder::new(connected.provider, connected.model)
        .workspace(Arc::new(workspace))
        .policy(settings.policy_for_mode(Mode::Plan))
        .options(settings.agent_options(None))
        .build()?;
    let outcome = agent.turn(prompt).await?;
    if let Some(reason) = &outcome.reason {
        eprintln!("stopped: {reason}");
    }
    println!("{}", outcome.text);
    Ok(Some(outcome.stop))
}

/// The user's own config file: read directly, outside any workspace.
fn read_if_present(path: &Path) -> std::io::Result<Option<String>> {
    #[expect(
        clippy::disallowed_methods,
        reason = "the user's own config file, outside any workspace"
    )]
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}
