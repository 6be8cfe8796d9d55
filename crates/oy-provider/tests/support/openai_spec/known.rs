//! Departures from the spec oy's request builders make on purpose, each
//! excused exactly (a new one needs a reason in docs/architecture.md).
//! An entry names the exact place (`*` matches one path segment), the exact error, the exact
//! shape oy sends, and the shape the spec wants instead; the oracle excuses
//! a value only if that fixed shape passes the named schema, so an entry
//! cannot hide a second fault in the same value.

use serde_json::{Value, json};

use super::Api;

/// Which `oneOf` failure an entry excuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// The value matches more than one branch.
    TwoBranches,
    /// The value matches no branch.
    NoBranch,
}

pub(super) struct Known {
    pub(super) name: &'static str,
    pub(super) api: Api,
    pub(super) instance_path: &'static str,
    pub(super) kind: Kind,
    /// What the spec wants, when the value is exactly what oy sends today.
    pub(super) fixed: fn(&Value) -> Option<Value>,
    /// The `$defs` schema the fixed value must pass.
    pub(super) def: &'static str,
}

pub(super) const KNOWN: &[Known] = &[
    // An echoed reasoning item without `id`: ReasoningItem requires one,
    // and oy drops it on purpose (with `store: false` the server keeps no
    // items to look it up by and fails the request). A deliberate,
    // documented departure (docs/architecture.md, "async-openai").
    Known {
        name: REASONING_WITHOUT_ID,
        api: Api::Responses,
        instance_path: "/input/*",
        kind: Kind::NoBranch,
        fixed: |item| {
            let item = item.as_object()?;
            let allowed = ["type", "summary", "encrypted_content"];
            let exact = item["type"] == "reasoning"
                && item["encrypted_content"].is_string()
                && item.keys().all(|key| allowed.contains(&key.as_str()));
            let mut fixed = item.clone();
            fixed.insert("id".to_owned(), json!("rs_0"));
            exact.then_some(Value::Object(fixed))
        },
        def: "InputItem",
    },
];

pub const REASONING_WITHOUT_ID: &str =
    "Responses reasoning item without id matches no InputItem branch";
