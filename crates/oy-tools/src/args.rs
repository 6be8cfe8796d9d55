//! Turning the model's JSON into a tool's typed arguments, with errors that
//! name the field, the expected type and a working example.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ToolError;

/// Parses raw argument text (what a model sends) into JSON.
pub fn parse_json(tool: &str, raw: &str, example: &str) -> Result<Value, ToolError> {
    let raw = raw.trim();
    let raw = if raw.is_empty() { "{}" } else { raw };
    serde_json::from_str(raw).map_err(|e| ToolError::MalformedJson {
        tool: tool.to_owned(),
        problem: e.to_string(),
        example: example.to_owned(),
    })
}

/// Deserialises a JSON value into `T`, explaining any mismatch.
pub fn parse_args<T: DeserializeOwned>(
    tool: &str,
    value: &Value,
    example: &str,
) -> Result<T, ToolError> {
    let invalid = |problem: String| ToolError::InvalidArguments {
        tool: tool.to_owned(),
        problem,
        example: example.to_owned(),
    };
    if !value.is_object() {
        return Err(invalid(format!(
            "expected a JSON object, got {}",
            json_kind(value)
        )));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        let problem = explain(&e.inner().to_string());
        if field == "." || problem.contains('`') && problem.starts_with("missing") {
            invalid(problem)
        } else {
            invalid(format!("field `{field}`: {problem}"))
        }
    })
}

// Defaults for the tools' argument structs, named in `#[serde(default = ..)]`.

/// The workspace root, for a `path` the model left out.
pub(crate) fn dot() -> String {
    ".".to_owned()
}

pub(crate) fn yes() -> bool {
    true
}

/// A count given in the attribute itself: `default = "count::<200>"`.
pub(crate) fn count<const N: usize>() -> usize {
    N
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde's messages are close to what we want; make the common ones read
/// as instructions ("field `x`: expected a string, got a number").
fn explain(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("missing field ") {
        return format!("missing required field {rest}");
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        return format!("unknown field {rest}");
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        // "invalid type: integer `3`, expected a string"
        if let Some((got, expected)) = rest.split_once(", expected ") {
            return format!("wrong type: got {got}, expected {expected}");
        }
    }
    message.to_owned()
}
