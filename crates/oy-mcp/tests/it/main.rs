//! oy-mcp against a real MCP server built with rmcp's server side
//! (`oy-mcp-test-server`: stdio, and streamable HTTP on 127.0.0.1).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::panic,
    missing_docs,
    unreachable_pub,
    dead_code,
    reason = "tests build fixtures with std::fs, fail loudly, and share helpers across modules"
)]

#[path = "../../../oy-boundary/tests/support/fuzz.rs"]
mod fuzz;
mod fuzz_mcp;
mod mcp_calls;
mod mcp_http;
mod mcp_lifecycle;
mod mcp_policy;
mod mcp_sandbox;
mod mcp_trust;
mod support;
