//! `McpTools`: the configured servers as one `ToolSource`. Nothing starts
//! when it is made; the first refresh whose policy would offer a server's
//! tools starts every such server at once (stdio ones under the process
//! sandbox), each within its startup timeout. A server that fails — to
//! start, or later by exiting — is reported once and its tools are left
//! out. A server that said its tools changed is listed again at the next
//! refresh, which the agent runs before every model request.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use oy_tools::{Effect, Tool, ToolContext, ToolSource};

use crate::config::{Origin, ServerSpec};
use crate::connection::{Connection, with_stderr};
use crate::names::tool_name;
use crate::tool::{Link, McpTool};

/// Something a person should hear about a server (printed by the
/// frontend, once per event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The server's name.
    pub server: String,
    /// What happened (server-provided parts included: make it
    /// terminal-safe before showing it).
    pub message: String,
}

/// Where the frontend hears of [`Notice`]s.
pub type NoticeSink = Arc<dyn Fn(&Notice) + Send + Sync>;

/// How a server is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerStatus {
    /// `enabled = false`.
    Disabled,
    /// Not needed yet.
    NotStarted,
    /// Connected; its tools are offered.
    Ready,
    /// It could not start or it stopped; its tools are left out.
    Failed(String),
}

/// One offered tool, for listings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReport {
    /// The name the model calls it by.
    pub name: String,
    /// The server's name for it.
    pub original: String,
    /// Its description as offered.
    pub description: String,
    /// The config says it only reads.
    pub read_only: bool,
    /// Bytes its name, description and schema add to every request.
    pub request_bytes: usize,
}

/// One server, for listings (`oy mcp list`, `/mcp`, `oy doctor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerReport {
    /// Its name.
    pub name: String,
    /// Where it was configured.
    pub origin: Origin,
    /// `stdio: …` or `http: …`.
    pub transport: String,
    /// How it is doing.
    pub status: ServerStatus,
    /// The tools it offers now.
    pub tools: Vec<ToolReport>,
    /// Tools it lists that are not offered, each with the reason.
    pub left_out: Vec<String>,
}

impl ServerReport {
    /// Bytes its tools add to every request.
    pub fn request_bytes(&self) -> usize {
        self.tools.iter().map(|tool| tool.request_bytes).sum()
    }
}

enum Slot {
    Disabled,
    Idle,
    Ready {
        connection: Arc<Connection>,
        link: Arc<Link>,
        listed: Vec<rmcp::model::Tool>,
    },
    Failed(String),
}

struct Server {
    spec: ServerSpec,
    slot: Slot,
    tools: Vec<Arc<McpTool>>,
    left_out: Vec<String>,
}

/// The MCP servers of a session, as a [`ToolSource`].
pub struct McpTools {
    servers: Mutex<Vec<Server>>,
    /// Names the fixed tools use.
    reserved: BTreeSet<String>,
    notices: NoticeSink,
    /// One refresh at a time: two would start a server twice.
    refreshing: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for McpTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTools")
            .field("servers", &self.lock().len())
            .finish_non_exhaustive()
    }
}

impl McpTools {
    /// The servers of `specs` (a later spec with a name already used is
    /// dropped), none started. `reserved` holds the names of the tools
    /// already in the registry; `notices` hears of failures.
    pub fn new(specs: Vec<ServerSpec>, reserved: BTreeSet<String>, notices: NoticeSink) -> Self {
        let mut seen = BTreeSet::new();
        let servers = specs
            .into_iter()
            .filter(|spec| seen.insert(spec.name.clone()))
            .map(|spec| Server {
                slot: if spec.config.is_enabled() {
                    Slot::Idle
                } else {
                    Slot::Disabled
                },
                spec,
                tools: Vec::new(),
                left_out: Vec::new(),
            })
            .collect();
        Self {
            servers: Mutex::new(servers),
            reserved,
            notices,
            refreshing: tokio::sync::Mutex::new(()),
        }
    }

    /// True when no server is configured.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Starts every enabled server that has not started, whatever the
    /// policy would offer (`oy mcp list`, `oy doctor`).
    pub async fn start_all(&self, ctx: &ToolContext) {
        self.update(ctx, true).await;
    }

    /// Every server and what it offers now.
    pub fn report(&self) -> Vec<ServerReport> {
        self.lock()
            .iter()
            .map(|server| ServerReport {
                name: server.spec.name.clone(),
                origin: server.spec.origin,
                transport: server.spec.transport(),
                status: match &server.slot {
                    Slot::Disabled => ServerStatus::Disabled,
                    Slot::Idle => ServerStatus::NotStarted,
                    Slot::Ready { .. } => ServerStatus::Ready,
                    Slot::Failed(reason) => ServerStatus::Failed(reason.clone()),
                },
                tools: server
                    .tools
                    .iter()
                    .map(|tool| {
                        let spec = tool.spec();
                        ToolReport {
                            name: spec.name.to_string(),
                            original: tool.original_name().to_owned(),
                            description: spec.description.to_string(),
                            read_only: spec.effect == Effect::Read,
                            request_bytes: spec.name.len()
                                + spec.description.len()
                                + spec.parameters.to_string().len(),
                        }
                    })
                    .collect(),
                left_out: server.left_out.clone(),
            })
            .collect()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Server>> {
        self.servers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn notify(&self, server: &str, message: String) {
        (self.notices)(&Notice {
            server: server.to_owned(),
            message,
        });
    }

    /// Starts what is needed (everything enabled with `all`), notices
    /// servers that stopped, lists again those whose tools changed.
    async fn update(&self, ctx: &ToolContext, all: bool) {
        let _one = self.refreshing.lock().await;
        let policy = ctx.policy();
        let mut starts = tokio::task::JoinSet::new();
        let mut relists = tokio::task::JoinSet::new();
        let mut failed = Vec::new();
        {
            let mut servers = self.lock();
            for (index, server) in servers.iter_mut().enumerate() {
                match &server.slot {
                    Slot::Idle => {
                        let wanted = all
                            || policy.offers(Effect::Process)
                            || server.spec.config.may_read_only();
                        if !wanted {
                            continue;
                        }
                        match prepare(&server.spec, ctx) {
                            Ok(stdio) => {
                                let spec = server.spec.clone();
                                starts.spawn(async move { (index, start(spec, stdio).await) });
                            }
                            Err(reason) => failed.push((index, reason)),
                        }
                    }
                    Slot::Ready { connection, .. } if connection.is_closed() => {
                        let reason =
                            with_stderr("the server stopped".to_owned(), &connection.stderr());
                        failed.push((index, reason));
                    }
                    Slot::Ready { connection, .. } if connection.take_changed() => {
                        let connection = Arc::clone(connection);
                        let limit = server.spec.config.startup_timeout();
                        relists.spawn(async move {
                            let listed = tokio::time::timeout(limit, connection.list_tools()).await;
                            (index, listed)
                        });
                    }
                    _ => {}
                }
            }
        }
        let runtime = tokio::runtime::Handle::current();
        let mut changed = !failed.is_empty();
        let mut ready = Vec::new();
        while let Some(joined) = starts.join_next().await {
            let Ok((index, started)) = joined else {
                continue;
            };
            changed = true;
            match started {
                Ok((connection, listed)) => ready.push((index, connection, listed)),
                Err(reason) => failed.push((index, reason)),
            }
        }
        let mut relisted = Vec::new();
        while let Some(joined) = relists.join_next().await {
            let Ok((index, listed)) = joined else {
                continue;
            };
            changed = true;
            match listed {
                Ok(Ok(listed)) => relisted.push((index, listed)),
                Ok(Err(reason)) => failed.push((index, reason)),
                Err(_) => failed.push((index, "listing its changed tools timed out".to_owned())),
            }
        }
        if !changed {
            return;
        }
        let mut notices = Vec::new();
        {
            let mut servers = self.lock();
            for (index, connection, listed) in ready {
                let Some(server) = servers.get_mut(index) else {
                    continue;
                };
                let link = Arc::new(Link {
                    server: server.spec.name.clone(),
                    transport: server.spec.transport(),
                    peer: connection.peer(),
                    runtime: runtime.clone(),
                    timeout: server.spec.config.tool_timeout(),
                    stderr: connection.stderr_tail(),
                });
                server.slot = Slot::Ready {
                    connection: Arc::new(connection),
                    link,
                    listed,
                };
            }
            for (index, listed) in relisted {
                if let Some(Server {
                    slot: Slot::Ready { listed: old, .. },
                    ..
                }) = servers.get_mut(index)
                {
                    *old = listed;
                }
            }
            for (index, reason) in failed {
                if let Some(server) = servers.get_mut(index) {
                    notices.push((
                        server.spec.name.clone(),
                        format!("{reason}; its tools are left out"),
                    ));
                    server.slot = Slot::Failed(reason);
                }
            }
            let refused = assemble(&mut servers, &self.reserved);
            notices.extend(refused);
        }
        for (server, message) in notices {
            self.notify(&server, message);
        }
    }
}

impl ToolSource for McpTools {
    fn refresh<'a>(
        &'a self,
        ctx: &'a ToolContext,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(self.update(ctx, false))
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.lock()
            .iter()
            .flat_map(|server| server.tools.iter())
            .map(|tool| Arc::clone(tool) as Arc<dyn Tool>)
            .collect()
    }
}

/// The sandboxed command of a stdio server (`None` for HTTP), or why it
/// cannot start.
fn prepare(spec: &ServerSpec, ctx: &ToolContext) -> Result<Option<std::process::Command>, String> {
    if !spec.missing.is_empty() {
        return Err(format!(
            "it needs the environment variable{} {}, which {} not set",
            if spec.missing.len() == 1 { "" } else { "s" },
            spec.missing.join(", "),
            if spec.missing.len() == 1 { "is" } else { "are" },
        ));
    }
    let Some(program) = &spec.config.command else {
        return Ok(None);
    };
    let root = ctx.workspace().root();
    let cwd = match &spec.config.cwd {
        Some(dir) => root.join(dir),
        None => root.to_path_buf(),
    };
    // The person's explicit variables pass the credential filter.
    let extra: Vec<(OsString, OsString)> = spec
        .passed_env
        .iter()
        .map(|(name, value)| (name.into(), value.into()))
        .chain(
            spec.config
                .env
                .iter()
                .map(|(name, value)| (name.into(), value.into())),
        )
        .collect();
    let env = ctx.child_env().with_vars(extra);
    let args: Vec<OsString> = spec.config.args.iter().map(OsString::from).collect();
    let network = spec.config.network || ctx.policy().network == oy_tools::Network::Allow;
    ctx.sandbox()
        .command(program.as_ref(), &args, &cwd, &env, root, network)
        .map(Some)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => {
                format!("`{program}` was not found (searched the PATH of the command environment)")
            }
            _ => format!("cannot start `{program}`: {error}"),
        })
}

/// Connects and lists, within the startup timeout.
async fn start(
    spec: ServerSpec,
    stdio: Option<std::process::Command>,
) -> Result<(Connection, Vec<rmcp::model::Tool>), String> {
    let limit = spec.config.startup_timeout();
    let started = async {
        let connection = Connection::open(&spec, stdio).await?;
        match connection.list_tools().await {
            Ok(listed) => Ok((connection, listed)),
            Err(problem) => Err(with_stderr(problem, &connection.stderr())),
        }
    };
    tokio::time::timeout(limit, started)
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "it did not start and list its tools within {} s (startup_timeout)",
                limit.as_secs_f64()
            ))
        })
}

/// The most bytes (name, description, schema) one tool may add to every
/// model request, and all of one server's tools together.
const MAX_TOOL_BYTES: usize = 16 * 1024;
const MAX_SERVER_BYTES: usize = 128 * 1024;

/// Names every ready server's tools in config order: allowed by the
/// config, `mcp__SERVER__TOOL`, refused when the name is taken. Returns
/// the refusals to report.
fn assemble(servers: &mut [Server], reserved: &BTreeSet<String>) -> Vec<(String, String)> {
    let mut taken = reserved.clone();
    let mut refusals = Vec::new();
    for server in servers.iter_mut() {
        server.tools.clear();
        server.left_out.clear();
        let Slot::Ready { link, listed, .. } = &server.slot else {
            continue;
        };
        let mut spent = 0;
        for info in listed {
            let original = info.name.to_string();
            if !server.spec.config.offers(&original) {
                server
                    .left_out
                    .push(format!("{original}: not enabled in the config"));
                continue;
            }
            let name = tool_name(&server.spec.name, &original);
            if !taken.insert(name.clone()) {
                let reason = format!(
                    "{original}: its name `{name}` is already taken by another tool; it is left out"
                );
                refusals.push((server.spec.name.clone(), format!("tool {reason}")));
                server.left_out.push(reason);
                continue;
            }
            let bytes = crate::tool::request_bytes(info);
            if bytes > MAX_TOOL_BYTES {
                server.left_out.push(format!(
                    "{original}: its schema and description take {bytes} bytes, more than the {MAX_TOOL_BYTES} one tool may add to every request"
                ));
                continue;
            }
            if spent + bytes > MAX_SERVER_BYTES {
                server.left_out.push(format!(
                    "{original}: the server's tools would add more than {MAX_SERVER_BYTES} bytes to every request; name the ones you want in `enabled_tools`"
                ));
                continue;
            }
            spent += bytes;
            let effect = if server.spec.config.is_read_only(&original) {
                Effect::Read
            } else {
                Effect::Process
            };
            server
                .tools
                .push(Arc::new(McpTool::new(name, info, effect, Arc::clone(link))));
        }
    }
    refusals
}
