//! `McpError`: why servers could not be configured or a workspace's
//! server file could not be loaded. A server that fails to start is not an
//! error but a [`crate::ServerStatus`]: the other servers go on.

use oy_boundary::BoundaryError;
use oy_tools::TrustError;

/// Why MCP servers could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A server's table breaks a rule.
    #[error("MCP server `{server}`: {problem}")]
    Config {
        /// The server's name.
        server: String,
        /// The rule it breaks.
        problem: String,
    },
    /// A server file does not parse.
    #[error("{file}: {problem}")]
    Parse {
        /// The file, relative to the workspace root.
        file: String,
        /// The parser's message.
        problem: String,
    },
    /// The workspace refused an operation.
    #[error(transparent)]
    Boundary(#[from] BoundaryError),
    /// The trust record could not be read or written.
    #[error(transparent)]
    Trust(#[from] TrustError),
}
