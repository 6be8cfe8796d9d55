//! One live MCP session on rmcp: opened over a stdio server's pipes or
//! streamable HTTP, initialized and listed within the startup timeout; it
//! notes `tools/list_changed` for the next refresh, and one tool call is
//! raced against its timeout and the turn's cancellation — dropping the
//! call sends the server `notifications/cancelled`.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    Implementation, Tool as McpToolInfo,
};
use rmcp::service::{MaybeSendFuture, NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};

use crate::config::ServerSpec;
use crate::stdio::{self, ServerProcess};

/// Largest JSON answer read from an HTTP server (a tool result is capped
/// again by the output limiter).
const MAX_HTTP_RESPONSE: usize = 8 * 1024 * 1024;

/// The most pages of tools read from one server.
const MAX_PAGES: usize = 20;

/// The most tools one server may list.
const MAX_TOOLS: usize = 256;

/// What oy tells servers about itself, and what it notices.
struct Handler {
    changed: Arc<AtomicBool>,
}

impl ClientHandler for Handler {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.changed.store(true, Ordering::SeqCst);
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        // No roots, sampling or elicitation: oy answers nothing a server
        // might ask.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("oy", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A connected server.
pub(crate) struct Connection {
    service: RunningService<RoleClient, Handler>,
    changed: Arc<AtomicBool>,
    process: Option<ServerProcess>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("stdio", &self.process.is_some())
            .finish_non_exhaustive()
    }
}

/// How one call ended.
#[derive(Debug)]
pub(crate) enum CallEnd {
    /// The server answered.
    Done(Box<CallToolResult>),
    /// The server asked for something oy cannot give (input, a task).
    Unsupported(&'static str),
    /// The transport or protocol failed.
    Failed(String),
    /// The timeout passed; the server was told to cancel.
    TimedOut,
    /// The turn was cancelled; the server was told.
    Cancelled,
}

impl Connection {
    /// Connects to `spec`: over the pipes of `stdio` (the sandboxed
    /// command) or to its URL. Call on a runtime worker (see
    /// [`stdio::spawn`]).
    pub(crate) async fn open(
        spec: &ServerSpec,
        stdio: Option<std::process::Command>,
    ) -> Result<Self, String> {
        let changed = Arc::new(AtomicBool::new(false));
        let handler = Handler {
            changed: Arc::clone(&changed),
        };
        if let Some(command) = stdio {
            let program = spec.config.command.clone().unwrap_or_default();
            let (process, stdout, stdin) = stdio::spawn(command)
                .map_err(|error| format!("cannot start `{program}`: {error}"))?;
            let service = match handler.serve((stdout, stdin)).await {
                Ok(service) => service,
                Err(error) => {
                    let stderr = process.stderr.text();
                    return Err(with_stderr(
                        format!("the server did not initialize: {error}"),
                        &stderr,
                    ));
                }
            };
            return Ok(Self {
                service,
                changed,
                process: Some(process),
            });
        }
        let url = spec.config.url.clone().unwrap_or_default();
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
        config.custom_headers = headers(&spec.headers)?;
        config.max_json_response_size = MAX_HTTP_RESPONSE;
        // Proxies are not taken from the environment (a library does not
        // read it) and redirects are not followed, so headers go to the
        // configured host only.
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| format!("cannot make an HTTP client: {error}"))?;
        let transport = StreamableHttpClientTransport::with_client(client, config);
        let service = handler
            .serve(transport)
            .await
            .map_err(|error| format!("the server did not initialize: {error}"))?;
        Ok(Self {
            service,
            changed,
            process: None,
        })
    }

    /// Every tool the server lists, page by page, within the bounds: a
    /// server that pages forever, or lists thousands of tools, is refused
    /// rather than held in memory and re-sent with every request.
    pub(crate) async fn list_tools(&self) -> Result<Vec<McpToolInfo>, String> {
        let mut tools = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_PAGES {
            let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor);
            let page = self
                .service
                .peer()
                .list_tools(Some(params))
                .await
                .map_err(|error| format!("listing its tools failed: {error}"))?;
            tools.extend(page.tools);
            if tools.len() > MAX_TOOLS {
                return Err(format!(
                    "it lists more than {MAX_TOOLS} tools; name the ones you want in `enabled_tools`"
                ));
            }
            cursor = page.next_cursor;
            if cursor.is_none() {
                return Ok(tools);
            }
        }
        Err(format!("it lists its tools in more than {MAX_PAGES} pages"))
    }

    /// True once since the server said its tools changed.
    pub(crate) fn take_changed(&self) -> bool {
        self.changed.swap(false, Ordering::SeqCst)
    }

    /// True when the session ended (the server exited or hung up).
    pub(crate) fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }

    /// What a stdio server last wrote to stderr (empty for HTTP).
    pub(crate) fn stderr(&self) -> String {
        self.process
            .as_ref()
            .map(|process| process.stderr.text())
            .unwrap_or_default()
    }

    /// The stderr tail of a stdio server, shared.
    pub(crate) fn stderr_tail(&self) -> Option<crate::stdio::StderrTail> {
        self.process.as_ref().map(|process| process.stderr.clone())
    }

    /// A handle for calls.
    pub(crate) fn peer(&self) -> Peer<RoleClient> {
        self.service.peer().clone()
    }
}

/// Calls `tool` with `arguments` on `peer`, within `timeout`, unless
/// `cancelled` completes first. Dropping the call (a timeout or a
/// cancellation) makes rmcp send `notifications/cancelled`.
pub(crate) async fn call(
    peer: Peer<RoleClient>,
    tool: String,
    arguments: serde_json::Map<String, serde_json::Value>,
    timeout: Duration,
    cancelled: impl Future<Output = ()>,
) -> CallEnd {
    let params = CallToolRequestParams::new(tool).with_arguments(arguments);
    let call = peer.call_tool_once(params);
    tokio::select! {
        biased;
        () = cancelled => CallEnd::Cancelled,
        answered = tokio::time::timeout(timeout, call) => match answered {
            Err(_) => CallEnd::TimedOut,
            Ok(Ok(CallToolResponse::Complete(result))) => CallEnd::Done(Box::new(result)),
            Ok(Ok(CallToolResponse::InputRequired(_))) => {
                CallEnd::Unsupported("it asked for input from the client")
            }
            Ok(Ok(_)) => CallEnd::Unsupported("it answered with a task to poll"),
            Ok(Err(error)) => CallEnd::Failed(error.to_string()),
        },
    }
}

/// `problem`, with the server's last stderr lines when there are any.
pub(crate) fn with_stderr(problem: String, stderr: &str) -> String {
    if stderr.is_empty() {
        problem
    } else {
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!("{problem}; its stderr ends: {}", tail.join(" | "))
    }
}

fn headers(
    pairs: &[(String, String)],
) -> Result<HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>, String> {
    let mut headers = HashMap::new();
    for (name, value) in pairs {
        let header = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is not a valid header name"))?;
        let mut value = reqwest::header::HeaderValue::from_str(value)
            .map_err(|_| format!("the value for header `{name}` is not a valid header value"))?;
        value.set_sensitive(true);
        headers.insert(header, value);
    }
    Ok(headers)
}
