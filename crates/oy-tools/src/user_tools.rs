//! User tools from `tools.json`: a manifest of
//! `{name, description, parameters, command: [argv…], timeoutSec?}`. Each
//! call runs the argv with the arguments as JSON on stdin and expects one
//! JSON value on stdout. They count as processes for approval.
//!
//! Loading never runs anything. This module only parses and validates;
//! which manifests may add tools (a global file in the config dir; a
//! workspace file only after the user approved its exact content) is
//! decided in `trust.rs`.

mod tool;

pub use tool::{UserTool, example_arguments};

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::Value;
use thiserror::Error;

/// Default and largest per-call timeout.
const DEFAULT_TIMEOUT_SEC: u64 = 30;
const MAX_TIMEOUT_SEC: u64 = 600;

/// One tool as written in `tools.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UserToolDef {
    /// The name the model calls it by (`[A-Za-z0-9_-]{1,64}`).
    pub name: String,
    /// What it does (shown to the model).
    pub description: String,
    /// JSON Schema of the arguments object.
    #[serde(default = "empty_object_schema")]
    pub parameters: Value,
    /// The program and its arguments (no shell).
    pub command: Vec<String>,
    /// Per-call timeout in seconds (default 30, at most 600).
    #[serde(default)]
    pub timeout_sec: Option<u64>,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
}

impl UserToolDef {
    /// The effective timeout.
    pub fn timeout_sec(&self) -> u64 {
        self.timeout_sec
            .unwrap_or(DEFAULT_TIMEOUT_SEC)
            .clamp(1, MAX_TIMEOUT_SEC)
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ManifestShape {
    Wrapped { tools: Vec<UserToolDef> },
    Bare(Vec<UserToolDef>),
}

/// A manifest that cannot be loaded. Names the file and the problem.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManifestError {
    /// Not valid JSON of the expected shape.
    #[error("{source_name}: not a valid tools manifest: {problem}")]
    Invalid {
        /// Where the manifest came from.
        source_name: String,
        /// The parser's message.
        problem: String,
    },
    /// One tool definition breaks a rule.
    #[error("{source_name}: tool `{tool}`: {problem}")]
    BadTool {
        /// Where the manifest came from.
        source_name: String,
        /// The tool.
        tool: String,
        /// The rule it breaks.
        problem: String,
    },
}

/// Parses and validates a manifest. `reserved` holds names already taken
/// (the built-in tools, and tools from manifests loaded earlier): a clash
/// is an error, never a silent override.
pub fn parse_manifest(
    source_name: &str,
    text: &str,
    reserved: &BTreeSet<String>,
) -> Result<Vec<UserToolDef>, ManifestError> {
    let shape: ManifestShape = serde_json::from_str(text).map_err(|e| ManifestError::Invalid {
        source_name: source_name.to_owned(),
        problem: e.to_string(),
    })?;
    let defs = match shape {
        ManifestShape::Wrapped { tools } | ManifestShape::Bare(tools) => tools,
    };
    let mut seen = BTreeSet::new();
    for def in &defs {
        let bad = |problem: &str| ManifestError::BadTool {
            source_name: source_name.to_owned(),
            tool: def.name.clone(),
            problem: problem.to_owned(),
        };
        let valid_name = !def.name.is_empty()
            && def.name.len() <= 64
            && def
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid_name {
            return Err(bad("the name must be 1-64 of A-Z a-z 0-9 _ -"));
        }
        if reserved.contains(&def.name) {
            return Err(bad(
                "the name is already taken (a built-in tool or another manifest)",
            ));
        }
        if !seen.insert(def.name.clone()) {
            return Err(bad("defined twice in this manifest"));
        }
        if def.command.is_empty() || def.command[0].is_empty() {
            return Err(bad("`command` must be a non-empty argv array"));
        }
        if def.parameters.get("type").and_then(Value::as_str) != Some("object") {
            return Err(bad(
                "`parameters` must be a JSON Schema with \"type\": \"object\"",
            ));
        }
        if def.description.trim().is_empty() {
            return Err(bad("`description` must say what the tool does"));
        }
    }
    Ok(defs)
}
