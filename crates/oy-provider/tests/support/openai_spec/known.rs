//! Violations oy's request builders commit today, each excused until the
//! source is fixed (then delete the entry and its test). An entry names the
//! exact place (`*` matches one path segment), the exact error, the exact
//! shape oy sends, and the shape the spec wants instead; the oracle excuses
//! a value only if that fixed shape passes the named schema, so an entry
//! cannot hide a second fault in the same value.

use serde_json::{Map, Value, json};

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
    // issue 13: fixed by the request-builder change. `{"type":"message",
    // "role":"user","content":[{"type":"input_text",...}]}` is both an
    // EasyInputMessage and an InputMessage (through Item), so the `oneOf`
    // of InputItem matches twice; `{"role":"user","content":"text"}`
    // matches once.
    Known {
        name: USER_MESSAGE,
        api: Api::Responses,
        instance_path: "/input/*",
        kind: Kind::TwoBranches,
        fixed: |item| message_text(item, "user", "input_text", &[]).map(easy_message("user")),
        def: "InputItem",
    },
    // An assistant message with `output_text` content is no EasyInputMessage
    // (whose content parts are input parts) and no OutputMessage (which
    // requires `id`, `status`, and `logprobs` on each part).
    // `{"role":"assistant","content":"text"}` is an EasyInputMessage.
    Known {
        name: ASSISTANT_MESSAGE,
        api: Api::Responses,
        instance_path: "/input/*",
        kind: Kind::NoBranch,
        fixed: |item| {
            message_text(
                item,
                "assistant",
                "output_text",
                &[("annotations", json!([]))],
            )
            .map(easy_message("assistant"))
        },
        def: "InputItem",
    },
    // An echoed reasoning item without `id`: ReasoningItem requires one,
    // and oy drops it on purpose (with `store: false` the server keeps no
    // items to look it up by). The spec and that choice disagree.
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

pub const USER_MESSAGE: &str = "issue 13: Responses user message matches two InputItem branches";
pub const ASSISTANT_MESSAGE: &str =
    "Responses assistant message of output_text parts matches no InputItem branch";
pub const REASONING_WITHOUT_ID: &str =
    "Responses reasoning item without id matches no InputItem branch";

/// The text of `{"type":"message","role":ROLE,"content":[{"type":PART,
/// "text":...,EXTRA...}]}` with exactly those keys, one part.
fn message_text(item: &Value, role: &str, part: &str, extra: &[(&str, Value)]) -> Option<String> {
    let item = item.as_object()?;
    let [only] = item.get("content")?.as_array()?.as_slice() else {
        return None;
    };
    let only = only.as_object()?;
    let mut want: Map<String, Value> = extra
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect();
    want.insert("type".to_owned(), json!(part));
    want.insert("text".to_owned(), only.get("text")?.as_str()?.into());
    let exact = item.len() == 3 && item["type"] == "message" && item["role"] == role;
    (exact && *only == want).then(|| want["text"].as_str().unwrap_or_default().to_owned())
}

fn easy_message(role: &'static str) -> impl Fn(String) -> Value {
    move |text| json!({"role": role, "content": text})
}
