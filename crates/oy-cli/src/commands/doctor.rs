//! `oy doctor`: what a run would use (config files, workspace, mode,
//! provider, credentials, model, shell, a writable data directory) and
//! whether it would work. Each problem gets a `hint:` line; exit 1 when
//! something blocks a run. A config file that does not parse is one of
//! those problems: the config is resolved leniently so the other checks
//! still run.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use oy_boundary::Workspace;

use crate::cli::Common;
use crate::config::{Config, ConfigProblem};
use crate::exit::Exit;
use crate::provider_setup::{self, cli_error};
use crate::render::terminal_line;

/// How long the provider gets to answer each check (`GET /models`, or
/// Bedrock's runtime and control plane).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The report being built: plain text lines, and whether a run is blocked.
#[derive(Default)]
struct Report {
    text: String,
    blocked: bool,
}

/// Every value and hint passes through [`terminal_line`]: they name paths
/// (the workspace, config files), config keys, provider names, URLs and
/// server errors, none of which may move the cursor or forge a line.
impl Report {
    fn line(&mut self, label: &str, value: impl std::fmt::Display) {
        let value = terminal_line(&value.to_string());
        let _ = writeln!(self.text, "{label:<18}{value}");
    }

    fn hint(&mut self, hint: impl std::fmt::Display) {
        let hint = terminal_line(&hint.to_string());
        let _ = writeln!(self.text, "  hint: {hint}");
    }

    /// A problem that stops a run: noted, with what to do.
    fn blocker(&mut self, label: &str, problem: impl std::fmt::Display, hints: &[&str]) {
        self.blocked = true;
        self.line(label, format!("PROBLEM: {problem}"));
        for hint in hints {
            self.hint(hint);
        }
    }
}

pub(crate) fn run(common: &Common) -> Result<Exit> {
    let (config, problems) = Config::resolve_lenient(common)?;
    let config = &config;
    let mut report = Report::default();
    report.line("oy", env!("CARGO_PKG_VERSION"));
    paths(config, &problems, &mut report);
    interrupted_changes(config, &mut report);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(provider(config, &mut report));
    runtime.block_on(mcp_servers(config, &mut report));
    let mut stdout = crate::stdout::lock();
    stdout.write_all(report.text.as_bytes())?;
    if report.blocked {
        writeln!(stdout, "\nresult: a run would fail; see the hints above")?;
        Ok(Exit::Failed)
    } else {
        writeln!(stdout, "\nresult: ready")?;
        Ok(Exit::Ok)
    }
}

/// Starts each configured MCP server once, as a session would, and says
/// how it went. A server that fails does not block a run: its tools are
/// left out.
async fn mcp_servers(config: &Config, report: &mut Report) {
    let Ok(workspace) = Workspace::open(&config.root) else {
        return;
    };
    let reserved = oy_tools::default_registry().names();
    let mcp = match crate::mcp::load(config, &workspace, reserved, true) {
        Ok(Some(mcp)) => mcp,
        Ok(None) => return,
        Err(error) => {
            report.line("mcp servers", format!("PROBLEM: {error:#}"));
            return;
        }
    };
    let ctx = crate::mcp::context(config, std::sync::Arc::new(workspace));
    mcp.start_all(&ctx).await;
    for server in mcp.report() {
        let label = format!("mcp {}", server.name);
        match &server.status {
            oy_mcp::ServerStatus::Ready => report.line(
                &label,
                format!(
                    "ready, {} tools, {} bytes in every request",
                    server.tools.len(),
                    server.request_bytes()
                ),
            ),
            oy_mcp::ServerStatus::Disabled => report.line(&label, "disabled"),
            oy_mcp::ServerStatus::Failed(why) => {
                report.line(&label, format!("PROBLEM: {why}"));
                report.hint("its tools are left out of runs; `oy mcp list` shows every server");
            }
            _ => report.line(&label, "not started"),
        }
    }
}

fn paths(config: &Config, problems: &[ConfigProblem], report: &mut Report) {
    let problem = |what: &str| problems.iter().find(|problem| problem.what == what);
    match &config.settings.config_file {
        _ if let Some(problem) = problem("config file") => {
            report.blocker(problem.what, &problem.message, &[problem.hint]);
        }
        Some((path, true)) => report.line("config file", format!("{} (loaded)", path.display())),
        Some((path, false)) => report.line(
            "config file",
            format!("{} (not present; defaults used)", path.display()),
        ),
        None => {
            report.line(
                "config file",
                "none (neither XDG_CONFIG_HOME nor HOME is set)",
            );
        }
    }
    for warning in &config.settings.warnings {
        report.line("warning", warning);
    }
    let workspace = match Workspace::open(&config.root) {
        Ok(workspace) => {
            report.line("workspace", workspace.root().display());
            if let Some(warning) = config.broad_root() {
                let mut lines = warning.lines();
                report.line("", format!("warning: {}", lines.next().unwrap_or_default()));
                for line in lines {
                    report.hint(line.trim_start_matches("hint: "));
                }
            }
            Some(workspace)
        }
        Err(error) => {
            report.blocker(
                "workspace",
                format!("{}: {error}", config.root.display()),
                &["run oy inside the project directory, or pass --root DIR"],
            );
            None
        }
    };
    match &config.settings.workspace_config {
        _ if let Some(problem) = problem("workspace config") => {
            report.blocker(problem.what, &problem.message, &[problem.hint]);
        }
        Some((path, effects)) if effects.is_empty() => {
            report.line(
                "workspace config",
                format!("{} (no effect)", path.display()),
            );
        }
        Some((path, effects)) => report.line(
            "workspace config",
            format!("{}: {}", path.display(), effects.join("; ")),
        ),
        None => report.line("workspace config", "none"),
    }
    report.line(
        "mode",
        format!(
            "{} (network {})",
            config.settings.policy.mode,
            config.settings.policy.network.name()
        ),
    );
    if let Some(turns) = config.settings.max_turns_with(None) {
        report.line("max turns", turns);
    }
    match &config.settings.dirs.data_dir {
        Some(dir) => match probe_writable(dir) {
            Ok(()) => report.line(
                "data dir",
                format!("{} (writable; sessions, history)", dir.display()),
            ),
            Err(error) => report.blocker(
                "data dir",
                format!("{} is not writable: {error}", dir.display()),
                &[
                    "sessions and the chat history are saved there: fix its permissions \
                     (it should be yours, mode 0700), or set XDG_DATA_HOME to a writable directory",
                ],
            ),
        },
        None => report.blocker(
            "data dir",
            "unknown: neither XDG_DATA_HOME nor HOME is set",
            &["set HOME or XDG_DATA_HOME so sessions can be saved"],
        ),
    }
    match find_on_path(config, "bash") {
        Some(path) => report.line("shell", path.display()),
        None => {
            report.line("shell", "PROBLEM: bash not found on PATH");
            report.hint("install bash: the bash and exec_command tools need it");
        }
    }
    sandbox(config, report);
    if let Some(workspace) = &workspace {
        let present = workspace
            .path("AGENTS.md")
            .ok()
            .and_then(|path| workspace.metadata(&path).ok())
            .is_some();
        report.line(
            "AGENTS.md",
            if present {
                "present (added to the instructions)"
            } else {
                "none"
            },
        );
    }
}

/// Completes or undoes, as every start of oy in the workspace does, the
/// changes of several files a process that died left half made, and says
/// what became of them (docs/crash-safety.md).
fn interrupted_changes(config: &Config, report: &mut Report) {
    let (Some(dir), Ok(workspace)) = (
        crate::agent_setup::journal_dir(config),
        Workspace::open(&config.root),
    ) else {
        return;
    };
    let journal = oy_tools::ChangeJournal::for_workspace(&dir, workspace.root());
    let ctx = oy_tools::ToolContext::new(std::sync::Arc::new(workspace), config.settings.policy)
        .with_sandbox(std::sync::Arc::clone(&config.sandbox))
        .with_journal(std::sync::Arc::new(journal));
    let recovered = ctx.recover_interrupted();
    if recovered.is_empty() {
        report.line("interrupted", "none");
    }
    for change in recovered {
        match change.outcome {
            oy_tools::RecoveryOutcome::Incomplete => {
                report.line("interrupted", format!("PROBLEM: {}", change.message()));
                report.hint(
                    "read the files named and put them right; oy tries again at its next start",
                );
            }
            oy_tools::RecoveryOutcome::ChangedSince | oy_tools::RecoveryOutcome::Unreadable => {
                report.line("interrupted", change.message());
                report.hint("read the files named: oy left them as they are (`git diff` shows what a half-applied patch changed)");
            }
            _ => report.line("interrupted", change.message()),
        }
    }
}

/// The sandbox level the kernel allows, and why it is not full. Not a
/// blocker: commands still run, and the run says so once.
fn sandbox(config: &Config, report: &mut Report) {
    let sandbox = &config.sandbox;
    let support = sandbox.support();
    let level = sandbox.level();
    let detail = if sandbox.setting() == oy_tools::SandboxSetting::Off {
        "off by your choice".to_owned()
    } else {
        let landlock = support.landlock_abi.map_or_else(
            || "no Landlock".to_owned(),
            |abi| format!("Landlock ABI {abi}+"),
        );
        let seccomp = if support.seccomp {
            "seccomp"
        } else {
            "no seccomp"
        };
        let mounts = if support.mount_namespace {
            "mount namespace"
        } else {
            "no mount namespace"
        };
        format!("{landlock}, {seccomp}, {mounts}")
    };
    report.line("sandbox", format!("{level} ({detail})"));
    for missing in sandbox.missing() {
        report.hint(format!(
            "{missing}; `oy sandbox` shows the rules, docs/sandbox.md explains them"
        ));
    }
}

async fn provider(config: &Config, report: &mut Report) {
    let settings = config.settings.connect_settings();
    let choice = match oy_provider::choose_provider(&settings)
        .await
        .map_err(cli_error)
    {
        Ok(choice) => choice,
        Err(error) => {
            let text = error.to_string();
            let mut lines = text.lines();
            report.blocked = true;
            report.line(
                "provider",
                format!("PROBLEM: {}", lines.next().unwrap_or_default()),
            );
            for line in lines {
                report.hint(line.trim_start_matches("hint: "));
            }
            return;
        }
    };
    report.line("provider", format!("{} ({})", choice.name, choice.why));
    report.line("endpoint", choice.endpoint());
    if let Some(wire) = choice.wire_api() {
        report.line("wire API", wire.name());
    }
    report.line("credentials", choice.credential());
    // Building resolves AWS credentials: none found is a credentials
    // problem, whatever the environment suggested.
    let built = oy_provider::build_provider(&settings, &choice, provider_setup::load_aws).await;
    let provider = match built {
        Ok((provider, _)) => provider,
        Err(error) => {
            let label = match error {
                oy_provider::ConnectError::NoAwsCredentials { .. }
                | oy_provider::ConnectError::AwsCredentials { .. } => "",
                _ => "connection",
            };
            let text = format!("{:#}", cli_error(error));
            let mut lines = text.lines();
            report.blocked = true;
            report.line(
                label,
                format!("PROBLEM: {}", lines.next().unwrap_or_default()),
            );
            for line in lines {
                report.hint(line.trim_start_matches("hint: "));
            }
            return;
        }
    };
    // A run needs prompts to get through; a model list that cannot be had
    // (Bedrock's control plane) is only a warning.
    let found = provider.check(ANSWER_TIMEOUT).await;
    let listed = match (found.inference, found.models) {
        (Ok(()), Ok(models)) => {
            report.line("answers", format!("yes ({} models listed)", models.len()));
            Some(models)
        }
        (Ok(()), Err(error)) => {
            report.line("answers", "yes");
            report.line("models", format!("warning: not listed: {error}"));
            if let Some(hint) = choice.listing_hint() {
                report.hint(hint);
            }
            None
        }
        (Err(error), _) => {
            let mut hints = vec![
                "check that the server is running and the endpoint above is right",
                "check the credentials above; `oy model` retries the listing",
            ];
            if error.kind() == oy_provider::ErrorKind::Timeout {
                hints.push("check the endpoint and any proxy (HTTPS_PROXY, NO_PROXY)");
            }
            report.blocker("answers", format!("no: {error}"), &hints);
            None
        }
    };
    // The listing above (or its failure) stands: the server is not asked
    // again.
    let known = Some(listed.as_deref().unwrap_or_default());
    match oy_provider::choose_model(&settings, &choice, provider.as_ref(), known).await {
        Ok(chosen) => {
            let model = chosen.id;
            report.line("model", format!("{model} ({})", chosen.why));
            if let Some(models) = &listed
                && !models.is_empty()
                && !models.iter().any(|info| info.id == model)
            {
                report.line("", "warning: the provider does not list this model");
                report
                    .hint("`oy model` lists the provider's models; `oy model --set ID` saves one");
            }
        }
        Err(_) => {
            report.blocker(
                "model",
                "none chosen",
                &[
                    "pass --model ID or set OY_MODEL",
                    "`oy model` lists the provider's models; `oy model --set ID` saves one",
                ],
            );
        }
    }
}

/// Whether oy can write in its data directory, as a run would: the
/// directory is made (private) when missing, and a probe file created and
/// removed in it.
fn probe_writable(dir: &Path) -> Result<()> {
    let dir = crate::private_dir::private_dir(dir, None)?;
    let probe = dir.join(format!(".doctor-probe-{}", std::process::id()));
    #[expect(
        clippy::disallowed_methods,
        reason = "a probe file in oy's own data directory, outside any workspace"
    )]
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| std::fs::remove_file(&probe));
    Ok(written?)
}

/// The first executable `name` in the children's `PATH`.
fn find_on_path(config: &Config, name: &str) -> Option<std::path::PathBuf> {
    let path = config.child_env.get("PATH")?;
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    #[expect(
        clippy::disallowed_methods,
        reason = "looking up a program on PATH, outside any workspace"
    )]
    let metadata = std::fs::metadata(path);
    metadata.is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}
