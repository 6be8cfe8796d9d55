//! Reading the workspace's `.oy/prompts/` through the boundary (a link out
//! of the root is never followed, each file is size-capped, only `*.md`
//! files directly inside count), and the digest its trust is recorded by.

use oy_boundary::{BoundaryError, FileKind, WalkOptions, Workspace};
use oy_tools::content_digest;

use super::{MAX_PROMPT_BYTES, MAX_PROMPT_FILES, PromptSource, SkipReason, Skipped};

/// What the workspace's prompt directory holds.
#[derive(Debug)]
pub(crate) enum DirRead {
    /// There is none.
    Absent,
    /// It is not a readable directory inside the workspace.
    Unreadable(BoundaryError),
    /// Its prompt files' texts, by name, and the files it could not read.
    Read {
        sources: Vec<PromptSource>,
        skipped: Vec<Skipped>,
    },
}

/// Reads every `*.md` file directly in `dir` (a path in `workspace`), in
/// name order, at most [`MAX_PROMPT_FILES`] of them.
pub(crate) fn read_prompt_dir(workspace: &Workspace, dir: &str) -> DirRead {
    let path = match workspace.path(dir) {
        Ok(path) => path,
        Err(error) => return DirRead::Unreadable(error),
    };
    match workspace.metadata(&path) {
        Ok(meta) if meta.kind == FileKind::Directory => {}
        Ok(meta) => {
            return DirRead::Unreadable(BoundaryError::NotADirectory {
                path: path.to_text(),
                kind: meta.kind,
            });
        }
        Err(BoundaryError::NotFound { .. }) => return DirRead::Absent,
        Err(error) => return DirRead::Unreadable(error),
    }
    let mut options = WalkOptions::new(path);
    options.max_depth = Some(1);
    options.respect_ignore_files = false;
    let walk = match workspace.walk(&options) {
        Ok(walk) => walk,
        Err(error) => return DirRead::Unreadable(error),
    };
    let mut sources = Vec::new();
    let mut skipped = Vec::new();
    let candidates = walk.entries.into_iter().filter(|entry| {
        entry.depth == 1
            && matches!(entry.kind, FileKind::File | FileKind::Symlink)
            && entry
                .path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().ends_with(".md"))
    });
    for (index, entry) in candidates.enumerate() {
        let shown = entry.path.to_text();
        if index >= MAX_PROMPT_FILES {
            skipped.push(Skipped {
                file: shown,
                reason: SkipReason::TooMany {
                    limit: MAX_PROMPT_FILES,
                },
            });
            continue;
        }
        let file_name = entry
            .path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A link is resolved by the boundary's rules: followed only while
        // it stays inside the workspace.
        match workspace.read_text(&entry.path, MAX_PROMPT_BYTES) {
            Ok(text) => sources.push(PromptSource {
                file_name,
                file: shown,
                text,
            }),
            Err(BoundaryError::TooLarge { limit, .. }) => skipped.push(Skipped {
                file: shown,
                reason: SkipReason::TooLarge { limit },
            }),
            Err(error) => skipped.push(Skipped {
                file: shown,
                reason: SkipReason::Unreadable {
                    problem: error.to_string(),
                },
            }),
        }
    }
    DirRead::Read { sources, skipped }
}

/// The SHA-256 a prompt directory's trust is recorded by: every file read
/// from it, by name and content, in name order. Each name and text is
/// length-prefixed, so no two different sets encode alike, and the
/// encoding starts with a line no `tools.json` (JSON) can begin with.
pub(crate) fn prompt_digest(sources: &[PromptSource]) -> String {
    let mut sorted: Vec<&PromptSource> = sources.iter().collect();
    sorted.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    let mut encoded = b"oy prompt files 1\n".to_vec();
    for source in sorted {
        for part in [source.file_name.as_bytes(), source.text.as_bytes()] {
            encoded.extend_from_slice(part.len().to_string().as_bytes());
            encoded.push(b':');
            encoded.extend_from_slice(part);
        }
    }
    content_digest(&encoded)
}
