//! The MCP client of oy: tools from Model Context Protocol servers, offered
//! to the model inside the same policy, sandbox and limits as oy's own.
//!
//! It owns: the `[mcp_servers.NAME]` table ([`ServerConfig`]) and its
//! checks, [`ServerSpec`] (a config with the variables it names looked up
//! by the frontend), the workspace's `.oy/mcp.toml`/`.oy/mcp.json` and the
//! trust rule for it ([`load_workspace_servers`]), the tool names
//! (`mcp__SERVER__TOOL`, [`tool_name`]), and [`McpTools`], the
//! `oy_tools::ToolSource` that starts servers when a request first needs
//! them (stdio servers through the process sandbox, streamable HTTP on
//! reqwest), lists and calls their tools through rmcp, and reports each
//! server's state ([`ServerReport`]).
//!
//! It must never: read environment variables (the frontend passes a
//! lookup), print (failures go to a [`NoticeSink`]), start a server before
//! a request, listing or check needs it, run a stdio server outside the
//! process sandbox, let a server's own annotations lower an approval, or
//! keep a server running after its [`McpTools`] is dropped.

mod config;
mod connection;
mod error;
mod names;
mod result;
mod source;
mod stdio;
#[cfg(feature = "test-server")]
pub mod test_server;
mod tool;
mod workspace;

pub use config::{DEFAULT_STARTUP_TIMEOUT, DEFAULT_TOOL_TIMEOUT, Origin, ServerConfig, ServerSpec};
pub use error::McpError;
pub use names::{MAX_TOOL_NAME, is_server_name, tool_name};
pub use source::{McpTools, Notice, NoticeSink, ServerReport, ServerStatus, ToolReport};
pub use tool::McpTool;
pub use workspace::{
    MCP_TRUST_FILE, McpTrustRequest, Servers, WORKSPACE_MCP_JSON, WORKSPACE_MCP_TOML,
    WorkspaceServers, load_workspace_servers, parse_servers,
};
