//! Fuzz targets `args` and `tools-json`. `args`: raw argument text, as a
//! model sends it, for every file tool and `todo` (JSON objects built from
//! the tools' own field names with values of every type and extreme, plus
//! mutated valid calls) through `Registry::invoke_raw` in a fresh
//! workspace: no panic, a well-formed answer, nothing outside the root
//! touched. (The process, network and question tools are left out: their
//! argument parsing is the same `parse_args`, and running them is not what
//! is under test.) `tools-json`: `parse_manifest` on mutated manifests
//! never panics and never accepts a tool that breaks a rule.

use std::collections::BTreeSet;

use oy_tools::{ManifestError, Mode, parse_json, parse_manifest};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Number, Value};

use crate::fuzz::{fuzz, mutated_text};
use crate::fuzz_tools::{Bench, well_formed};

/// Tools whose arguments are fuzzed.
const TOOLS: &[&str] = &[
    "list", "read", "search", "sloc", "write", "replace", "patch", "move", "remove", "todo",
];

/// Field names the tools take, and a few they do not.
const FIELDS: &[&str] = &[
    "path",
    "pattern",
    "glob",
    "offset",
    "limit",
    "content",
    "old",
    "new",
    "patch",
    "from",
    "to",
    "recursive",
    "todos",
    "id",
    "status",
    "text",
    "all",
    "depth",
    "max_results",
    "context",
    "case_sensitive",
    "literal",
    "hidden",
    "append",
    "mode",
    "files",
    "paths",
    "count",
    "",
    "__proto__",
];

const STRINGS: &[&str] = &[
    "a.txt",
    ".",
    "..",
    "../outside/secret.txt",
    "/etc/passwd",
    "out",
    "outdir/",
    "dir/up/outside",
    "src/lib.rs",
    "*",
    "**/*",
    "(",
    "[",
    "\\",
    "a{1000000}",
    "(a+)+$",
    "one",
    "two\n",
    "",
    "pending",
    "completed",
    "in_progress",
    "\u{1b}[2J",
    "\0",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        select(vec![
            0i64,
            1,
            -1,
            2,
            200,
            i64::MAX,
            i64::MIN,
            i64::from(u32::MAX),
            1 << 53
        ])
        .prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        select(vec![0.5f64, -0.0, 1e308, 3.0])
            .prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        select(STRINGS).prop_map(Value::from),
        "[ -~]{0,16}".prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((select(FIELDS), inner), 0..4).prop_map(|pairs| {
                Value::Object(
                    pairs
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

/// A value of the type `schema` names (its `enum`, `items` and
/// `properties` followed), now and then one of any type.
fn from_schema(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    if let Some(choices) = schema["enum"].as_array().filter(|c| !c.is_empty()) {
        return prop_oneof![4 => select(choices.clone()), 1 => value()].boxed();
    }
    let typed = match schema["type"].as_str() {
        Some("string") => prop_oneof![
            3 => select(STRINGS).prop_map(Value::from),
            1 => any::<String>().prop_map(|s| Value::from(s.chars().take(24).collect::<String>())),
        ]
        .boxed(),
        Some("integer" | "number") => select(vec![
            Value::from(0),
            Value::from(1),
            Value::from(3),
            Value::from(u64::MAX),
            Value::from(i64::MIN),
            Value::from(u64::from(u32::MAX) + 1),
        ])
        .boxed(),
        Some("boolean") => any::<bool>().prop_map(Value::Bool).boxed(),
        Some("array") if depth > 0 => {
            prop::collection::vec(from_schema(&schema["items"], depth - 1), 0..4)
                .prop_map(Value::Array)
                .boxed()
        }
        Some("object") if depth > 0 => object(schema, depth - 1).prop_map(Value::Object).boxed(),
        _ => value().boxed(),
    };
    prop_oneof![6 => typed, 1 => value()].boxed()
}

/// An object of `schema`'s properties (a random subset, each typed), now
/// and then with a field it does not know.
fn object(schema: &Value, depth: u32) -> BoxedStrategy<Map<String, Value>> {
    let properties: Vec<(String, BoxedStrategy<Value>)> = schema["properties"]
        .as_object()
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| (name.clone(), from_schema(property, depth)))
                .collect()
        })
        .unwrap_or_default();
    let required = |name: &str| {
        schema["required"]
            .as_array()
            .is_some_and(|required| required.iter().any(|r| r == name))
    };
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
        .into_iter()
        .map(|(name, strategy)| {
            let weight = if required(&name) { 0.95 } else { 0.5 };
            prop::option::weighted(
                weight,
                strategy.prop_map(move |value| (name.clone(), value)),
            )
            .boxed()
        })
        .collect();
    let stranger = prop::option::weighted(0.1, (select(FIELDS).prop_map(str::to_owned), value()));
    (fields, stranger)
        .prop_map(|(fields, stranger)| fields.into_iter().chain([stranger]).flatten().collect())
        .boxed()
}

/// Each fuzzed tool with a generator of its arguments' text.
fn tool_arguments(bench: &Bench) -> Vec<(&'static str, BoxedStrategy<String>)> {
    TOOLS
        .iter()
        .map(|&tool| {
            let schema = bench.registry.get(tool).unwrap().spec().parameters.clone();
            let args = object(&schema, 3)
                .prop_map(|object| Value::Object(object).to_string())
                .boxed();
            (tool, args)
        })
        .collect()
}

/// Valid calls' argument texts, to mutate.
const SEEDS: &[&str] = &[
    r#"{"path":"a.txt"}"#,
    r#"{"path":"src","glob":"*.rs"}"#,
    r#"{"pattern":"t[wh]o","path":"."}"#,
    r#"{"path":"a.txt","offset":2,"limit":1}"#,
    r#"{"path":"new.txt","content":"hi\n"}"#,
    r#"{"path":"a.txt","old":"two","new":"2"}"#,
    r#"{"from":"a.txt","to":"b.txt"}"#,
    r#"{"path":"empty.txt"}"#,
    r#"{"todos":[{"content":"x","status":"pending"}]}"#,
    r#"{"patch":"*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n"}"#,
    "",
    " \n ",
];

const DICTIONARY: &[&str] = &[
    "\"",
    ":",
    ",",
    "{",
    "}",
    "[",
    "]",
    "null",
    "true",
    "-1",
    "1e999",
    "18446744073709551616",
    "\\u0000",
    "\\ud800",
    "\"path\":",
    "\"..\"",
    "\"/\"",
    "0.5",
];

fn raw_arguments(
    tools: Vec<(&'static str, BoxedStrategy<String>)>,
) -> impl Strategy<Value = (&'static str, String)> {
    let per_tool: Vec<BoxedStrategy<(&'static str, String)>> = tools
        .into_iter()
        .map(|(tool, args)| {
            let raw = prop_oneof![
                4 => args,
                2 => mutated_text(SEEDS, DICTIONARY, 6),
                1 => value().prop_map(|value| value.to_string()),
            ];
            raw.prop_map(move |raw| (tool, raw)).boxed()
        })
        .collect();
    proptest::strategy::Union::new(per_tool)
}

#[test]
fn fuzz_tool_arguments() {
    let bench = Bench::new();
    let tools = tool_arguments(&bench);
    fuzz("args", 150, raw_arguments(tools), |(tool, raw)| {
        // The raw parser alone: any text, an answer, no panic.
        let _ = parse_json(tool, &raw, "{}");
        let case = bench.case(Mode::AcceptEdits);
        let output = bench.registry.invoke_raw(&case.ctx, "call-1", tool, &raw);
        well_formed(&output).map_err(TestCaseError::fail)?;
        case.outside_untouched().map_err(TestCaseError::fail)?;
        Ok(())
    });
}

const MANIFEST_SEEDS: &[&str] = &[
    r#"{"tools":[{"name":"fmt","description":"format","command":["cargo","fmt"]}]}"#,
    r#"[{"name":"a-b_1","description":"x","parameters":{"type":"object","properties":{"q":{"type":"string"}}},"command":["/bin/echo","hi"],"timeoutSec":5}]"#,
    r#"{"tools":[]}"#,
    "[]",
];

const MANIFEST_DICTIONARY: &[&str] = &[
    "\"name\":",
    "\"description\":",
    "\"command\":",
    "\"parameters\":",
    "\"timeoutSec\":",
    "\"tools\":",
    "\"type\":\"object\"",
    "18446744073709551615",
    "-1",
    "\"read\"",
    "\"\"",
    "[\"\"]",
    "{}",
    "[]",
    ",",
    "\\u0000",
];

/// The rules `parse_manifest` promises for every tool it accepts.
fn breaks_a_rule(name: &str, command: &[String], parameters: &Value, description: &str) -> bool {
    name.is_empty()
        || name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        || command.first().is_none_or(String::is_empty)
        || parameters.get("type").and_then(Value::as_str) != Some("object")
        || description.trim().is_empty()
}

#[test]
fn fuzz_tools_json() {
    let reserved: BTreeSet<String> = ["read".to_owned()].into();
    fuzz(
        "tools-json",
        1000,
        mutated_text(MANIFEST_SEEDS, MANIFEST_DICTIONARY, 8),
        |text| {
            match parse_manifest("tools.json", &text, &reserved) {
                Ok(defs) => {
                    let mut names = BTreeSet::new();
                    for def in &defs {
                        prop_assert!(
                            !breaks_a_rule(
                                &def.name,
                                &def.command,
                                &def.parameters,
                                &def.description
                            ),
                            "accepted {:?}",
                            def
                        );
                        prop_assert!(!reserved.contains(&def.name));
                        prop_assert!(names.insert(def.name.clone()), "{} twice", def.name);
                        prop_assert!((1..=600).contains(&def.timeout_sec()));
                    }
                }
                Err(ManifestError::Invalid { .. } | ManifestError::BadTool { .. }) => {}
                Err(other) => prop_assert!(false, "untyped error {:?}", other),
            }
            Ok(())
        },
    );
}
