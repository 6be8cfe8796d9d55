//! `ToolSpec` and `Effect`: what a tool is called, what it takes, and what
//! kind of change it can make.

use std::borrow::Cow;
use std::sync::OnceLock;

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
    /// The name the model calls it by. Owned for tools defined at run
    /// time (`tools.json`), borrowed for the built-in ones.
    pub name: Cow<'static, str>,
    /// One or two exact sentences: every byte is re-sent on every turn.
    pub description: Cow<'static, str>,
    /// JSON Schema of the arguments object (closed, defaults stated).
    pub parameters: Value,
    /// The strongest side effect the tool can have.
    #[serde(skip)]
    pub effect: Effect,
}

impl ToolSpec {
    /// Builds a spec whose parameters are the JSON Schema of `Args`.
    pub fn new<Args: JsonSchema>(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        effect: Effect,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters: schema_of::<Args>(),
            effect,
        }
    }
}

/// A built-in tool's spec whose schema is generated on first use: its
/// name, description and effect are known at once, so looking a tool up by
/// name or policy costs nothing, and `oy tool read` generates one schema
/// instead of every tool's (~0.2 ms of a ~2 ms run, measured in
/// docs/benchmarks.md's read row).
#[derive(Debug)]
pub struct LazySpec {
    name: &'static str,
    description: &'static str,
    effect: Effect,
    schema: fn() -> Value,
    spec: OnceLock<ToolSpec>,
}

impl LazySpec {
    /// The spec [`ToolSpec::new`] would build for `Args`, built when first
    /// asked for.
    pub fn new<Args: JsonSchema>(
        name: &'static str,
        description: &'static str,
        effect: Effect,
    ) -> Self {
        Self {
            name,
            description,
            effect,
            schema: schema_of::<Args>,
            spec: OnceLock::new(),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The tool's effect.
    pub fn effect(&self) -> Effect {
        self.effect
    }

    /// The whole spec (the schema generated the first time).
    pub fn get(&self) -> &ToolSpec {
        self.spec.get_or_init(|| ToolSpec {
            name: Cow::Borrowed(self.name),
            description: Cow::Borrowed(self.description),
            parameters: (self.schema)(),
            effect: self.effect,
        })
    }
}

/// The compacted JSON Schema of `Args` (see [`compact_schema`]).
fn schema_of<Args: JsonSchema>() -> Value {
    compact_schema(
        schemars::generate::SchemaSettings::draft2020_12()
            .with(|settings| settings.inline_subschemas = true)
            .into_generator()
            .into_root_schema_for::<Args>()
            .to_value(),
    )
}

impl ToolSpec {
    /// The one required string argument, when the tool has exactly one
    /// (`patch` → `patch`): lets a frontend accept raw text for it.
    pub fn sole_string_field(&self) -> Option<&str> {
        let required = self.parameters.get("required")?.as_array()?;
        let [name] = required.as_slice() else {
            return None;
        };
        let name = name.as_str()?;
        let kind = self.parameters.get("properties")?.get(name)?.get("type")?;
        (kind == "string").then_some(name)
    }
}

/// Drops the parts of a generated schema that cost bytes and tell the model
/// nothing (`$schema`, titles, the struct's own doc, `format`/`minimum: 0`
/// on integers, `null` in optional fields' types and `default: null`),
/// keeping descriptions, types, defaults, enums and
/// `additionalProperties: false`; and says everything in the portable
/// subset local servers' grammar and template engines handle
/// (`docs/tools.md`, "Schemas"): a `oneOf` of constants becomes an `enum`.
/// Public for tools whose schemas come from elsewhere (an MCP server's).
pub fn compact_schema(mut schema: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                constants_to_enum(map);
                map.remove("$schema");
                map.remove("title");
                if map.get("default") == Some(&Value::Null) {
                    map.remove("default");
                }
                if let Some(Value::Array(types)) = map.get("type") {
                    let non_null: Vec<Value> = types
                        .iter()
                        .filter(|kind| *kind != "null")
                        .cloned()
                        .collect();
                    if let [only] = non_null.as_slice() {
                        map.insert("type".to_owned(), only.clone());
                    }
                }
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
    if let Value::Object(map) = &mut schema {
        map.remove("description");
    }
    walk(&mut schema);
    schema
}

/// What schemars makes of a Rust enum whose variants have doc comments — a
/// `oneOf` of `{"const": …, "description": …}` branches — as one `enum`
/// with the variants' docs folded into the description. Some chat templates
/// (llama.cpp's functionary ones) fail every request on a `oneOf`; `enum`
/// says the same thing everywhere.
fn constants_to_enum(map: &mut serde_json::Map<String, Value>) {
    let Some(Value::Array(branches)) = map.get("oneOf") else {
        return;
    };
    let mut values = Vec::new();
    let mut kinds = Vec::new();
    let mut notes = Vec::new();
    for branch in branches {
        let Some(branch) = branch.as_object() else {
            return;
        };
        let Some(value) = branch.get("const") else {
            return;
        };
        if branch
            .keys()
            .any(|key| !matches!(key.as_str(), "const" | "description" | "type"))
        {
            return;
        }
        if let Some(kind) = branch.get("type")
            && !kinds.contains(kind)
        {
            kinds.push(kind.clone());
        }
        if let Some(note) = branch.get("description").and_then(Value::as_str) {
            let shown = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            notes.push(format!("`{shown}`: {note}"));
        }
        values.push(value.clone());
    }
    map.remove("oneOf");
    if let [kind] = kinds.as_slice() {
        map.insert("type".to_owned(), kind.clone());
    }
    map.insert("enum".to_owned(), Value::Array(values));
    if !notes.is_empty() {
        let mut description = map
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_default();
        for note in notes {
            if !description.is_empty() {
                description.push(' ');
            }
            description.push_str(&note);
        }
        map.insert("description".to_owned(), Value::String(description));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments of a made-up tool.
    #[derive(JsonSchema)]
    #[expect(dead_code, reason = "only its schema is used")]
    struct Args {
        /// Where.
        path: String,
        #[serde(default)]
        limit: Option<u32>,
    }

    #[test]
    fn a_lazy_spec_is_the_spec_new_builds_and_knows_its_name_before() {
        let lazy = LazySpec::new::<Args>("probe", "Probe things.", Effect::Read);
        assert_eq!(lazy.name(), "probe");
        assert_eq!(lazy.effect(), Effect::Read);
        assert!(lazy.spec.get().is_none(), "nothing generated yet");
        let eager = ToolSpec::new::<Args>("probe", "Probe things.", Effect::Read);
        assert_eq!(*lazy.get(), eager);
        assert!(std::ptr::eq(lazy.get(), lazy.get()), "generated once");
    }
}
