//! Tab completion of a mention being typed: the entries of the directory
//! the partial path is in, listed through the workspace boundary with the
//! `list` tool's filters (ignore files honoured; hidden entries only when
//! the partial name starts with `.`), directories ending in `/`, and a
//! name with whitespace quoted (`@"a b.txt"`) so that what is inserted
//! parses back as the same mention.

use oy_boundary::{FileKind, WalkOptions, Workspace};

/// At most this many entries of one directory are looked at.
const MAX_ENTRIES: usize = 10_000;

/// What Tab offers at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Byte offset in the line where the replaced text starts (the cursor
    /// is where it ends).
    pub start: usize,
    /// The choices, sorted by name.
    pub candidates: Vec<CompletionCandidate>,
}

/// One choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionCandidate {
    /// What replaces the line from [`Completion::start`] to the cursor.
    pub replacement: String,
    /// What a list of choices shows: the entry's name (`/` for a directory).
    pub display: String,
}

/// The completions for a mention that ends at `cursor` in `line`, or
/// `None` when the cursor is not in a mention (or its directory cannot be
/// listed). Names come from the file system: a frontend shows them through
/// its terminal-safe rule.
pub fn complete_mention(ws: &Workspace, line: &str, cursor: usize) -> Option<Completion> {
    let before = line.get(..cursor)?;
    let (at, quoted) = mention_start(before)?;
    let typed_from = at + if quoted { 2 } else { 1 };
    let partial = &before[typed_from..];
    let (dir, prefix) = match partial.rfind('/') {
        Some(slash) => partial.split_at(slash + 1),
        None => ("", partial),
    };
    let start = ws.path(if dir.is_empty() { "." } else { dir }).ok()?;
    let mut options = WalkOptions::new(start);
    options.max_depth = Some(1);
    options.max_entries = Some(MAX_ENTRIES);
    options.include_hidden = prefix.starts_with('.');
    let walk = ws.walk(&options).ok()?;
    let mut candidates: Vec<CompletionCandidate> = walk
        .entries
        .iter()
        .filter_map(|entry| {
            let name = entry.path.file_name()?.to_str()?;
            if !name.starts_with(prefix) {
                return None;
            }
            let is_dir = match entry.kind {
                FileKind::Directory => true,
                FileKind::File => false,
                // A link counts as what it leads to, inside the workspace;
                // one that leaves it (or leads nowhere) is not offered.
                FileKind::Symlink => match ws.metadata(&entry.path).ok()?.kind {
                    FileKind::Directory => true,
                    FileKind::File => false,
                    _ => return None,
                },
                _ => return None,
            };
            let path = format!("{dir}{name}{}", if is_dir { "/" } else { "" });
            let replacement = if quoted {
                if path.contains('"') {
                    return None;
                }
                // A file closes the quote; a directory leaves it open to go on.
                format!("{path}{}", if is_dir { "" } else { "\"" })
            } else if path.contains(char::is_whitespace) {
                if path.contains('"') {
                    return None;
                }
                format!("\"{path}{}", if is_dir { "" } else { "\"" })
            } else if path.starts_with('"') {
                return None;
            } else {
                path
            };
            Some(CompletionCandidate {
                replacement,
                display: format!("{name}{}", if is_dir { "/" } else { "" }),
            })
        })
        .collect();
    candidates.sort_by(|a, b| a.display.cmp(&b.display));
    Some(Completion {
        start: typed_from,
        candidates,
    })
}

/// Where the mention the cursor is in starts (its `@`), and whether it is
/// quoted: an `@` at the start or after whitespace, then either a path
/// with no whitespace up to the cursor, or `"` and a path with no closing
/// quote yet.
fn mention_start(before: &str) -> Option<(usize, bool)> {
    let boundary = |at: usize| {
        before[..at]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace)
    };
    // A quoted mention: the last `@"` at a boundary, with no `"` after it.
    if let Some(at) = before.rfind("@\"")
        && boundary(at)
        && !before[at + 2..].contains(['"', '\n'])
    {
        return Some((at, true));
    }
    let word_start = before.rfind(char::is_whitespace).map_or(0, |index| {
        index + before[index..].chars().next().map_or(1, char::len_utf8)
    });
    let word = &before[word_start..];
    let rest = word.strip_prefix('@')?;
    if rest.starts_with(['@', '"']) {
        return None;
    }
    Some((word_start, false))
}
