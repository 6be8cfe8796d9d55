//! `ToolState`: what tools remember within a session — which files were
//! read (with a digest of what was seen) and the todo list. Serializable,
//! so a frontend can keep it across processes.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A todo item's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Finished.
    Done,
}

/// One entry of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    /// Optional stable id; numbered from 1 when missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What to do.
    pub text: String,
    /// Where it stands.
    pub status: TodoStatus,
}

/// Session memory of the tools. Versioned for storage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolState {
    /// Format version of this record.
    #[serde(default = "version")]
    pub version: u32,
    /// Root-relative path → SHA-256 (hex) of the whole file as last read or written.
    #[serde(default)]
    pub reads: BTreeMap<String, String>,
    /// The current plan.
    #[serde(default)]
    pub todos: Vec<TodoItem>,
    /// Set by [`ToolState::one_shot`]. Never saved.
    #[serde(skip)]
    one_shot: bool,
}

fn version() -> u32 {
    1
}

impl ToolState {
    /// The state of a single call that is dropped after it (`oy tool`
    /// without a saved session): nothing can consult a read record, so
    /// `read` spares the digest of the whole file. A later `replace` in the
    /// same state would find no record and refuse, never the reverse. The
    /// default state, and every loaded one, keeps records.
    pub fn one_shot() -> Self {
        Self {
            one_shot: true,
            ..Self::default()
        }
    }

    /// False for a [`Self::one_shot`] state: reads are not worth recording.
    pub fn records_reads(&self) -> bool {
        !self.one_shot
    }

    /// Remembers that `path` was seen with exactly `content`.
    pub fn remember(&mut self, path: &str, content: &[u8]) {
        self.remember_digest(path, content_digest(content));
    }

    /// Remembers that `path` was seen with the content whose
    /// [`content_digest`] is `digest` (computed elsewhere, e.g. off the
    /// thread that writes the files).
    pub fn remember_digest(&mut self, path: &str, digest: String) {
        self.reads.insert(path.to_owned(), digest);
    }

    /// Forgets `path` (after a move or removal).
    pub fn forget(&mut self, path: &str) {
        self.reads.remove(path);
    }

    /// The digest recorded for `path`, if it was read.
    pub fn seen(&self, path: &str) -> Option<&str> {
        self.reads.get(path).map(String::as_str)
    }
}

/// SHA-256 of `content`, as lowercase hex.
pub fn content_digest(content: &[u8]) -> String {
    let mut digest = ContentDigest::default();
    digest.update(content);
    digest.finish()
}

/// [`content_digest`] of content that arrives in pieces (a file read once
/// for both its window and its digest).
#[derive(Default)]
pub(crate) struct ContentDigest(Sha256);

impl ContentDigest {
    /// Adds the next piece.
    pub(crate) fn update(&mut self, piece: &[u8]) {
        self.0.update(piece);
    }

    /// The digest of every piece so far, in order.
    pub(crate) fn finish(self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = String::with_capacity(64);
        for byte in self.0.finalize() {
            hex.push(char::from(HEX[usize::from(byte >> 4)]));
            hex.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        hex
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_sha256_in_lowercase_hex() {
        assert_eq!(
            content_digest(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            content_digest(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn one_shot_is_never_saved_and_a_loaded_state_records_reads() {
        let mut state = ToolState::one_shot();
        assert!(!state.records_reads());
        state.remember("a.txt", b"a");
        let saved = serde_json::to_string(&state).unwrap();
        assert!(!saved.contains("one_shot"), "{saved}");
        let loaded: ToolState = serde_json::from_str(&saved).unwrap();
        assert!(loaded.records_reads());
        assert_eq!(loaded.seen("a.txt"), state.seen("a.txt"));
        assert!(ToolState::default().records_reads());
    }

    #[test]
    fn a_digest_in_pieces_is_the_digest_of_the_whole() {
        let text: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for cut in [0, 1, 63, 64, 65, 4096, 199_999, 200_000] {
            let mut digest = ContentDigest::default();
            let (head, tail) = text.split_at(cut);
            digest.update(head);
            digest.update(&[]);
            digest.update(tail);
            assert_eq!(digest.finish(), content_digest(&text), "cut at {cut}");
        }
    }
}
