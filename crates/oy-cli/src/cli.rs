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
    long_about = None,
    args_conflicts_with_subcommands = true,
    after_help = MAIN_EXAMPLES
)]
pub(crate) struct Cli {
    /// `oy "PROMPT"` is `oy run "PROMPT"`.
    #[command(flatten)]
    pub(crate) run: RunCommand,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

const MAIN_EXAMPLES: &str = "\
Examples:
  oy \"explain what src/main.rs does\"        one task (same as `oy run`)
  oy run --mode edit \"fix the failing test\"  let it edit files; commands still ask
  echo \"summarise the README\" | oy run -q   prompt on stdin, print only the answer
  oy chat                                   interactive session (/help inside)
  oy doctor                                 check provider, credentials and paths

A lone word is not sent as a prompt: `oy dcotor` asks whether you meant
`oy doctor`, and `oy frobnicate` says to use `oy run frobnicate`. Only a few
one-word tasks go through as they are (explain, fix, test, review…).
Each command's flags come after its name: `oy doctor --help` lists them.

Exit codes: 0 done, 1 failed, 2 usage or config error, 3 stopped by policy, 130 interrupted.";

/// The flags behind [`crate::config::Config`], as one command gave them;
/// a command without a flag leaves it unset (the config file and the
/// defaults decide).
#[derive(Debug, Default)]
pub(crate) struct Common {
    pub(crate) root: Option<PathBuf>,
    pub(crate) mode: Option<String>,
    pub(crate) network: Option<String>,
    pub(crate) sandbox: Option<String>,
    pub(crate) env_allow: Vec<String>,
    pub(crate) trust_tools: bool,
    pub(crate) trust_prompts: bool,
    pub(crate) trust_mcp: bool,
    pub(crate) model: Option<String>,
    pub(crate) provider: Option<String>,
    pub(crate) wire_api: Option<String>,
}

/// `--root`: every command that works in a workspace.
#[derive(Debug, Args, Default)]
pub(crate) struct RootFlag {
    /// Workspace root (default: the current directory, never the git root).
    #[arg(long, env = "OY_ROOT", value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
}

/// `--mode` and `--network`: which tools are offered and which ask.
#[derive(Debug, Args, Default)]
pub(crate) struct PolicyFlags {
    /// Safety mode: default|ask, plan|read, accept-edits|edit, auto-approve|auto.
    #[arg(long, env = "OY_MODE", value_name = "MODE")]
    pub(crate) mode: Option<String>,
    /// Network tools: allow, ask or deny (default: from the mode).
    #[arg(long, value_name = "POLICY")]
    pub(crate) network: Option<String>,
}

/// `--sandbox` and `--env-allow`: how commands run.
#[derive(Debug, Args, Default)]
pub(crate) struct CommandFlags {
    /// Kernel sandbox for commands: on (default) or off (commands then run
    /// with your full authority).
    #[arg(long, value_name = "on|off")]
    pub(crate) sandbox: Option<String>,
    /// Pass this credential-like environment variable to commands anyway
    /// (repeatable; also OY_ENV_ALLOW=NAME,NAME).
    #[arg(
        long = "env-allow",
        value_name = "NAME",
        value_delimiter = ',',
        env = "OY_ENV_ALLOW"
    )]
    pub(crate) env_allow: Vec<String>,
}

/// `--trust-tools`: commands that load the workspace's tools.
#[derive(Debug, Args, Default)]
pub(crate) struct TrustFlag {
    /// Trust the workspace's .oy/tools.json as it is now (remembered by its
    /// SHA-256; an edited file must be trusted again).
    #[arg(long = "trust-tools")]
    pub(crate) trust_tools: bool,
}

/// `--trust-prompts`: commands that offer the workspace's prompt files.
#[derive(Debug, Args, Default)]
pub(crate) struct PromptTrustFlag {
    /// Trust the workspace's .oy/prompts/ as it is now: its files become
    /// slash commands (remembered by a SHA-256 of every file; an added,
    /// edited or renamed file must be trusted again).
    #[arg(long = "trust-prompts")]
    pub(crate) trust_prompts: bool,
}

/// `--trust-mcp`: commands that may start the workspace's MCP servers.
#[derive(Debug, Args, Default)]
pub(crate) struct McpTrustFlag {
    /// Trust the workspace's .oy/mcp.toml (or .json) as it is now: its MCP
    /// servers may start (remembered by its SHA-256; an edited file must be
    /// trusted again).
    #[arg(long = "trust-mcp")]
    pub(crate) trust_mcp: bool,
}

/// `--model`, `--provider`, `--wire-api`: commands that talk to a model.
#[derive(Debug, Args, Default)]
pub(crate) struct ProviderFlags {
    /// Model id (also OY_MODEL; default from the config file, saved by `oy model --set`).
    #[arg(long, env = "OY_MODEL", value_name = "ID")]
    pub(crate) model: Option<String>,
    /// Provider name from the config file, or openai, bedrock, ollama,
    /// llamacpp, lmstudio (default: the config's, else found from the environment).
    #[arg(long, env = "OY_PROVIDER", value_name = "NAME")]
    pub(crate) provider: Option<String>,
    /// OpenAI-compatible wire API: chat or responses (also OY_WIRE_API).
    #[arg(long = "wire-api", env = "OY_WIRE_API", value_name = "API")]
    pub(crate) wire_api: Option<String>,
}

impl Common {
    pub(crate) fn root(mut self, flag: &RootFlag) -> Self {
        self.root.clone_from(&flag.root);
        self
    }

    pub(crate) fn policy(mut self, flags: &PolicyFlags) -> Self {
        self.mode.clone_from(&flags.mode);
        self.network.clone_from(&flags.network);
        self
    }

    pub(crate) fn commands(mut self, flags: &CommandFlags) -> Self {
        self.sandbox.clone_from(&flags.sandbox);
        self.env_allow.clone_from(&flags.env_allow);
        self
    }

    pub(crate) fn trust(mut self, flag: &TrustFlag) -> Self {
        self.trust_tools = flag.trust_tools;
        self
    }

    pub(crate) fn prompts(mut self, flag: &PromptTrustFlag) -> Self {
        self.trust_prompts = flag.trust_prompts;
        self
    }

    pub(crate) fn mcp(mut self, flag: &McpTrustFlag) -> Self {
        self.trust_mcp = flag.trust_mcp;
        self
    }

    pub(crate) fn provider(mut self, flags: &ProviderFlags) -> Self {
        self.model.clone_from(&flags.model);
        self.provider.clone_from(&flags.provider);
        self.wire_api.clone_from(&flags.wire_api);
        self
    }
}

/// Every flag a session with the model takes: `oy run`, `oy "PROMPT"`
/// and `oy chat`.
#[derive(Debug, Args, Default)]
pub(crate) struct AgentFlags {
    #[command(flatten)]
    pub(crate) root: RootFlag,
    #[command(flatten)]
    pub(crate) policy: PolicyFlags,
    #[command(flatten)]
    pub(crate) commands: CommandFlags,
    #[command(flatten)]
    pub(crate) trust: TrustFlag,
    #[command(flatten)]
    pub(crate) prompts: PromptTrustFlag,
    #[command(flatten)]
    pub(crate) mcp: McpTrustFlag,
    #[command(flatten)]
    pub(crate) provider: ProviderFlags,
}

impl AgentFlags {
    pub(crate) fn common(&self) -> Common {
        Common::default()
            .root(&self.root)
            .policy(&self.policy)
            .commands(&self.commands)
            .trust(&self.trust)
            .prompts(&self.prompts)
            .mcp(&self.mcp)
            .provider(&self.provider)
    }
}

/// `--max-turns N`: at least one request, or nothing could happen.
fn max_turns(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(0) => Err("must be at least 1: every turn needs a model request".to_owned()),
        Ok(turns) => Ok(turns),
        Err(error) => Err(error.to_string()),
    }
}

/// `oy run` and `oy "PROMPT"`.
#[derive(Debug, Args, Default)]
pub(crate) struct RunCommand {
    #[command(flatten)]
    pub(crate) args: RunArgs,
    #[command(flatten)]
    pub(crate) flags: AgentFlags,
}

/// Flags of a task run (`oy run`, `oy "PROMPT"`).
#[derive(Debug, Args, Default)]
pub(crate) struct RunArgs {
    /// The task; read from stdin when absent (or `-`).
    #[arg(value_name = "PROMPT")]
    pub(crate) prompt: Vec<String>,
    /// Print events as JSON lines on stdout (see docs/events.md).
    #[arg(long)]
    pub(crate) json: bool,
    /// Print only the final answer.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// Show whole command outputs and diffs, not only their last lines.
    #[arg(short, long, conflicts_with_all = ["quiet", "json"])]
    pub(crate) verbose: bool,
    /// Most model requests in one turn before it stops (default 100; at least 1).
    #[arg(long = "max-turns", value_name = "N", value_parser = max_turns)]
    pub(crate) max_turns: Option<u32>,
    /// Continue the saved session ID (`oy sessions` lists them).
    #[arg(long, value_name = "ID", conflicts_with = "continue_")]
    pub(crate) resume: Option<String>,
    /// Continue this workspace's most recent session.
    #[arg(long = "continue", id = "continue_")]
    pub(crate) continue_: bool,
}

/// `oy chat`.
#[derive(Debug, Args)]
pub(crate) struct ChatCommand {
    #[command(flatten)]
    pub(crate) args: ChatArgs,
    #[command(flatten)]
    pub(crate) flags: AgentFlags,
}

/// Flags of `oy chat`.
#[derive(Debug, Args, Default)]
pub(crate) struct ChatArgs {
    /// The first message, sent as the chat's first turn.
    #[arg(value_name = "MESSAGE")]
    pub(crate) prompt: Vec<String>,
    /// Show whole command outputs and diffs, not only their last lines.
    #[arg(short, long)]
    pub(crate) verbose: bool,
    /// Most model requests in one turn before it stops (default 100; at least 1).
    #[arg(long = "max-turns", value_name = "N", value_parser = max_turns)]
    pub(crate) max_turns: Option<u32>,
    /// Continue the saved session ID.
    #[arg(long, value_name = "ID", conflicts_with = "continue_")]
    pub(crate) resume: Option<String>,
    /// Continue this workspace's most recent session.
    #[arg(long = "continue", id = "continue_")]
    pub(crate) continue_: bool,
}

const RUN_EXAMPLES: &str = "\
Examples:
  oy run \"explain what src/main.rs does\"     one task; changes and commands ask first
  oy run --mode edit \"fix the failing test\"  let it edit files; commands still ask
  echo \"summarise the README\" | oy run -q   prompt on stdin, print only the answer
  oy run --json \"list the TODOs\" > events.jsonl
  oy run --continue \"now add a test\"         continue this workspace's last session
  oy run /init                               write AGENTS.md: build, test and layout notes
  oy run /review src/lib.rs                  a prompt file's command (docs/configuration.md)

Exit codes: 0 done, 1 failed, 2 usage or config error, 3 stopped by policy, 130 interrupted.";

const CHAT_EXAMPLES: &str = "\
Examples:
  oy chat                              start an interactive session
  oy chat \"where is the config read?\"  start with this as the first turn
  oy chat --mode plan                  research only: no file changes, no commands
  oy chat --continue                   pick up this workspace's last session
  oy resume                            pick one of this workspace's saved sessions

Inside: /help lists the commands; Ctrl-C cancels a turn, Ctrl-D quits.
A chat in which nothing was said is not saved.";

/// `oy resume`.
#[derive(Debug, Args)]
pub(crate) struct ResumeCommand {
    /// The session to continue (default: pick one of this workspace's
    /// recent sessions at the terminal).
    #[arg(value_name = "ID")]
    pub(crate) id: Option<String>,
    /// Show whole command outputs and diffs, not only their last lines.
    #[arg(short, long)]
    pub(crate) verbose: bool,
    /// Most model requests in one turn before it stops (default 100; at least 1).
    #[arg(long = "max-turns", value_name = "N", value_parser = max_turns)]
    pub(crate) max_turns: Option<u32>,
    #[command(flatten)]
    pub(crate) flags: AgentFlags,
}

const RESUME_EXAMPLES: &str = "\
Examples:
  oy resume                  pick one of this workspace's recent sessions
  oy resume 20261122-041503-a1f3c07e
  oy resume --mode plan      pick one and continue it research-only

Without an ID, a terminal is needed to pick (`oy sessions` lists the IDs).
The chat then goes on as `oy chat --resume ID` would.";

const MODEL_EXAMPLES: &str = "\
Examples:
  oy model                      the provider's models, the default marked *
  oy model llama                only ids containing `llama`
  oy model --set gpt-4.1-mini   save the default model in the config file
  oy model --provider ollama --json";

const DOCTOR_EXAMPLES: &str = "\
Examples:
  oy doctor                        everything a run here would use, with hints
  oy doctor --provider ollama      check another provider
  oy doctor --root ~/src/project   check another workspace

It reports a malformed config file as a problem and goes on. Exit codes:
0 ready, 1 a run would fail (see the hints), 2 usage error.";

const SESSIONS_EXAMPLES: &str = "\
Examples:
  oy sessions               this workspace's sessions, newest first
  oy sessions --all         every workspace's
  oy sessions --json | jq '.[0].id'
  oy chat --resume ID       continue one (or oy run --resume ID \"…\")";

/// Flags of `oy undo`.
#[derive(Debug, Args)]
pub(crate) struct UndoArgs {
    /// The session whose turns to undo (default: this workspace's latest).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// How many turns that changed something to undo.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) turns: u32,
    /// Show the diff it would apply; change nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Redo the last undo instead (once, before the session's next turn).
    #[arg(long)]
    pub(crate) redo: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) root: RootFlag,
}

/// Flags of `oy diff`.
#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The session (default: this workspace's latest).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    #[command(flatten)]
    pub(crate) root: RootFlag,
}

const UNDO_EXAMPLES: &str = "\
Puts back what the session's last turn changed: files its tools wrote, moved
or removed and, in a git workspace, what its commands changed (tracked and
untracked files, not ignored ones). Refuses, changing nothing, when a file was
changed since by someone else. Your git history, index, stash and refs are
never touched.

Examples:
  oy undo                   undo the latest session's last turn
  oy undo --dry-run         show the diff it would apply
  oy undo --turns 3         the last three turns that changed something
  oy undo --redo            take the undo back (once)
  oy diff                   everything the latest session changed so far";

const DIFF_EXAMPLES: &str = "\
Examples:
  oy diff                   what the latest session changed, as a unified diff
  oy diff --session ID      another session of this workspace
  oy diff | less -R";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  oy completions bash > ~/.local/share/bash-completion/completions/oy
  oy completions zsh > \"${fpath[1]}/_oy\"
  oy completions fish > ~/.config/fish/completions/oy.fish";

const TOOLS_EXAMPLES: &str = "\
Examples:
  oy tools --pretty                 the specs the default mode offers
  oy tools --mode plan              what a research-only session sees
  oy tools --format markdown        the reference in docs/tools.md";

/// Flags of `oy model`.
#[derive(Debug, Args)]
pub(crate) struct ModelArgs {
    /// Show only models whose id contains this text.
    pub(crate) filter: Option<String>,
    /// Save this model as the default in the config file.
    #[arg(long, value_name = "ID")]
    pub(crate) set: Option<String>,
    /// Print the list as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) provider: ProviderFlags,
}

/// Flags of `oy doctor`: whatever changes what it reports.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    #[command(flatten)]
    pub(crate) flags: AgentFlags,
}

/// Flags of `oy sessions`.
#[derive(Debug, Args)]
pub(crate) struct SessionsArgs {
    /// List the sessions of every workspace, not only this one.
    #[arg(long)]
    pub(crate) all: bool,
    /// Print the list as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) root: RootFlag,
}

const AUDIT_NOTES: &str = "\
What is sent: the text of reviewable files in scope, with secret-shaped lines
replaced by [redacted: KIND]. Never sent: files ignored by .gitignore/.ignore,
build outputs and dependencies, VCS directories, lockfiles, hidden files,
likely-secret files (.env*, keys, *.pem, credentials, kubeconfig, *.tfstate,
shell and database histories…), binary and non-UTF-8 files, --exclude'd
paths, earlier reports. The report's first line says what was sent and what
was skipped, by reason. --include-hidden, --include-ignored and
--include-lockfiles send more; no option sends likely-secret files.

Nothing is ever truncated. A file too large for one chunk is skipped when it
is data or documentation (JSON, snapshots, changelogs, generated files:
counted as large-data-or-docs); code or configuration that large stops the
audit, naming each file and the --exclude that skips it. --dry-run shows the
whole plan and exits 1 when the audit would stop.

Examples:
  oy audit --dry-run                 the plan: files, skips, chunks, tokens; nothing sent
  oy audit \"focus on auth\"           a focused review, written to ISSUES.md
  oy audit --path src/server --format sarif --out audit.sarif
  oy audit --exclude 'tests/fixtures/' --exclude '*.sql'";

/// `--max-chunks` when not given.
pub(crate) const DEFAULT_MAX_CHUNKS: usize = 256;

/// Flags of `oy audit`.
#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// What to focus on (e.g. "focus on auth").
    #[arg(value_name = "FOCUS")]
    pub(crate) focus: Vec<String>,
    /// Audit only this path inside the workspace.
    #[arg(long, value_name = "PATH")]
    pub(crate) path: Option<String>,
    /// Where to write the report, inside the workspace (default ISSUES.md,
    /// or oy-audit.sarif with --format sarif).
    #[arg(long, value_name = "PATH")]
    pub(crate) out: Option<String>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = AuditFormat::Markdown)]
    pub(crate) format: AuditFormat,
    /// Print the plan (files, skips, chunks, estimated tokens) and send nothing.
    #[arg(long = "dry-run")]
    pub(crate) dry_run: bool,
    /// Also send dot-files (never likely-secret ones).
    #[arg(long = "include-hidden")]
    pub(crate) include_hidden: bool,
    /// Also send files that .gitignore/.ignore exclude.
    #[arg(long = "include-ignored")]
    pub(crate) include_ignored: bool,
    /// Also send lockfiles.
    #[arg(long = "include-lockfiles")]
    pub(crate) include_lockfiles: bool,
    /// Skip paths matching this gitignore-style glob (repeatable;
    /// `dir/` for a directory, `/x` anchored at the root).
    #[arg(long, value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,
    /// Skip files larger than this many bytes (default: what one chunk
    /// of the model's context window holds).
    #[arg(long = "max-file-bytes", value_name = "N")]
    pub(crate) max_file_bytes: Option<u64>,
    /// Most chunks (model calls) before the audit refuses.
    #[arg(long = "max-chunks", value_name = "N", default_value_t = DEFAULT_MAX_CHUNKS)]
    pub(crate) max_chunks: usize,
    /// Chunk reviews in flight at once.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub(crate) concurrency: usize,
    #[command(flatten)]
    pub(crate) root: RootFlag,
    #[command(flatten)]
    pub(crate) provider: ProviderFlags,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum AuditFormat {
    /// ISSUES.md: transparency line, summary, findings, a JSON block.
    Markdown,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
}

/// Flags of `oy completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run one task in the workspace (the prompt may come on stdin).
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunCommand),
    /// Interactive session: Ctrl-C cancels a turn, Ctrl-D quits, /help lists commands.
    #[command(after_help = CHAT_EXAMPLES)]
    Chat(ChatCommand),
    /// Continue a saved session in chat (no ID: pick one of this workspace's recent ones).
    #[command(after_help = RESUME_EXAMPLES)]
    Resume(ResumeCommand),
    /// List the provider's models; `--set ID` saves the default.
    #[command(after_help = MODEL_EXAMPLES)]
    Model(ModelArgs),
    /// Check configuration, provider, credentials and paths (exit 1 if a run would fail).
    #[command(after_help = DOCTOR_EXAMPLES)]
    Doctor(DoctorArgs),
    /// List saved sessions (resume one with `oy run --resume ID` or `oy chat --resume ID`).
    #[command(after_help = SESSIONS_EXAMPLES)]
    Sessions(SessionsArgs),
    /// Undo the last turn's changes (files, and commands' in git); --redo takes it back.
    #[command(after_help = UNDO_EXAMPLES)]
    Undo(UndoArgs),
    /// Show everything a session changed so far, as a unified diff.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),
    /// Review the repository for security and correctness issues (no tools; writes ISSUES.md).
    #[command(after_help = AUDIT_NOTES)]
    Audit(AuditArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell).
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print the tool specs the model would see in a mode, as a JSON array.
    #[command(after_help = TOOLS_EXAMPLES)]
    Tools(ToolsArgs),
    /// Run one tool call exactly as if the model had made it.
    #[command(after_help = TOOL_EXAMPLES)]
    Tool(ToolArgs),
    /// Run a command under the sandbox a tool call gets (no command: show it).
    #[command(after_help = SANDBOX_NOTES)]
    Sandbox(SandboxArgs),
    /// MCP servers: `list` their status, tools and cost; `tools NAME` in full.
    #[command(after_help = MCP_NOTES)]
    Mcp(McpArgs),
}

const MCP_NOTES: &str = "\
Servers are `[mcp_servers.NAME]` tables in the global config, or in the
workspace's .oy/mcp.toml once you trust it (docs/mcp.md). Listing starts
every enabled server (stdio ones under the sandbox) and stops them again.

Examples:
  oy mcp list                 each server: status, tools, bytes added to every request
  oy mcp tools docs           the tools of server `docs`, with their descriptions";

/// Flags of `oy mcp`.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    #[command(subcommand)]
    pub(crate) action: McpAction,
}

/// What `oy mcp` does.
#[derive(Debug, Subcommand)]
pub(crate) enum McpAction {
    /// Every configured server: status, tools, and the bytes their schemas add to every request.
    List(McpFlags),
    /// One server's tools with their descriptions.
    Tools {
        /// The server's name (the NAME of `[mcp_servers.NAME]`).
        name: String,
        #[command(flatten)]
        flags: McpFlags,
    },
}

/// The flags both `oy mcp` actions take.
#[derive(Debug, Args)]
pub(crate) struct McpFlags {
    #[command(flatten)]
    pub(crate) root: RootFlag,
    #[command(flatten)]
    pub(crate) policy: PolicyFlags,
    #[command(flatten)]
    pub(crate) commands: CommandFlags,
    #[command(flatten)]
    pub(crate) mcp: McpTrustFlag,
}

impl McpArgs {
    pub(crate) fn common(&self) -> Common {
        let (McpAction::List(flags) | McpAction::Tools { flags, .. }) = &self.action;
        Common::default()
            .root(&flags.root)
            .policy(&flags.policy)
            .commands(&flags.commands)
            .mcp(&flags.mcp)
    }
}

const SANDBOX_NOTES: &str = "\
Commands may write only inside the workspace and a private $TMPDIR; .git's
config, hooks and info and .oy/ stay read-only; they may read the workspace,
system directories and toolchain caches, not the rest of your home (add paths
with `sandbox_read = [\"~/path\"]` in the global config); no network unless
--network allow; no controlling terminal; nothing they start outlives them.

Examples:
  oy sandbox                                   show the level and the rules
  oy sandbox -- bash -c 'cat ~/.ssh/id_rsa'    see a read refused
  oy sandbox --network allow -- curl -sI https://example.com

Exit code: the command's (126 if the sandbox could not be set up, 127 if the
program was not found).";

/// Flags of `oy sandbox`.
#[derive(Debug, Args)]
pub(crate) struct SandboxArgs {
    /// The command and its arguments (after `--`).
    #[arg(last = true, value_name = "CMD")]
    pub(crate) command: Vec<std::ffi::OsString>,
    #[command(flatten)]
    pub(crate) root: RootFlag,
    #[command(flatten)]
    pub(crate) policy: PolicyFlags,
    #[command(flatten)]
    pub(crate) commands: CommandFlags,
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
    #[command(flatten)]
    pub(crate) root: RootFlag,
    #[command(flatten)]
    pub(crate) policy: PolicyFlags,
    #[command(flatten)]
    pub(crate) trust: TrustFlag,
    #[command(flatten)]
    pub(crate) mcp: McpTrustFlag,
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
    /// Cap the output at BYTES instead of the model's 64 KiB (head and tail
    /// kept, the middle cut with a marker); the tool's own limits still apply.
    #[arg(long = "max-output", value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_output: Option<u64>,
    #[command(flatten)]
    pub(crate) root: RootFlag,
    #[command(flatten)]
    pub(crate) policy: PolicyFlags,
    #[command(flatten)]
    pub(crate) commands: CommandFlags,
    #[command(flatten)]
    pub(crate) trust: TrustFlag,
}
