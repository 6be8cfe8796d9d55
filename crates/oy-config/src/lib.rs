//! The user's configuration for oy, the top library layer: the config
//! files' schema (the global `config.toml`, a workspace's `.oy/config.toml`
//! and its ceiling), the precedence between overrides, the files and the
//! defaults, and the wiring of the result into the other libraries' inputs.
//!
//! It owns: [`Settings::resolve`] (from [`Overrides`], the [`ConfigTexts`]
//! a frontend read, an environment lookup, and whether a person is at the
//! terminal), [`Dirs`] (the XDG directories), the TOML parsing with its
//! warnings ([`parse_global`], [`parse_workspace`]), editing the file's
//! default model ([`with_model`]), the user's own slash commands
//! ([`load_prompt_commands`]: prompt files, their names, trust and
//! `$ARGUMENTS` substitution), and
//! [`Settings::connect_settings`], [`Settings::agent_options`],
//! [`Settings::audit_window`], [`Settings::sandbox_inputs`] and
//! [`Settings::mcp_specs`] (the `[mcp_servers.NAME]` tables); errors are
//! a typed [`ConfigError`].
//!
//! It must never: read environment variables, the terminal or a file
//! outside a workspace the caller opened (the frontend passes a lookup and
//! the files' texts), print, or name a frontend's flags in its errors.
//! Only frontends depend on it.

mod dirs;
mod edit;
mod error;
mod file;
mod overrides;
mod prompts;
mod settings;
mod wiring;

pub use dirs::Dirs;
pub use edit::with_model;
pub use error::ConfigError;
pub use file::{
    GlobalFile, MAX_CONFIG_BYTES, WORKSPACE_CONFIG, parse_global, parse_workspace,
    read_workspace_config,
};
pub use overrides::{Overrides, is_interactive};
pub use prompts::{
    MAX_PROMPT_BYTES, MAX_PROMPT_FILES, Origin, PROMPT_TRUST_FILE, PromptCommand, PromptCommands,
    PromptSource, PromptTrustRequest, SkipReason, Skipped, WORKSPACE_PROMPTS, WorkspacePrompts,
    expand, is_command_name, load_prompt_commands,
};
pub use settings::{ConfigTexts, Settings};
