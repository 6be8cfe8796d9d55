//! Allow for this session: the [`SessionScope`] an approval's "always"
//! answer would grant, computed from exactly what the person is shown, and
//! the scopes a session remembers ([`SessionAllows`]). The rules are
//! described in `docs/protected-paths.md` ("Allow for this session").
//!
//! The scopes live in memory only, never in the saved session: a
//! permission is given by a person watching a live session, for what they
//! expect of it now; a session resumed later (perhaps days later, perhaps
//! with a different model or a changed workspace) asks again. Keeping it
//! out of the session file also means nothing written to disk can grant
//! one.

mod command;

use std::sync::{Mutex, PoisonError};

use serde::Serialize;

use crate::spec::Effect;

/// What an "always, this session" answer allows without asking, for the
/// rest of the session.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionScope {
    /// Every change by this file tool that is an ordinary workspace write
    /// ([`Effect::WorkspaceWrite`]); never a change the protected-paths
    /// table raises to a command approval ([`Effect::Process`]).
    Tool {
        /// The tool (`write`, `replace`, `patch`, `move`, `todo`; `remove`
        /// is never offered one).
        tool: String,
    },
    /// Every command (`bash`, `exec`, `exec_command`) that is one simple
    /// command whose words begin with these words.
    CommandPrefix {
        /// The words, as the shell reads them (`["cargo", "test"]`).
        words: Vec<String>,
    },
}

impl SessionScope {
    /// One line for a person: what the scope allows.
    pub fn describe(&self) -> String {
        match self {
            Self::Tool { tool } => format!("`{tool}` changes to ordinary workspace files"),
            Self::CommandPrefix { words } => {
                format!("commands starting with `{}`", words.join(" "))
            }
        }
    }

    /// True when this scope allows `tool`'s call about `subject` with `effect`.
    fn covers(&self, tool: &str, effect: Effect, subject: &Subject) -> bool {
        match (self, subject) {
            (Self::Tool { tool: allowed }, Subject::FileChange) => {
                effect == Effect::WorkspaceWrite && allowed == tool
            }
            (Self::CommandPrefix { words: prefix }, Subject::Command(Some(words))) => {
                effect == Effect::Process && command::starts_with(words, prefix)
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for SessionScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

/// A session permission an approval involved (the `session` field of an
/// approval event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionGrant {
    /// What it allows.
    pub scope: SessionScope,
    /// True when the person's answer to this call added it; false when an
    /// earlier answer's scope covered this call and no one was asked.
    pub added: bool,
}

/// What a call is, as far as a session scope can cover it. Built by the
/// tool that knows it (the file tools, the command tools).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Subject {
    /// Nothing a session scope covers (`webfetch`, `write_stdin`, user tools).
    Other,
    /// A built-in file tool's change.
    FileChange,
    /// A command, as the words it runs; `None` when it is not one simple
    /// command (see [`command::simple_command`]).
    Command(Option<Vec<String>>),
}

impl Subject {
    /// A command line a shell runs (`bash -c LINE`).
    pub(crate) fn shell(line: &str) -> Self {
        Self::Command(command::simple_command(line))
    }

    /// A program run with `args`, no shell between. A call that also sets
    /// variables or feeds stdin is [`Self::Other`]: its words are not all
    /// of what runs.
    pub(crate) fn argv(program: &str, args: &[String], env_or_stdin: bool) -> Self {
        if env_or_stdin {
            return Self::Other;
        }
        Self::Command(Some(
            std::iter::once(program.to_owned())
                .chain(args.iter().cloned())
                .collect(),
        ))
    }

    /// The scope an "always" answer would grant for `tool`'s call with
    /// `effect`, or `None` when no safe one exists.
    pub(crate) fn offer(&self, tool: &str, effect: Effect) -> Option<SessionScope> {
        match self {
            Self::FileChange if effect == Effect::WorkspaceWrite => Some(SessionScope::Tool {
                tool: tool.to_owned(),
            }),
            Self::Command(Some(words)) if effect == Effect::Process => {
                command::prefix_for(words).map(|words| SessionScope::CommandPrefix { words })
            }
            _ => None,
        }
    }
}

/// The scopes a session has been allowed, in the order they were given.
#[derive(Debug, Default)]
pub(crate) struct SessionAllows {
    scopes: Mutex<Vec<SessionScope>>,
}

impl SessionAllows {
    fn scopes(&self) -> std::sync::MutexGuard<'_, Vec<SessionScope>> {
        self.scopes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The remembered scope that allows this call, if one does.
    pub(crate) fn covering(
        &self,
        tool: &str,
        effect: Effect,
        subject: &Subject,
    ) -> Option<SessionScope> {
        self.scopes()
            .iter()
            .find(|scope| scope.covers(tool, effect, subject))
            .cloned()
    }

    /// Remembers `scope` (once).
    pub(crate) fn remember(&self, scope: SessionScope) {
        let mut scopes = self.scopes();
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }

    /// Every remembered scope.
    pub(crate) fn list(&self) -> Vec<SessionScope> {
        self.scopes().clone()
    }

    /// Forgets them all.
    pub(crate) fn clear(&self) {
        self.scopes().clear();
    }
}

#[cfg(test)]
mod tests;
