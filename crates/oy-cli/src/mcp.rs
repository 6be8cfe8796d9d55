//! MCP servers in the CLI: this file reads the workspace's server file
//! through `oy_mcp::load_workspace_servers` (asking at the terminal, or
//! `--trust-mcp`), looks up the variables the servers name, prints what a
//! server reports (terminal-safe: servers' words are untrusted), and
//! renders the listing `oy mcp list`, `oy mcp tools` and `/mcp` show;
//! `oy_config::Settings::mcp_specs` and `oy_mcp::McpTools` decide.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;

use anyhow::Result;
use oy_boundary::Workspace;
use oy_mcp::{
    MCP_TRUST_FILE, McpTools, McpTrustRequest, Notice, ServerReport, ServerStatus,
    WORKSPACE_MCP_TOML, WorkspaceServers, load_workspace_servers,
};
use oy_tools::{FileTrustStore, MemoryTrustStore, ToolContext, TrustStore};

use crate::config::Config;
use crate::render::{terminal_line, terminal_safe};

/// The session's MCP servers, or `None` when none is configured (then
/// nothing at all is added to the run). Starts nothing. With `quiet`,
/// server failures are left to the caller's listing instead of printed.
pub(crate) fn load(
    config: &Config,
    workspace: &Workspace,
    reserved: BTreeSet<String>,
    quiet: bool,
) -> Result<Option<Arc<McpTools>>> {
    let workspace_servers = workspace_servers(config, workspace)?;
    let lookup = |name: &str| std::env::var(name).ok();
    let (specs, notes) = config.settings.mcp_specs(workspace_servers, &lookup);
    for note in notes {
        crate::report::hint(&note);
    }
    if specs.is_empty() {
        return Ok(None);
    }
    let sink: oy_mcp::NoticeSink = if quiet {
        Arc::new(|_: &Notice| {})
    } else {
        Arc::new(print_notice)
    };
    Ok(Some(Arc::new(McpTools::new(specs, reserved, sink))))
}

/// The trusted workspace file's servers (none when it is absent or not
/// trusted, with a note saying why).
fn workspace_servers(
    config: &Config,
    workspace: &Workspace,
) -> Result<Vec<(String, oy_mcp::ServerConfig)>> {
    let mut store: Box<dyn TrustStore> = match &config.settings.dirs.data_dir {
        Some(dir) => Box::new(FileTrustStore::for_subject(
            dir,
            MCP_TRUST_FILE,
            WORKSPACE_MCP_TOML,
        )),
        None => Box::new(MemoryTrustStore::default()),
    };
    let prompt = crate::approver::TerminalPrompt;
    let outcome = load_workspace_servers(
        workspace,
        store.as_mut(),
        config.trust_workspace_mcp,
        |request| config.settings.policy.interactive && prompt.confirm(&question(request)),
    )?;
    Ok(match outcome {
        WorkspaceServers::Trusted {
            servers, warnings, ..
        } => {
            for warning in warnings {
                crate::report::hint(&warning);
            }
            servers
        }
        WorkspaceServers::Untrusted { file, digest, .. } => {
            crate::report::hint(&format!(
                "ignoring {file}: its MCP servers are not trusted (sha256 {}…); review it, then rerun with --trust-mcp",
                &digest[..16]
            ));
            Vec::new()
        }
        WorkspaceServers::Unreadable { file, error } => {
            crate::report::hint(&format!("ignoring {file}: {error}"));
            Vec::new()
        }
        WorkspaceServers::Refused { file, problem } => {
            crate::report::hint(&format!("ignoring {file}: {problem}"));
            Vec::new()
        }
        _ => Vec::new(),
    })
}

/// What the person is asked before a workspace's servers are used: every
/// setting of every server (`ServerConfig::describe`), terminal-safe.
fn question(request: &McpTrustRequest<'_>) -> String {
    let mut summary = Vec::new();
    for (name, server) in request.servers {
        summary.push(format!("  {}:", terminal_line(name)));
        for line in server.describe() {
            summary.push(format!("    {}", terminal_line(&line)));
        }
    }
    format!(
        "This workspace defines MCP servers in {} (sha256 {}):\n{}\nThey run on your machine (sandboxed) when the model needs their tools. Trust this file?",
        request.file,
        &request.digest[..16],
        summary.join("\n"),
    )
}

#[expect(clippy::print_stderr, reason = "the binary's own diagnostics")]
fn print_notice(notice: &Notice) {
    eprintln!(
        "oy: MCP server `{}`: {}",
        terminal_line(&notice.server),
        terminal_line(&notice.message)
    );
}

/// A tool context for starting servers outside a session (`oy mcp`,
/// `oy tools`, `oy doctor`): the run's policy, child environment and
/// sandbox.
pub(crate) fn context(config: &Config, workspace: Arc<Workspace>) -> ToolContext {
    ToolContext::new(workspace, config.settings.policy)
        .with_child_env(config.child_env.clone())
        .with_sandbox(Arc::clone(&config.sandbox))
}

/// About four bytes to a token, as the agent's budget estimates.
fn tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// The listing: each server with its status and the bytes (and tokens)
/// its tools add to every request; with `tools`, each tool too.
pub(crate) fn render(reports: &[ServerReport], tools: bool) -> String {
    let mut out = String::new();
    let mut total = 0;
    for report in reports {
        let status = match &report.status {
            ServerStatus::Ready => format!("ready, {} tools", report.tools.len()),
            ServerStatus::Disabled => "disabled".to_owned(),
            ServerStatus::NotStarted => "not started".to_owned(),
            ServerStatus::Failed(why) => format!("failed: {why}"),
            _ => "unknown".to_owned(),
        };
        let bytes = report.request_bytes();
        total += bytes;
        let _ = writeln!(
            out,
            "{} ({}, {}) — {}",
            terminal_line(&report.name),
            report.origin.name(),
            terminal_line(&report.transport),
            terminal_line(&status),
        );
        if report.status == ServerStatus::Ready {
            let _ = writeln!(
                out,
                "  schemas: {bytes} bytes (~{} tokens) in every request",
                tokens(bytes)
            );
        }
        if tools {
            for tool in &report.tools {
                let read_only = if tool.read_only { ", read-only" } else { "" };
                let _ = writeln!(
                    out,
                    "  {} ({} bytes{read_only}): {}",
                    terminal_line(&tool.name),
                    tool.request_bytes,
                    terminal_line(&tool.description)
                );
            }
        } else if !report.tools.is_empty() {
            let names: Vec<String> = report
                .tools
                .iter()
                .map(|tool| terminal_line(&tool.original))
                .collect();
            let _ = writeln!(out, "  tools: {}", names.join(", "));
        }
        for left_out in &report.left_out {
            let _ = writeln!(out, "  left out: {}", terminal_safe(left_out).trim_end());
        }
    }
    if reports.len() > 1 {
        let _ = writeln!(
            out,
            "all MCP tools: {total} bytes (~{} tokens) in every request",
            tokens(total)
        );
    }
    out
}
