//! Tab completion in chat: `/` command names at the start of a line, and
//! the path of an `@mention` anywhere — what `oy_agent::complete_mention`
//! offers (listed through the workspace boundary by the `list` tool's
//! rules). A name that would not show as it is on a terminal (a control
//! or bidi character) is never offered: it would be written into the line
//! being edited.

use std::sync::Arc;

use oy_boundary::Workspace;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};

use crate::render::terminal_line;

/// The chat's line editor.
pub(super) type ChatEditor = Editor<ChatHelper, DefaultHistory>;

/// The slash commands Tab completes (`parse_input` reads them; a test
/// checks that each one parses and that `/help` lists it).
pub(super) const COMMANDS: &[&str] = &[
    "ask",
    "clear",
    "compact",
    "diff",
    "help",
    "init",
    "mcp",
    "mode",
    "model",
    "permissions",
    "quit",
    "redo",
    "resume",
    "save",
    "sessions",
    "todo",
    "tokens",
    "undo",
];

/// An editor that completes commands and, when `workspace` is open, paths.
/// Ambiguous choices are listed on a second Tab, as in a shell.
pub(super) fn editor(workspace: Option<Workspace>) -> rustyline::Result<ChatEditor> {
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .build();
    let mut editor = ChatEditor::with_config(config)?;
    editor.set_helper(Some(ChatHelper {
        workspace: workspace.map(Arc::new),
        prompts: Vec::new(),
    }));
    Ok(editor)
}

/// Adds the session's prompt commands (`/review` from `review.md`) to what
/// Tab completes after `/`. Their names are checked when loaded (letters,
/// digits, `-`, `_`), so they show as they are.
pub(super) fn set_prompt_commands(editor: &mut ChatEditor, names: Vec<String>) {
    if let Some(helper) = editor.helper_mut() {
        helper.prompts = names;
    }
}

/// Completes; does nothing else (no hints, no colours, Enter submits).
pub(super) struct ChatHelper {
    workspace: Option<Arc<Workspace>>,
    /// Prompt commands' names, completed like the built-in ones.
    prompts: Vec<String>,
}

impl Completer for ChatHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        if let Some(commands) = command_candidates(line, pos, &self.prompts) {
            return Ok((1, commands));
        }
        let Some(workspace) = &self.workspace else {
            return Ok((pos, Vec::new()));
        };
        let Some(completion) = oy_agent::complete_mention(workspace, line, pos) else {
            return Ok((pos, Vec::new()));
        };
        let candidates = completion
            .candidates
            .into_iter()
            .filter(|candidate| {
                terminal_line(&candidate.replacement) == candidate.replacement
                    && terminal_line(&candidate.display) == candidate.display
            })
            .map(|candidate| Pair {
                display: candidate.display,
                replacement: candidate.replacement,
            })
            .collect();
        Ok((completion.start, candidates))
    }
}

/// The command names for a `/partial` at the start of the line, with the
/// cursor at its end.
fn command_candidates(line: &str, pos: usize, prompts: &[String]) -> Option<Vec<Pair>> {
    let partial = line.get(..pos)?.strip_prefix('/')?;
    if partial.contains(char::is_whitespace) {
        return None;
    }
    let mut names: Vec<&str> = COMMANDS
        .iter()
        .copied()
        .chain(prompts.iter().map(String::as_str))
        .filter(|name| name.starts_with(partial))
        .collect();
    names.sort_unstable();
    names.dedup();
    Some(
        names
            .into_iter()
            .map(|name| Pair {
                display: format!("/{name}"),
                replacement: name.to_owned(),
            })
            .collect(),
    )
}

impl Hinter for ChatHelper {
    type Hint = String;
}

impl Highlighter for ChatHelper {}

impl Validator for ChatHelper {}

impl Helper for ChatHelper {}

#[cfg(test)]
mod tests {
    use super::super::{ChatInput, HELP, parse_input};
    use super::*;

    fn replacements(line: &str) -> Vec<String> {
        command_candidates(line, line.len(), &[])
            .unwrap_or_default()
            .into_iter()
            .map(|pair| pair.replacement)
            .collect()
    }

    #[test]
    fn every_completed_command_parses_and_is_in_the_help() {
        for name in COMMANDS {
            let input = parse_input(&format!("/{name} x"));
            assert!(
                !matches!(input, ChatInput::Unknown(_)),
                "/{name}: {input:?}"
            );
            assert!(
                HELP.contains(&format!("/{name}")),
                "/{name} is not in /help"
            );
        }
    }

    #[test]
    fn every_command_in_the_help_is_completed() {
        let listed: Vec<&str> = HELP
            .lines()
            .filter_map(|line| line.trim_start().strip_prefix('/'))
            .filter_map(|rest| rest.split_whitespace().next())
            .collect();
        assert!(listed.len() >= 10, "{listed:?}");
        for name in listed {
            assert!(
                COMMANDS.contains(&name),
                "/{name} is in /help but Tab does not complete it"
            );
        }
    }

    #[test]
    fn a_slash_at_the_start_completes_command_names() {
        assert_eq!(replacements("/mo"), ["mode", "model"]);
        assert_eq!(replacements("/"), COMMANDS);
        assert!(replacements("/mode pl").is_empty());
        assert!(command_candidates("say /mo", 7, &[]).is_none());
    }

    #[test]
    fn prompt_commands_complete_beside_the_built_in_ones() {
        let prompts = ["review".to_owned(), "release-notes".to_owned()];
        let names: Vec<String> = command_candidates("/re", 3, &prompts)
            .unwrap_or_default()
            .into_iter()
            .map(|pair| pair.replacement)
            .collect();
        assert_eq!(names, ["redo", "release-notes", "resume", "review"]);
    }
}
