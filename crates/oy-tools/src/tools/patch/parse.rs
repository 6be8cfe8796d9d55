//! Parsing the `patch` argument — a unified diff or a `*** Begin Patch`
//! envelope — into one model: a list of per-file sections with hunks.

mod envelope;
mod unified;

use crate::error::ToolError;

/// What a file section does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Create a file that must not exist.
    Add,
    /// Change (and maybe move) a file that must exist.
    Update,
    /// Remove a file that must exist.
    Delete,
}

/// One line of a hunk, without its prefix character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HunkLine {
    /// ` `: must be in the file, stays.
    Context(String),
    /// `-`: must be in the file, goes.
    Remove(String),
    /// `+`: is inserted.
    Add(String),
}

/// One hunk: where it goes (hints) and what it changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// 1-based position among the file's hunks.
    pub(crate) ordinal: usize,
    /// The header as written (`@@ -3,4 +3,5 @@`, `@@ fn main`), for messages.
    pub(crate) label: String,
    /// 0-based line where the old side starts, from a unified header (a hint).
    pub(crate) hint: Option<usize>,
    /// Envelope `@@ line` anchors: each must be found, in order, before the hunk.
    pub(crate) anchors: Vec<String>,
    /// The body.
    pub(crate) lines: Vec<HunkLine>,
    /// `\ No newline at end of file` after an old-side line.
    pub(crate) old_missing_newline: bool,
    /// `\ No newline at end of file` after a new-side line.
    pub(crate) new_missing_newline: bool,
    /// The old side must end at the end of the file.
    pub(crate) at_eof: bool,
}

/// One file's part of the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilePatch {
    /// Add, update or delete.
    pub(crate) action: Action,
    /// The path as written (prefix `a/`/`b/` removed).
    pub(crate) path: String,
    /// Where an update moves the file.
    pub(crate) move_to: Option<String>,
    /// The hunks, in file order.
    pub(crate) hunks: Vec<Hunk>,
    /// The section's header as written, for messages.
    pub(crate) header: String,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const EXAMPLE: &str = "send a unified diff (`--- a/src/x.rs`, `+++ b/src/x.rs`, `@@ -1,2 +1,2 @@`, then ' '/'-'/'+' lines) or `*** Begin Patch` / `*** Update File: src/x.rs` / `@@` / ' '/'-'/'+' lines / `*** End Patch`";

/// Parses either format. Nothing is checked against the workspace here.
pub(crate) fn parse(text: &str) -> Result<Vec<FilePatch>, ToolError> {
    let lines = split_lines(text);
    // The first header decides: a diff may patch a file that mentions the envelope.
    let first = lines.iter().position(|line| {
        line.trim_end() == BEGIN || line.starts_with("--- ") || line.starts_with("diff --git ")
    });
    let files = match first {
        Some(begin) if lines.get(begin).is_some_and(|l| l.trim_end() == BEGIN) => {
            envelope::parse_envelope(&lines, begin)?
        }
        _ => unified::parse_unified(&lines)?,
    };
    if files.is_empty() {
        return Err(ToolError::failed(
            "the patch holds no file changes (no `--- `/`+++ ` headers and no `*** Begin Patch`)",
            EXAMPLE,
        ));
    }
    Ok(files)
}

/// Lines without their `\n` or `\r\n`; a trailing newline adds no empty line.
fn split_lines(text: &str) -> Vec<&str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect()
}

fn syntax(line: usize, message: impl std::fmt::Display) -> ToolError {
    ToolError::failed(format!("patch line {line}: {message}"), EXAMPLE)
}

/// Keeps messages short when a model sends a huge line.
pub(crate) fn clip(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or(text)),
        None => text.to_owned(),
    }
}
