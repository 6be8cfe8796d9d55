//! `oy mcp list` and `oy mcp tools NAME`: start every enabled server (as a
//! session would, under the sandbox), show what each offers and what its
//! schemas cost in every request, and stop them again.

use std::io::Write as _;
use std::sync::Arc;

use anyhow::{Context, Result};
use oy_boundary::Workspace;

use crate::cli::{McpAction, McpArgs};
use crate::config::Config;
use crate::exit::{Exit, UsageError};

pub(crate) fn run(config: &Config, args: &McpArgs) -> Result<Exit> {
    let workspace = Workspace::open(&config.root)
        .with_context(|| format!("cannot open workspace {}", config.root.display()))?;
    let reserved = oy_tools::default_registry().names();
    let Some(mcp) = crate::mcp::load(config, &workspace, reserved, true)? else {
        crate::report::hint(
            "no MCP servers are configured: add an [mcp_servers.NAME] table to the config (docs/mcp.md)",
        );
        return Ok(Exit::Ok);
    };
    let ctx = crate::mcp::context(config, Arc::new(workspace));
    let runtime = crate::agent_setup::runtime()?;
    runtime.block_on(mcp.start_all(&ctx));
    let reports = mcp.report();
    drop(mcp);
    let text = match &args.action {
        McpAction::List(_) => crate::mcp::render(&reports, false),
        McpAction::Tools { name, .. } => {
            let Some(report) = reports.iter().find(|report| &report.name == name) else {
                let known: Vec<&str> = reports.iter().map(|report| report.name.as_str()).collect();
                return Err(UsageError::new(format!(
                    "no MCP server named `{}` (configured: {})\nhint: `oy mcp list` shows them",
                    crate::render::terminal_line(name),
                    known.join(", ")
                ))
                .into());
            };
            crate::mcp::render(std::slice::from_ref(report), true)
        }
    };
    let mut stdout = crate::stdout::lock();
    write!(stdout, "{text}")?;
    Ok(Exit::Ok)
}
