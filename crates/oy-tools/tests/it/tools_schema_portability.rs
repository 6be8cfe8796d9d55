//! Every built-in tool schema stays inside the portable subset of JSON
//! Schema that local servers' grammar and chat-template engines handle
//! (`docs/tools.md`, "Schemas"): llama.cpp's functionary templates fail
//! every request on a `oneOf`, and `$ref`, type lists and `const` are
//! handled unevenly by grammar converters. A new construct fails here
//! before it reaches a user's server.

use oy_tools::default_registry;
use serde_json::Value;

/// The keywords a schema may use, and what each holds.
const ALLOWED: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "default",
    "minimum",
    "maximum",
];

const TYPES: &[&str] = &["object", "array", "string", "integer", "number", "boolean"];

/// Problems with `schema` at `path`, appended to `found`.
fn check(schema: &Value, path: &str, found: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        found.push(format!("{path}: a schema must be an object"));
        return;
    };
    for key in map.keys() {
        if !ALLOWED.contains(&key.as_str()) {
            found.push(format!("{path}: `{key}` is not in the portable subset"));
        }
    }
    match map.get("type").and_then(Value::as_str) {
        Some(kind) if TYPES.contains(&kind) => {}
        _ => found.push(format!(
            "{path}: needs one `type` string, has {:?}",
            map.get("type")
        )),
    }
    if let Some(properties) = map.get("properties") {
        match properties.as_object() {
            Some(properties) => {
                for (name, property) in properties {
                    check(property, &format!("{path}.{name}"), found);
                }
            }
            None => found.push(format!("{path}: `properties` must be an object")),
        }
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            found.push(format!("{path}: an object with properties must be closed"));
        }
    }
    match map.get("additionalProperties") {
        None | Some(Value::Bool(_)) => {}
        Some(inner) => check(inner, &format!("{path}{{*}}"), found),
    }
    if let Some(items) = map.get("items") {
        check(items, &format!("{path}[]"), found);
    }
    if let Some(values) = map.get("enum") {
        let kind = map.get("type").and_then(Value::as_str);
        let fits = values.as_array().is_some_and(|values| {
            !values.is_empty()
                && values.iter().all(|value| match kind {
                    Some("string") => value.is_string(),
                    Some("integer") => value.is_i64() || value.is_u64(),
                    _ => false,
                })
        });
        if !fits {
            found.push(format!("{path}: `enum` must list values of its `type`"));
        }
    }
    if let Some(required) = map.get("required") {
        let declared = map.get("properties").and_then(Value::as_object);
        let ok = required.as_array().is_some_and(|names| {
            names.iter().all(|name| {
                name.as_str().is_some_and(|name| {
                    declared.is_some_and(|declared| declared.contains_key(name))
                })
            })
        });
        if !ok {
            found.push(format!("{path}: `required` names an undeclared property"));
        }
    }
}

#[test]
fn every_builtin_tool_schema_is_in_the_portable_subset() {
    let registry = default_registry();
    let mut found = Vec::new();
    for spec in registry.all_specs() {
        check(&spec.parameters, &spec.name, &mut found);
        if spec.parameters.get("type").and_then(Value::as_str) != Some("object") {
            found.push(format!("{}: the arguments must be an object", spec.name));
        }
    }
    assert!(found.is_empty(), "not portable:\n{}", found.join("\n"));
}

#[test]
fn the_checker_catches_what_breaks_local_servers() {
    // The negative control: each construct seen to break a template or a
    // grammar converter is reported.
    let bad = serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "status": {"oneOf": [{"const": "a", "type": "string"}]},
            "maybe": {"type": ["string", "null"]},
            "linked": {"$ref": "#/$defs/x"},
            "open": {"type": "object", "properties": {"x": {"type": "string"}}},
            "mixed": {"type": "string", "enum": ["a", 1]},
        },
        "required": ["missing"],
    });
    let mut found = Vec::new();
    check(&bad, "bad", &mut found);
    for expected in [
        "bad.status: `oneOf`",
        "bad.maybe: needs one `type` string",
        "bad.linked: `$ref`",
        "bad.open: an object with properties must be closed",
        "bad.mixed: `enum` must list values",
        "bad: `required` names an undeclared property",
    ] {
        assert!(
            found.iter().any(|problem| problem.starts_with(expected)),
            "{expected} not reported in {found:#?}"
        );
    }
}

#[test]
fn the_todo_status_is_an_enum_with_its_variants_explained() {
    let registry = default_registry();
    let todo = registry
        .all_specs()
        .into_iter()
        .find(|spec| spec.name == "todo")
        .unwrap();
    let status = &todo.parameters["properties"]["items"]["items"]["properties"]["status"];
    assert_eq!(
        status["enum"],
        serde_json::json!(["pending", "in_progress", "done"])
    );
    assert_eq!(status["type"], "string");
    let description = status["description"].as_str().unwrap();
    assert!(
        description.contains("`in_progress`: Being worked on."),
        "{description}"
    );
}
