//! `ToolSpec` and `Effect`: what a tool is called, what it takes, and what
//! kind of change it can make.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// The kind of side effect a tool can have; the approval policy decides per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Effect {
    /// Reads the workspace or in-memory state only.
    Read,
    /// Creates, changes, moves or removes workspace files.
    WorkspaceWrite,
    /// Starts processes.
    Process,
    /// Talks to the network.
    Network,
    /// Asks the person at the terminal (needs an interactive frontend).
    AskUser,
}

impl Effect {
    /// True when an attempt must be recorded in the side-effect ledger.
    pub fn is_side_effect(self) -> bool {
        matches!(self, Self::WorkspaceWrite | Self::Process)
    }
}

/// What the model is told about one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: &'static str,
    /// One or two exact sentences: every byte is re-sent on every turn.
    pub description: &'static str,
    /// JSON Schema of the arguments object (closed, defaults stated).
    pub parameters: Value,
    /// The strongest side effect the tool can have.
    #[serde(skip)]
    pub effect: Effect,
}

impl ToolSpec {
    /// Builds a spec whose parameters are the JSON Schema of `Args`.
    pub fn new<Args: JsonSchema>(
        name: &'static str,
        description: &'static str,
        effect: Effect,
    ) -> Self {
        Self {
            name,
            description,
            parameters: compact_schema(schemars::schema_for!(Args).to_value()),
            effect,
        }
    }
}

/// Drops the parts of a generated schema that cost bytes and tell the model
/// nothing (`$schema`, titles, `format` on integers), keeping descriptions,
/// types, defaults, enums and `additionalProperties: false`.
fn compact_schema(mut schema: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.remove("$schema");
                map.remove("title");
                if map.get("type").and_then(Value::as_str) == Some("integer") {
                    map.remove("format");
                    if map.get("minimum") == Some(&Value::from(0)) {
                        map.remove("minimum");
                    }
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut schema);
    schema
}
