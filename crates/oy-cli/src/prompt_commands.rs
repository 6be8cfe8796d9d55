//! The user's own slash commands, and `/init`, in the CLI: this file reads
//! the global `prompts/` directory, names the trust record's place (the
//! data dir), asks at the terminal, prints what did not load, lists the
//! commands for `/help`, and turns `/NAME ARGS` into a turn's prompt;
//! `oy_config::load_prompt_commands` decides what loads and how arguments
//! are substituted (`docs/configuration.md`, "Prompt files").

use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use oy_boundary::Workspace;
use oy_config::{
    MAX_PROMPT_BYTES, MAX_PROMPT_FILES, Origin, PROMPT_TRUST_FILE, PromptCommands, PromptSource,
    PromptTrustRequest, SkipReason, Skipped, WORKSPACE_PROMPTS, WorkspacePrompts, is_command_name,
    load_prompt_commands,
};
use oy_tools::{FileTrustStore, MemoryTrustStore, TrustStore};

use crate::config::Config;
use crate::exit::UsageError;
use crate::render::terminal_line;

/// The chat's built-in command names (what `commands::chat::parse_input`
/// takes): no prompt file may have one.
pub(crate) const BUILTINS: &[&str] = &[
    "help",
    "quit",
    "exit",
    "q",
    "mode",
    "model",
    "ask",
    "init",
    "resume",
    "compact",
    "clear",
    "save",
    "sessions",
    "todo",
    "todos",
    "tokens",
    "undo",
    "redo",
    "diff",
    "permissions",
    "mcp",
];

/// Most skipped files named one by one; the rest are counted.
const MAX_SKIPS_SHOWN: usize = 5;

/// Loads the prompt commands of `config`'s workspace, asking at the
/// terminal when a person can answer.
pub(crate) fn load(config: &Config) -> Result<PromptCommands> {
    let workspace = Workspace::open(&config.root)
        .with_context(|| format!("cannot open workspace {}", config.root.display()))?;
    let (global, mut unread) = match global_dir(config) {
        Some(dir) => read_global(&dir),
        None => (Vec::new(), Vec::new()),
    };
    // Without a data dir, approval lasts for this run only.
    let mut store: Box<dyn TrustStore> = match &config.settings.dirs.data_dir {
        Some(dir) => Box::new(FileTrustStore::for_subject(
            dir,
            PROMPT_TRUST_FILE,
            WORKSPACE_PROMPTS,
        )),
        None => Box::new(MemoryTrustStore::default()),
    };
    let prompt = crate::approver::TerminalPrompt;
    let mut loaded = load_prompt_commands(
        global,
        &workspace,
        BUILTINS,
        store.as_mut(),
        config.trust_workspace_prompts,
        |request| config.settings.policy.interactive && prompt.confirm(&question(request)),
    )
    .context("cannot load prompt files")?;
    unread.append(&mut loaded.skipped);
    loaded.skipped = unread;
    Ok(loaded)
}

/// [`load`] for a chat: a failure is a warning, and the chat goes on
/// without prompt commands.
pub(crate) fn load_for_chat(config: &Config) -> PromptCommands {
    match load(config) {
        Ok(loaded) => {
            report(&loaded, true);
            loaded
        }
        Err(error) => {
            crate::report::hint(&format!("no prompt commands: {error:#}"));
            PromptCommands::default()
        }
    }
}

/// Prints what did not load (and, when `untrusted` is set, that the
/// workspace's prompt files are not trusted) on stderr.
pub(crate) fn report(loaded: &PromptCommands, untrusted: bool) {
    for skipped in loaded.skipped.iter().take(MAX_SKIPS_SHOWN) {
        crate::report::hint(&format!(
            "ignoring prompt file {}: {}",
            terminal_line(&skipped.file),
            terminal_line(&skipped.reason.to_string())
        ));
    }
    if loaded.skipped.len() > MAX_SKIPS_SHOWN {
        crate::report::hint(&format!(
            "ignoring {} more prompt files",
            loaded.skipped.len() - MAX_SKIPS_SHOWN
        ));
    }
    match &loaded.workspace {
        WorkspacePrompts::Untrusted { digest, .. } if untrusted => {
            crate::report::hint(&format!(
                "ignoring {WORKSPACE_PROMPTS}/: its prompt files are not trusted (sha256 {}…); review them, then rerun with --trust-prompts",
                short(digest)
            ));
        }
        WorkspacePrompts::Unreadable(why) => {
            crate::report::hint(&format!("ignoring {WORKSPACE_PROMPTS}/: {why}"));
        }
        _ => {}
    }
}

/// Why `/NAME` sends nothing.
#[derive(Debug)]
pub(crate) enum NotOffered {
    /// The workspace's untrusted prompt files define it: the message says so.
    Untrusted(String),
    /// Nothing defines it: what was typed (one safe line), and the close
    /// names.
    Unknown { name: String, close: Vec<String> },
}

impl NotOffered {
    /// The text for a chat.
    pub(crate) fn chat_message(&self) -> String {
        match self {
            Self::Untrusted(message) => message.clone(),
            Self::Unknown { name, close } => {
                format!(
                    "unknown command /{name}; /help lists them{}",
                    did_you_mean(close)
                )
            }
        }
    }
}

fn did_you_mean(close: &[String]) -> String {
    if close.is_empty() {
        return String::new();
    }
    let close: Vec<String> = close.iter().map(|name| format!("/{name}")).collect();
    format!("\nhint: did you mean {}?", close.join(" or "))
}

/// The prompt `/NAME ARGS` sends, or why there is none.
pub(crate) fn prompt_for(
    loaded: &PromptCommands,
    name: &str,
    args: &str,
) -> Result<String, NotOffered> {
    if let Some(command) = loaded.get(name) {
        return Ok(command.expand(args));
    }
    if let WorkspacePrompts::Untrusted { digest, .. } = &loaded.workspace
        && loaded.is_untrusted(name)
    {
        return Err(NotOffered::Untrusted(format!(
            "/{name} comes from {WORKSPACE_PROMPTS}/{name}.md, which is not trusted (sha256 {}…)\nhint: review {WORKSPACE_PROMPTS}/, then start oy again with --trust-prompts",
            short(digest)
        )));
    }
    let mut known: Vec<&str> = BUILTINS.to_vec();
    known.extend(loaded.commands.iter().map(|command| command.name.as_str()));
    Err(NotOffered::Unknown {
        name: terminal_line(name),
        close: crate::lone_word::nearest(&name.to_ascii_lowercase(), &known)
            .into_iter()
            .map(str::to_owned)
            .collect(),
    })
}

/// The prompt of an `/init` turn, with anything typed after `/init`
/// appended as the person's own guidance.
pub(crate) fn init_prompt(args: &str) -> String {
    let args = args.trim();
    if args.is_empty() {
        oy_agent::INIT_PROMPT.to_owned()
    } else {
        format!("{}\n\n{args}", oy_agent::INIT_PROMPT)
    }
}

/// `oy run /NAME ARGS` and `oy run /init`: the prompt a command line
/// beginning with a command sends. Text that does not begin with `/` and a
/// name (`/tmp/x.log …`, `/* … */`) is sent as it is; so is text that
/// begins with a space.
pub(crate) fn expand_for_run(config: &Config, prompt: String) -> Result<String> {
    let Some(command) = prompt.strip_prefix('/') else {
        return Ok(prompt);
    };
    let (name, args) = command
        .split_once(char::is_whitespace)
        .unwrap_or((command, ""));
    if !is_command_name(name) {
        return Ok(prompt);
    }
    if name == "init" {
        return Ok(init_prompt(args));
    }
    if BUILTINS.contains(&name) {
        return Err(UsageError::new(format!(
            "/{name} is a chat command\nhint: use it inside `oy chat`; `oy run --help` lists what a run takes"
        ))
        .into());
    }
    let loaded = load(config)?;
    report(&loaded, !loaded.is_untrusted(name));
    prompt_for(&loaded, name, args).map_err(|refusal| {
        let message = match refusal {
            NotOffered::Untrusted(message) => message,
            NotOffered::Unknown { name, close } => {
                let place = global_dir(config).map_or_else(
                    || "prompts/NAME.md in the config directory".to_owned(),
                    |dir| dir.join("NAME.md").display().to_string(),
                );
                format!(
                    "unknown command /{name}{}\nhint: a prompt file {place} or {WORKSPACE_PROMPTS}/NAME.md makes /NAME (docs/configuration.md)\nhint: to send text that begins with `/` as it is, begin it with a space",
                    did_you_mean(&close)
                )
            }
        };
        UsageError::new(message).into()
    })
}

/// The lines `/help` adds: the prompt commands, and those not loaded.
pub(crate) fn help(loaded: &PromptCommands, config: &Config) -> String {
    let mut lines = Vec::new();
    if loaded.commands.is_empty() {
        let place = global_dir(config)
            .map_or_else(|| "prompts/".to_owned(), |dir| dir.display().to_string());
        lines.push(format!(
            "Your own commands: none yet. A Markdown file NAME.md in {place} (or, once trusted, {WORKSPACE_PROMPTS}/) becomes /NAME."
        ));
    } else {
        lines.push("Your own commands (prompt files):".to_owned());
        let usage: Vec<String> = loaded
            .commands
            .iter()
            .map(|command| match &command.argument_hint {
                Some(hint) => format!("/{} {}", command.name, terminal_line(hint)),
                None => format!("/{}", command.name),
            })
            .collect();
        let width = usage
            .iter()
            .map(|text| text.chars().count())
            .max()
            .unwrap_or(0);
        for (command, usage) in loaded.commands.iter().zip(&usage) {
            let from = match command.origin {
                Origin::Workspace => "  (this workspace)",
                _ => "",
            };
            lines.push(format!(
                "  {usage:<width$}  {}{from}",
                terminal_line(&command.summary())
            ));
        }
    }
    if let WorkspacePrompts::Untrusted { names, .. } = &loaded.workspace {
        let names: Vec<String> = names.iter().map(|name| format!("/{name}")).collect();
        lines.push(format!(
            "Not trusted, so not offered: {} from {WORKSPACE_PROMPTS}/ (review it, then start oy with --trust-prompts)",
            names.join(" ")
        ));
    }
    lines.join("\n")
}

/// What the person is asked before a workspace's prompt files load.
fn question(request: &PromptTrustRequest<'_>) -> String {
    let summary = request
        .commands
        .iter()
        .map(|command| format!("  /{}  {}", command.name, terminal_line(&command.summary())))
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "This workspace defines its own slash commands in {}/ (sha256 {}…):\n{summary}\nEach sends its file's text to the model as if you had typed it. Trust these files?",
        request.dir,
        short(request.digest),
    )
}

fn short(digest: &str) -> &str {
    digest.get(..16).unwrap_or(digest)
}

/// `CONFIG_DIR/prompts`, when there is a config directory.
fn global_dir(config: &Config) -> Option<PathBuf> {
    config
        .settings
        .dirs
        .config_dir
        .as_ref()
        .map(|dir| dir.join("prompts"))
}

/// The user's own prompt files in `dir` by the library's rules (`*.md`
/// directly inside, no dot-files, at most [`MAX_PROMPT_FILES`] in name
/// order, each at most [`MAX_PROMPT_BYTES`], UTF-8), and those it could not
/// read. Links are followed: the directory is the user's own, often kept
/// by a dotfiles manager as links.
fn read_global(dir: &Path) -> (Vec<PromptSource>, Vec<Skipped>) {
    let mut sources = Vec::new();
    let mut skipped = Vec::new();
    let unreadable = |file: String, problem: String| Skipped {
        file,
        reason: SkipReason::Unreadable { problem },
    };
    #[expect(
        clippy::disallowed_methods,
        reason = "the user's own prompt files, outside any workspace"
    )]
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return (sources, skipped),
        Err(error) => {
            skipped.push(unreadable(dir.display().to_string(), error.to_string()));
            return (sources, skipped);
        }
    };
    let mut names: Vec<String> = listing
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md") && !name.starts_with('.'))
        .collect();
    names.sort();
    for (index, file_name) in names.into_iter().enumerate() {
        let path = dir.join(&file_name);
        let file = path.display().to_string();
        if index >= MAX_PROMPT_FILES {
            skipped.push(Skipped {
                file,
                reason: SkipReason::TooMany {
                    limit: MAX_PROMPT_FILES,
                },
            });
            continue;
        }
        match read_capped(&path) {
            Ok(Some(text)) => sources.push(PromptSource {
                file_name,
                file,
                text,
            }),
            Ok(None) => {}
            Err(reason) => skipped.push(Skipped { file, reason }),
        }
    }
    (sources, skipped)
}

/// A regular file's text, at most [`MAX_PROMPT_BYTES`]; `None` for a
/// directory (not a prompt file, and not worth a word).
fn read_capped(path: &Path) -> Result<Option<String>, SkipReason> {
    let problem = |problem: String| SkipReason::Unreadable { problem };
    #[expect(
        clippy::disallowed_methods,
        reason = "the user's own prompt files, outside any workspace"
    )]
    let meta = std::fs::metadata(path).map_err(|error| problem(error.to_string()))?;
    if meta.is_dir() {
        return Ok(None);
    }
    // Never opened unless regular: a FIFO would block the read.
    if !meta.is_file() {
        return Err(problem("it is not a regular file".to_owned()));
    }
    if meta.len() > MAX_PROMPT_BYTES {
        return Err(SkipReason::TooLarge {
            limit: MAX_PROMPT_BYTES,
        });
    }
    #[expect(
        clippy::disallowed_methods,
        reason = "the user's own prompt files, outside any workspace"
    )]
    let file = std::fs::File::open(path).map_err(|error| problem(error.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_PROMPT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| problem(error.to_string()))?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_PROMPT_BYTES {
        return Err(SkipReason::TooLarge {
            limit: MAX_PROMPT_BYTES,
        });
    }
    if bytes.contains(&0) {
        return Err(problem("it looks like a binary file".to_owned()));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| problem("it is not valid UTF-8".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_takes_extra_guidance_after_a_blank_line() {
        assert_eq!(init_prompt("  "), oy_agent::INIT_PROMPT);
        let with = init_prompt(" focus on the server ");
        assert!(with.starts_with(oy_agent::INIT_PROMPT));
        assert!(with.ends_with("\n\nfocus on the server"));
    }

    #[test]
    fn an_unknown_command_suggests_a_close_one() {
        let loaded = PromptCommands::default();
        let refusal = prompt_for(&loaded, "hepl", "").unwrap_err();
        let message = refusal.chat_message();
        assert!(matches!(refusal, NotOffered::Unknown { .. }));
        assert!(message.starts_with("unknown command /hepl"), "{message}");
        assert!(message.contains("did you mean /help?"), "{message}");
    }
}
