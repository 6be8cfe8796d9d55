//! Prompt files: the user's own slash commands. A Markdown file `NAME.md`
//! in the global config directory's `prompts/` (the user's own, trusted)
//! or in the workspace's `.oy/prompts/` (comes with the repository, so it
//! adds nothing until its exact content is approved for that workspace)
//! becomes `/NAME [ARGS]`: its text, with the arguments substituted
//! ([`expand`]), is sent as the turn's prompt.
//!
//! [`load_prompt_commands`] decides which files load: names
//! (lowercase letters, digits, `-`, `_`), clashes (a built-in command
//! wins over any file, a global file over a workspace one), and the
//! workspace directory's trust, kept by an `oy_tools::TrustStore` under the
//! workspace root and a digest of every file's name and content, so an
//! added, edited or renamed file needs approval again. The frontend reads
//! the global directory, says whether the person approves now, and
//! renders; `docs/configuration.md` ("Prompt files") is the user's
//! description of these rules.

mod expand;
mod parse;
mod read;

pub use expand::expand;

use std::collections::BTreeSet;

use oy_boundary::{BoundaryError, Workspace};
use oy_tools::TrustStore;

use crate::ConfigError;
use parse::{parse_prompt, summary};
use read::{DirRead, prompt_digest, read_prompt_dir};

/// The workspace's prompt directory, relative to the root.
pub const WORKSPACE_PROMPTS: &str = ".oy/prompts";

/// The trust record of workspace prompt directories, in the frontend's
/// data directory (apart from the tools' record).
pub const PROMPT_TRUST_FILE: &str = "trusted-prompts.json";

/// Largest prompt file read: a prompt is a page of text, not a data file.
pub const MAX_PROMPT_BYTES: u64 = 64 * 1024;

/// Most prompt files read from one directory (in name order).
pub const MAX_PROMPT_FILES: usize = 200;

/// The longest command name.
const MAX_NAME_CHARS: usize = 64;

/// One prompt file as a frontend found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptSource {
    /// Its file name (`review.md`): the command's name and `.md`.
    pub file_name: String,
    /// Where it is, for messages.
    pub file: String,
    /// Its text.
    pub text: String,
}

/// Where a prompt command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// The user's own prompts directory.
    Global,
    /// The workspace's `.oy/prompts/`.
    Workspace,
}

/// A loaded `/NAME` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptCommand {
    /// The name typed after `/`.
    pub name: String,
    /// Where it comes from.
    pub origin: Origin,
    /// Its file, for messages.
    pub file: String,
    /// The front matter's `description`, one line.
    pub description: Option<String>,
    /// The front matter's `argument-hint` (`[path]`), one line.
    pub argument_hint: Option<String>,
    body: String,
}

impl PromptCommand {
    /// The prompt this command sends with `arguments` ([`expand`]).
    pub fn expand(&self, arguments: &str) -> String {
        expand(&self.body, arguments)
    }

    /// The prompt text before substitution.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// One line for a list of commands: the description, or else the
    /// prompt's first line.
    pub fn summary(&self) -> String {
        self.description
            .clone()
            .or_else(|| summary(&self.body))
            .unwrap_or_default()
    }
}

/// A prompt file that did not become a command, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file, as [`PromptSource::file`] names it.
    pub file: String,
    /// Why.
    pub reason: SkipReason,
}

/// Why a prompt file was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkipReason {
    /// Its name is not lowercase letters, digits, `-` and `_`.
    #[error(
        "a command name is lowercase letters, digits, `-` and `_` (at most {MAX_NAME_CHARS}), starting with a letter or digit"
    )]
    BadName,
    /// A built-in command has its name; the built-in wins.
    #[error("/{name} is a built-in command")]
    Builtin {
        /// The name.
        name: String,
    },
    /// The user's own prompts define the same name; theirs wins.
    #[error("your own prompt file {global} defines /{name} too, and yours wins")]
    ShadowedByGlobal {
        /// The name.
        name: String,
        /// The global file.
        global: String,
    },
    /// Larger than [`MAX_PROMPT_BYTES`].
    #[error("it is larger than {limit} bytes")]
    TooLarge {
        /// The cap.
        limit: u64,
    },
    /// Beyond [`MAX_PROMPT_FILES`] in its directory.
    #[error("only the first {limit} prompt files of a directory are read")]
    TooMany {
        /// The cap.
        limit: usize,
    },
    /// It cannot be read as text (a link out of the workspace, not UTF-8…).
    #[error("{problem}")]
    Unreadable {
        /// Why, as a sentence.
        problem: String,
    },
    /// Its text is not a prompt (unclosed front matter, no prompt text).
    #[error("{problem}")]
    Invalid {
        /// Why, as a sentence.
        problem: String,
    },
}

/// What happened to the workspace's `.oy/prompts/`.
#[derive(Debug)]
#[non_exhaustive]
pub enum WorkspacePrompts {
    /// The workspace has none, or nothing in it would load.
    Absent,
    /// Trusted (earlier, or now) and loaded.
    Trusted {
        /// The commands it added, in order.
        names: Vec<String>,
    },
    /// Present but not trusted: it added nothing.
    Untrusted {
        /// The directory's digest, lowercase hex.
        digest: String,
        /// The commands it would add.
        names: Vec<String>,
    },
    /// Not a readable directory inside the workspace (a link out of the
    /// root, a file…): it added nothing.
    Unreadable(BoundaryError),
}

/// What a person is asked to approve: the workspace's prompt files, not
/// trusted yet, already parsed, with the commands they would add.
#[derive(Debug, Clone, Copy)]
pub struct PromptTrustRequest<'a> {
    /// The directory, relative to the root ([`WORKSPACE_PROMPTS`]).
    pub dir: &'a str,
    /// The digest of its files, lowercase hex.
    pub digest: &'a str,
    /// The commands it would add, in order.
    pub commands: &'a [PromptCommand],
}

/// The prompt commands of a session.
#[derive(Debug)]
pub struct PromptCommands {
    /// The commands, global ones first, each in name order.
    pub commands: Vec<PromptCommand>,
    /// Files that did not load, and why.
    pub skipped: Vec<Skipped>,
    /// What happened to the workspace's directory.
    pub workspace: WorkspacePrompts,
}

impl Default for PromptCommands {
    fn default() -> Self {
        Self {
            commands: Vec::new(),
            skipped: Vec::new(),
            workspace: WorkspacePrompts::Absent,
        }
    }
}

impl PromptCommands {
    /// The command called `name`.
    pub fn get(&self, name: &str) -> Option<&PromptCommand> {
        self.commands.iter().find(|command| command.name == name)
    }

    /// True when the untrusted workspace directory would define `name`.
    pub fn is_untrusted(&self, name: &str) -> bool {
        matches!(&self.workspace, WorkspacePrompts::Untrusted { names, .. } if names.iter().any(|n| n == name))
    }
}

/// True for a command name a prompt file may have: lowercase ASCII
/// letters, digits, `-` and `_`, starting with a letter or digit, at most
/// 64 characters.
pub fn is_command_name(name: &str) -> bool {
    name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .next()
            .is_some_and(|first| first.is_ascii_lowercase() || first.is_ascii_digit())
        && name.bytes().all(|byte| {
            byte.is_ascii_lowercase() || byte.is_ascii_digit() || matches!(byte, b'-' | b'_')
        })
}

/// Loads the user's `global` prompt files, then the workspace's
/// `.oy/prompts/` when `store` trusts its content for this root, or
/// `trust_now` is set, or `ask` approves it (then `store` remembers).
/// `ask` is called only when some workspace file would load and is not
/// trusted yet, and at most once. `builtins` are the frontend's own
/// command names: no file may take one.
///
/// Errors: only a trust record that cannot be read or written. A file
/// that does not load is [`PromptCommands::skipped`]; a directory that
/// cannot be read is an outcome.
pub fn load_prompt_commands(
    global: Vec<PromptSource>,
    workspace: &Workspace,
    builtins: &[&str],
    store: &mut dyn TrustStore,
    trust_now: bool,
    ask: impl FnOnce(&PromptTrustRequest<'_>) -> bool,
) -> Result<PromptCommands, ConfigError> {
    let mut skipped = Vec::new();
    let mut commands = commands_of(global, Origin::Global, builtins, &[], &mut skipped);
    let (sources, mut unread) = match read_prompt_dir(workspace, WORKSPACE_PROMPTS) {
        DirRead::Absent => {
            return Ok(PromptCommands {
                commands,
                skipped,
                workspace: WorkspacePrompts::Absent,
            });
        }
        DirRead::Unreadable(error) => {
            return Ok(PromptCommands {
                commands,
                skipped,
                workspace: WorkspacePrompts::Unreadable(error),
            });
        }
        DirRead::Read { sources, skipped } => (sources, skipped),
    };
    skipped.append(&mut unread);
    // Parsed before anyone is asked: the person sees what would load.
    let digest = prompt_digest(&sources);
    let local = commands_of(
        sources,
        Origin::Workspace,
        builtins,
        &commands,
        &mut skipped,
    );
    let names: Vec<String> = local.iter().map(|command| command.name.clone()).collect();
    let outcome = if local.is_empty() {
        WorkspacePrompts::Absent
    } else {
        let root = workspace.root();
        let trusted = if store.is_trusted(root, &digest)? {
            true
        } else if trust_now
            || ask(&PromptTrustRequest {
                dir: WORKSPACE_PROMPTS,
                digest: &digest,
                commands: &local,
            })
        {
            store.trust(root, &digest)?;
            true
        } else {
            false
        };
        if trusted {
            commands.extend(local);
            WorkspacePrompts::Trusted { names }
        } else {
            WorkspacePrompts::Untrusted { digest, names }
        }
    };
    Ok(PromptCommands {
        commands,
        skipped,
        workspace: outcome,
    })
}

/// The commands `sources` define, in name order; the rest go to `skipped`.
fn commands_of(
    mut sources: Vec<PromptSource>,
    origin: Origin,
    builtins: &[&str],
    earlier: &[PromptCommand],
    skipped: &mut Vec<Skipped>,
) -> Vec<PromptCommand> {
    sources.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    let builtins: BTreeSet<&str> = builtins.iter().copied().collect();
    let mut commands = Vec::new();
    for source in sources {
        let name = source
            .file_name
            .strip_suffix(".md")
            .unwrap_or(&source.file_name);
        let reason = if !is_command_name(name) {
            Some(SkipReason::BadName)
        } else if builtins.contains(name) {
            Some(SkipReason::Builtin {
                name: name.to_owned(),
            })
        } else {
            earlier
                .iter()
                .find(|command| command.name == name)
                .map(|global| SkipReason::ShadowedByGlobal {
                    name: name.to_owned(),
                    global: global.file.clone(),
                })
        };
        if let Some(reason) = reason {
            skipped.push(Skipped {
                file: source.file,
                reason,
            });
            continue;
        }
        match parse_prompt(&source.text) {
            Ok(parsed) => commands.push(PromptCommand {
                name: name.to_owned(),
                origin,
                file: source.file,
                description: parsed.description,
                argument_hint: parsed.argument_hint,
                body: parsed.body,
            }),
            Err(problem) => skipped.push(Skipped {
                file: source.file,
                reason: SkipReason::Invalid { problem },
            }),
        }
    }
    commands
}

#[cfg(test)]
#[path = "prompts_tests.rs"]
mod tests;
