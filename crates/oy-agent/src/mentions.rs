//! `@path` mentions: a person names a file or directory in their prompt
//! and it goes to the model with it, before any request — a file as the
//! `read` tool shows it, a directory as `list` does, run through the
//! registry's own code paths ([`oy_tools::Registry::run_read_only`]) so
//! the limits, the numbering and the read the tools remember (a `replace`
//! after it needs no fresh `read`) are exactly those of the model's own
//! call. Nothing outside the workspace, nothing but regular files and
//! directories: a mention that cannot be attached is an error naming it,
//! and no request is made.
//!
//! `parse.rs` finds the mentions in the text; `complete.rs` offers paths
//! for a frontend's Tab key by the same rules.

mod complete;
mod parse;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::sync::Arc;

use oy_boundary::{BoundaryError, FileKind, Workspace, WorkspacePath};
use oy_tools::{Registry, ToolContext};
use serde_json::json;

pub use complete::{Completion, CompletionCandidate, complete_mention};
pub use parse::{Mention, find_mentions};

use crate::agent::Agent;
use crate::prompt::{Attachment, AttachmentKind, Prompt};

/// Punctuation that may end a sentence right after a path (`see
/// @src/lib.rs.`): dropped when the path without it exists.
const TRAILING: &[char] = &['.', ',', ';', ':', '!', '?', ')'];

/// Close names offered for a mention that names nothing.
const CLOSE_NAMES: usize = 3;

/// Why a prompt's mentions cannot be attached. Nothing was sent.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MentionError {
    /// Nothing in the workspace has this name.
    #[error("@{mention}: no such file or directory in the workspace")]
    NotFound {
        /// The path as written (trailing punctuation dropped).
        mention: String,
        /// Existing files with close names, best first.
        close: Vec<String>,
    },
    /// The path names something that cannot be attached: outside the
    /// workspace, a special file, a binary or non-UTF-8 file.
    #[error("@{mention}: {reason}")]
    Unusable {
        /// The path as written.
        mention: String,
        /// Why, for people.
        reason: String,
    },
    /// A quoted mention is not closed, or is empty.
    #[error("{mention}: {problem}")]
    Malformed {
        /// The text from the `@`, shortened.
        mention: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// The reading thread failed.
    #[error("attaching the mentioned files failed: {0}")]
    Failed(String),
}

/// Attaches every mention of `text` (see the module doc) with `registry`'s
/// `read` and `list` in `tools`' workspace. Blocking: run it off the async
/// executor ([`Agent::prepare`] does).
pub fn attach_mentions(
    registry: &Registry,
    tools: &ToolContext,
    text: &str,
) -> Result<Prompt, MentionError> {
    let found = parse::scan(text)?;
    let mut attachments: Vec<Attachment> = Vec::new();
    let mut seen = HashSet::new();
    for mention in found.iter().filter_map(|found| match found {
        parse::Found::Mention(mention) => Some(mention),
        parse::Found::Escape(_) => None,
    }) {
        let (path, kind) = resolve(tools.workspace(), mention)?;
        if !seen.insert(path.to_text()) {
            continue;
        }
        let number = attachments.len() + 1;
        attachments.push(read(registry, tools, &path, kind, number)?);
    }
    let said = parse::unescape(text, &found);
    Ok(Prompt::with_attachments(text.to_owned(), said, attachments))
}

impl Agent {
    /// The prompt for `text` with its `@path` mentions attached (see
    /// [`attach_mentions`]), or why one cannot be — before anything is
    /// sent or recorded. Pass the result to [`Agent::turn`] or
    /// [`Agent::ask`].
    pub async fn prepare(&self, text: &str) -> Result<Prompt, MentionError> {
        let registry = Arc::clone(&self.registry);
        let tools = Arc::clone(&self.tools);
        let text = text.to_owned();
        tokio::task::spawn_blocking(move || attach_mentions(&registry, &tools, &text))
            .await
            .map_err(|error| MentionError::Failed(error.to_string()))?
    }
}

/// The path a mention names and what is there. An unquoted mention's
/// trailing punctuation is dropped, one character at a time, while the
/// path with it does not exist.
fn resolve(ws: &Workspace, mention: &Mention) -> Result<(WorkspacePath, FileKind), MentionError> {
    let mut written = mention.path.as_str();
    loop {
        let unusable = |reason: String| MentionError::Unusable {
            mention: written.to_owned(),
            reason,
        };
        let path = ws
            .path(written)
            .map_err(|error| unusable(error.to_string()))?;
        match ws.metadata(&path) {
            Ok(meta) => {
                return match meta.kind {
                    FileKind::File | FileKind::Directory => Ok((path, meta.kind)),
                    other => Err(unusable(format!(
                        "{path} is a {other}, not a file or directory"
                    ))),
                };
            }
            Err(BoundaryError::NotFound { .. }) => {
                let shorter = written.strip_suffix(TRAILING).filter(|_| !mention.quoted);
                match shorter {
                    Some(shorter) if !shorter.is_empty() => written = shorter,
                    _ => {
                        let close = ws
                            .suggest(&path, CLOSE_NAMES)
                            .iter()
                            .map(WorkspacePath::to_text)
                            .collect();
                        return Err(MentionError::NotFound {
                            mention: written.to_owned(),
                            close,
                        });
                    }
                }
            }
            Err(error) => return Err(unusable(error.to_string())),
        }
    }
}

/// Runs `read` or `list` on `path` for the person.
fn read(
    registry: &Registry,
    tools: &ToolContext,
    path: &WorkspacePath,
    kind: FileKind,
    number: usize,
) -> Result<Attachment, MentionError> {
    let mut text = path.to_text();
    let (tool, kind) = if kind == FileKind::Directory {
        if !text.ends_with('/') {
            text.push('/');
        }
        ("list", AttachmentKind::Directory)
    } else {
        ("read", AttachmentKind::File)
    };
    let output = registry
        .run_read_only(
            tools,
            &format!("mention-{number}"),
            tool,
            &json!({ "path": text }),
        )
        .map_err(|error| MentionError::Unusable {
            mention: path.to_text(),
            reason: error.to_string(),
        })?;
    let content = output.text;
    let markers = content.lines().filter(|line| is_marker(line)).count();
    let lines = match kind {
        AttachmentKind::File => content
            .lines()
            .filter(|line| line.starts_with(|c: char| c.is_ascii_digit()))
            .count(),
        AttachmentKind::Directory if content.starts_with("(no entries)") => 0,
        AttachmentKind::Directory => content.lines().count() - markers,
    };
    Ok(Attachment {
        path: text,
        kind,
        lines,
        truncated: output.truncated || markers > 0,
        content,
    })
}

/// A line the tools add about their output (a limit reached, where to
/// read on): a file's own lines are numbered, and a listing's are paths.
fn is_marker(line: &str) -> bool {
    [
        "[truncated: ",
        "[limit reached: ",
        "[walk stopped ",
        "[output cap reached",
        "[line limit reached",
    ]
    .iter()
    .any(|marker| line.starts_with(marker))
}
