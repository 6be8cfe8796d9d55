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
}

fn version() -> u32 {
    1
}

impl ToolState {
    /// Remembers that `path` was seen with exactly `content`.
    pub fn remember(&mut self, path: &str, content: &[u8]) {
        self.reads.insert(path.to_owned(), content_digest(content));
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
    Sha256::digest(content)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
