//! The command-line grammar (clap). Raw flags stay here; `config.rs` turns
//! them into a resolved `Config`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// oy: a local AI coding assistant that stays inside your workspace.
#[derive(Debug, Parser)]
#[command(
    name = "oy",
    version,
    about = "oy: a local AI coding assistant that never leaves your workspace",
    long_about = None
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) common: Common,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Flags every command accepts.
#[derive(Debug, Args)]
pub(crate) struct Common {
    /// Workspace root (default: the current directory, never the git root).
    #[arg(long, global = true, env = "OY_ROOT", value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
    /// Safety mode: default|ask, plan|read, accept-edits|edit, auto-approve|auto.
    #[arg(long, global = true, env = "OY_MODE", value_name = "MODE")]
    pub(crate) mode: Option<String>,
    /// Network tools: allow, ask or deny (default: from the mode).
    #[arg(long, global = true, value_name = "POLICY")]
    pub(crate) network: Option<String>,
    /// Pass this credential-like environment variable to commands anyway
    /// (repeatable; also OY_ENV_ALLOW=NAME,NAME).
    #[arg(
        long = "env-allow",
        global = true,
        value_name = "NAME",
        value_delimiter = ',',
        env = "OY_ENV_ALLOW"
    )]
    pub(crate) env_allow: Vec<String>,
    /// Trust the workspace's .oy/tools.json as it is now (remembered by its
    /// SHA-256; an edited file must be trusted again).
    #[arg(long = "trust-tools", global = true)]
    pub(crate) trust_tools: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the tool specs the model would see in a mode, as a JSON array.
    Tools(ToolsArgs),
    /// Run one tool call exactly as if the model had made it.
    #[command(after_help = TOOL_EXAMPLES)]
    Tool(ToolArgs),
}

const TOOL_EXAMPLES: &str = "\
Examples:
  oy tool read '{\"path\":\"README.md\"}'
  oy tool search '{\"pattern\":\"fn main\"}'
  oy tool patch - --mode edit < fix.diff   (a unified diff or *** Begin Patch envelope)
  echo '{\"path\":\"a.txt\",\"content\":\"hi\\n\"}' | oy tool write - --mode edit

Exit codes: 0 ok, 1 tool error (output starts with TOOL_ERROR), 2 usage error.";

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// Indent the JSON for reading.
    #[arg(long)]
    pub(crate) pretty: bool,
    /// Output format: json (what the model sees) or markdown (docs/tools.md).
    #[arg(long, value_enum, default_value_t = ToolsFormat::Json)]
    pub(crate) format: ToolsFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ToolsFormat {
    Json,
    Markdown,
}

#[derive(Debug, Args)]
pub(crate) struct ToolArgs {
    /// The tool to run (see `oy tools`).
    pub(crate) name: String,
    /// Arguments as a JSON object, or `-` to read them from stdin (default `{}`).
    pub(crate) args: Option<String>,
    /// Print {"ok","output","truncated","error"} as JSON instead of the output text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Keep tool state (read-before-write records, todos) in this named session.
    #[arg(long, value_name = "NAME")]
    pub(crate) session: Option<String>,
}
