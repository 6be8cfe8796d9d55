//! Building an `oy_agent::Agent` from the resolved config: the tool
//! registry (with user tools and MCP servers), the terminal approver when a person can
//! answer, the child environment, the cancellation token, the session
//! store under the data directory, and a resumed session when asked.

use std::sync::Arc;

use anyhow::{Context, Result};
use oy_agent::{Agent, AgentBuilder, AgentEventSink, SessionStore};
use oy_tools::CancelToken;

use crate::approver::TerminalPrompt;
use crate::config::Config;
use crate::exit::UsageError;
use crate::private_dir::private_dir;
use crate::provider_setup::Connected;

/// Which saved session to continue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resume {
    /// A new session.
    No,
    /// `--resume ID`.
    Id(String),
    /// `--continue`: this workspace's latest.
    Latest,
}

impl Resume {
    pub(crate) fn from_flags(resume: Option<String>, continue_: bool) -> Self {
        match (resume, continue_) {
            (Some(id), _) => Self::Id(id),
            (None, true) => Self::Latest,
            (None, false) => Self::No,
        }
    }
}

/// `DATA_DIR/sessions`, created private on first use.
pub(crate) fn session_store(config: &Config) -> Result<SessionStore> {
    let data_dir = config.settings.dirs.data_dir.as_deref().ok_or_else(|| {
        UsageError::new("no data directory for sessions: set XDG_DATA_HOME or HOME")
    })?;
    let dir = private_dir(data_dir, Some("sessions"))?;
    SessionStore::open(&dir).with_context(|| format!("cannot open {}", dir.display()))
}

/// `DATA_DIR/checkpoints`: every session's undo checkpoints, created
/// private on first use.
pub(crate) fn checkpoints_dir(config: &Config) -> Result<std::path::PathBuf> {
    let data_dir = config.settings.dirs.data_dir.as_deref().ok_or_else(|| {
        UsageError::new("no data directory for checkpoints: set XDG_DATA_HOME or HOME")
    })?;
    private_dir(data_dir, Some(oy_agent::CHECKPOINTS_DIR))
}

/// `DATA_DIR/journal`: the intent journals of changes of several files
/// (one private subdirectory per workspace, made on first use). `None`
/// without a data directory: changes are then not journalled.
pub(crate) fn journal_dir(config: &Config) -> Option<std::path::PathBuf> {
    let data_dir = config.settings.dirs.data_dir.as_deref()?;
    Some(data_dir.join(oy_tools::JOURNAL_DIR))
}

/// Everything a command needs to drive turns.
pub(crate) struct Built {
    pub(crate) agent: Agent,
    /// How the provider was chosen, for people.
    pub(crate) description: String,
    pub(crate) cancel: CancelToken,
    pub(crate) store: Arc<SessionStore>,
    /// The session's MCP servers, when any is configured.
    pub(crate) mcp: Option<Arc<oy_mcp::McpTools>>,
}

/// Builds the agent for `config` on `connected`.
pub(crate) fn build(
    config: &Config,
    connected: Connected,
    events: Arc<dyn AgentEventSink>,
    resume: &Resume,
    max_turns: Option<u32>,
) -> Result<Built> {
    let (mut registry, workspace) = crate::user_tools::registry_for(config)?;
    // Servers start at the first request that offers their tools.
    let mcp = crate::mcp::load(config, &workspace, registry.names(), false)?;
    if let Some(mcp) = &mcp {
        registry.add_source(Arc::clone(mcp) as Arc<dyn oy_tools::ToolSource>);
    }
    let store = Arc::new(session_store(config)?);
    let root = workspace.root().display().to_string();
    let saved = match resume {
        Resume::No => None,
        Resume::Id(id) => Some(
            store
                .load(id)
                .map_err(|error| UsageError::new(error.to_string()))?,
        ),
        Resume::Latest => {
            let latest = store.latest_for(&root)?.ok_or_else(|| {
                UsageError::new(format!(
                    "no saved session for {root}; `oy sessions --all` lists the others"
                ))
            })?;
            Some(store.load(&latest.id)?)
        }
    };
    let cancel = CancelToken::new();
    let child_env = config.child_env.clone();
    let sandbox = Arc::clone(&config.sandbox);
    crate::render::announce_sandbox(config);
    let token = cancel.clone();
    let description = connected.description;
    let mut builder = AgentBuilder::new(connected.provider, connected.model)
        .workspace(Arc::new(workspace))
        .policy(config.settings.policy)
        .registry(registry)
        .events(events)
        .options(config.settings.agent_options(max_turns))
        .session_store(Arc::clone(&store))
        .checkpoints_in(checkpoints_dir(config)?)
        .configure_tools(move |tools| {
            tools
                .with_child_env(child_env)
                .with_sandbox(sandbox)
                .with_cancel(token)
        });
    if config.settings.policy.interactive {
        let prompt = Arc::new(TerminalPrompt);
        builder = builder.approver(prompt.clone()).asker(prompt);
    }
    if let Some(dir) = journal_dir(config) {
        builder = builder.journal_in(dir);
    }
    if let Some(saved) = saved {
        builder = builder.resume(saved);
    }
    let agent = builder.build().map_err(|error| match error {
        oy_agent::AgentError::Session { message } => anyhow::Error::new(UsageError::new(message)),
        oy_agent::AgentError::ForeignSession { id, saved_in, root } => {
            anyhow::Error::new(UsageError::new(format!(
                "session {id} was saved in workspace {saved_in}, not {root}; run oy from that directory (or pass --root) to resume it"
            )))
        }
        other => anyhow::Error::new(other),
    })?;
    Ok(Built {
        agent,
        description,
        cancel,
        store,
        mcp,
    })
}

/// The hint under a prompt refused for the model's context window.
pub(crate) const WINDOW_HINT: &str = "if the model's window is larger than oy knows, set context_window in the config (docs/configuration.md)";

/// The exit code for a finished turn.
pub(crate) fn exit_for(stop: oy_agent::TurnStop) -> crate::exit::Exit {
    use crate::exit::Exit;
    use oy_agent::TurnStop;
    match stop {
        TurnStop::Done => Exit::Ok,
        TurnStop::ApprovalDenied => Exit::Policy,
        TurnStop::Cancelled => Exit::Interrupted,
        _ => Exit::Failed,
    }
}

/// The runtime for a command: two workers (tools run on blocking threads).
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}
