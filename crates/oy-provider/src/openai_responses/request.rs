//! The neutral [`Request`] as a Responses API `POST /responses` body:
//! `input` items, function tools, `stream: true`, `store: false`, and the
//! encrypted reasoning that lets a stateless conversation keep its
//! reasoning across turns.

use serde_json::{Map, Value, json};

use crate::model::{Message, ReasoningEffort, Request, ToolSchema};

/// The JSON body for `request`.
pub(super) fn body(request: &Request) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    if let Some(instructions) = &request.instructions {
        body.insert("instructions".into(), json!(instructions));
    }
    body.insert("input".into(), Value::Array(input(&request.messages)));
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(request.tools.iter().map(tool).collect()),
        );
    }
    // The typed client's byot mode does not set this; the body is ours.
    body.insert("stream".into(), json!(true));
    // Nothing is kept server-side, so reasoning must come back encrypted
    // to be echoed in the next request. Models without reasoning answer
    // `include` with HTTP 400, so it is asked for only when the caller set
    // an effort or the conversation already carries reasoning.
    body.insert("store".into(), json!(false));
    let has_reasoning = request.messages.iter().any(|message| {
        matches!(
            message,
            Message::Assistant {
                reasoning: Some(_),
                ..
            }
        )
    });
    if request.reasoning.is_some() || has_reasoning {
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    if let Some(max) = request.max_output_tokens {
        body.insert("max_output_tokens".into(), json!(max));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    if let Some(effort) = request.reasoning {
        let effort = match effort {
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        };
        body.insert("reasoning".into(), json!({ "effort": effort }));
    }
    Value::Object(body)
}

fn tool(tool: &ToolSchema) -> Value {
    json!({
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": false,
    })
}

/// Conversation items in order. An assistant turn becomes its reasoning
/// item(s), then its text message, then its function calls — the order
/// the model produced them in.
fn input(messages: &[Message]) -> Vec<Value> {
    let mut items = Vec::new();
    for message in messages {
        match message {
            Message::User { text } => items.push(json!({
                "type": "message",
                "role": "user",
                "content": [{ "type": "input_text", "text": text }],
            })),
            Message::Assistant {
                text,
                tool_calls,
                reasoning,
            } => {
                if let Some(reasoning) = reasoning {
                    items.extend(reasoning_items(reasoning));
                }
                if let Some(text) = text.as_deref().filter(|text| !text.is_empty()) {
                    items.push(json!({
                        "type": "message",
                        "role": "assistant",
                        "content": [{ "type": "output_text", "text": text, "annotations": [] }],
                    }));
                }
                for call in tool_calls {
                    items.push(json!({
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": call.arguments,
                    }));
                }
            }
            Message::ToolResult {
                call_id, output, ..
            } => items.push(json!({
                "type": "function_call_output",
                "call_id": call_id,
                "output": output,
            })),
        }
    }
    items
}

/// The stored reasoning (one item as [`crate::Event::Reasoning`] carried
/// it, or an array of them) ready to echo. With `store: false` the server
/// keeps no items, so an `id` would be looked up and fail: it and the
/// output-only `status` are dropped; `encrypted_content` carries the state,
/// and an item without it cannot round-trip, so it is left out.
fn reasoning_items(reasoning: &Value) -> Vec<Value> {
    let items: Vec<&Value> = match reasoning {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    items
        .into_iter()
        .filter_map(|item| {
            let mut item = item.as_object()?.clone();
            if item.get("type").and_then(Value::as_str) != Some("reasoning")
                || !item.get("encrypted_content").is_some_and(Value::is_string)
            {
                return None;
            }
            item.remove("id");
            item.remove("status");
            Some(Value::Object(item))
        })
        .collect()
}
