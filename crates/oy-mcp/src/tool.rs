//! `McpTool`: one tool of an MCP server as an oy tool. Its spec is the
//! server's, renamed (`mcp__SERVER__TOOL`), its schema compacted like oy's
//! own and its description bounded; its effect is `Process` unless the
//! config says the tool only reads. A call passes `Invocation::authorize`
//! (the preview names the server, the tool and the exact arguments), then
//! runs on the runtime the server lives on while this blocking thread
//! waits; the registry caps the output like any tool's.

use std::sync::Arc;
use std::time::Duration;

use oy_tools::{
    CallStatus, Effect, Invocation, Preview, Tool, ToolError, ToolOutput, ToolSpec, compact_schema,
};
use rmcp::{Peer, RoleClient};
use serde_json::Value;

use crate::connection::{self, CallEnd};
use crate::stdio::StderrTail;

/// Longest description passed on: every byte is re-sent on every request.
const MAX_DESCRIPTION: usize = 1024;

/// What the tools of one connected server share.
#[derive(Debug)]
pub(crate) struct Link {
    /// The server's name.
    pub(crate) server: String,
    /// `stdio: …` or `http: …`.
    pub(crate) transport: String,
    pub(crate) peer: Peer<RoleClient>,
    /// The runtime the session runs on.
    pub(crate) runtime: tokio::runtime::Handle,
    pub(crate) timeout: Duration,
    pub(crate) stderr: Option<StderrTail>,
}

/// One MCP tool, offered to the model.
#[derive(Debug)]
pub struct McpTool {
    spec: ToolSpec,
    /// The server's name for it.
    original: String,
    link: Arc<Link>,
    example: String,
}

/// What `info` adds to a request as listed: its name, description and
/// schema (the compacted schema is smaller, never larger).
pub(crate) fn request_bytes(info: &rmcp::model::Tool) -> usize {
    info.name.len()
        + info.description.as_deref().map_or(0, str::len)
        + serde_json::to_vec(&*info.input_schema).map_or(usize::MAX / 2, |bytes| bytes.len())
}

impl McpTool {
    /// `info` (as the server listed it) offered as `name` with `effect`.
    pub(crate) fn new(
        name: String,
        info: &rmcp::model::Tool,
        effect: Effect,
        link: Arc<Link>,
    ) -> Self {
        let mut parameters = compact_schema(Value::Object((*info.input_schema).clone()));
        if let Value::Object(map) = &mut parameters {
            map.entry("type").or_insert_with(|| Value::from("object"));
            map.entry("properties")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
        }
        let description = info
            .description
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map_or_else(
                || format!("Tool `{}` of the MCP server `{}`.", info.name, link.server),
                bounded,
            );
        let example = oy_tools::example_arguments(&parameters);
        Self {
            spec: ToolSpec {
                name: name.into(),
                description: description.into(),
                parameters,
                effect,
            },
            original: info.name.to_string(),
            link,
            example,
        }
    }

    /// The server's name for the tool.
    pub fn original_name(&self) -> &str {
        &self.original
    }

    /// The server it belongs to.
    pub fn server(&self) -> &str {
        &self.link.server
    }

    fn failure(&self, problem: String, recovery: &str, status: CallStatus) -> ToolOutput {
        let stderr = self
            .link
            .stderr
            .as_ref()
            .map(StderrTail::text)
            .unwrap_or_default();
        let problem = if status == CallStatus::Failed {
            connection::with_stderr(problem, &stderr)
        } else {
            problem
        };
        ToolOutput::error(&ToolError::failed(problem, recovery)).with_status(status)
    }
}

impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn example(&self) -> &str {
        &self.example
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let Some(arguments) = args.as_object().cloned() else {
            return Err(ToolError::InvalidArguments {
                tool: self.spec.name.to_string(),
                problem: "expected a JSON object".to_owned(),
                example: self.example.clone(),
            });
        };
        let server = &self.link.server;
        let tool = &self.original;
        call.authorize(
            self.spec.effect,
            format!("call tool `{tool}` of MCP server `{server}`"),
            || {
                let shown = serde_json::to_string_pretty(args).unwrap_or_else(|_| args.to_string());
                Preview::Command(format!(
                    "MCP server `{server}` ({})\ntool `{tool}`\narguments:\n{shown}",
                    self.link.transport
                ))
            },
        )?;
        let (sender, receiver) = std::sync::mpsc::channel();
        let cancelled = call.ctx().cancel_token().cancelled();
        let peer = self.link.peer.clone();
        let timeout = self.link.timeout;
        let name = tool.clone();
        self.link.runtime.spawn(async move {
            let end = connection::call(peer, name, arguments, timeout, cancelled).await;
            let _ = sender.send(end);
        });
        let end = receiver
            .recv()
            .unwrap_or_else(|_| CallEnd::Failed("the MCP client stopped".to_owned()));
        Ok(match end {
            CallEnd::Done(result) => {
                let (text, is_error) = crate::result::render(&result);
                if is_error {
                    ToolOutput::error(&ToolError::failed(
                        format!("MCP tool `{tool}` of server `{server}` reported an error: {text}"),
                        "check the arguments against the tool's schema, or try another way",
                    ))
                } else {
                    ToolOutput::ok(text)
                }
            }
            CallEnd::TimedOut => self.failure(
                format!(
                    "MCP tool `{tool}` of server `{server}` did not answer within {} s; the server was asked to cancel",
                    timeout.as_secs_f64()
                ),
                "try a smaller request, or ask the user to raise tool_timeout for this server",
                CallStatus::TimedOut,
            ),
            CallEnd::Cancelled => self.failure(
                format!("the call to MCP tool `{tool}` was cancelled; the server was told"),
                "stop here and tell the user what was done so far",
                CallStatus::Cancelled,
            ),
            CallEnd::Unsupported(why) => self.failure(
                format!("MCP tool `{tool}` of server `{server}` cannot be used by oy: {why}"),
                "use another tool",
                CallStatus::Failed,
            ),
            CallEnd::Failed(problem) => self.failure(
                format!("the call to MCP server `{server}` failed: {problem}"),
                "retry once; if it fails again, tell the user the server is not working",
                CallStatus::Failed,
            ),
        })
    }
}

/// `text` within [`MAX_DESCRIPTION`] bytes, cut at a character boundary.
fn bounded(text: &str) -> String {
    if text.len() <= MAX_DESCRIPTION {
        return text.to_owned();
    }
    let mut end = MAX_DESCRIPTION - 3;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}
