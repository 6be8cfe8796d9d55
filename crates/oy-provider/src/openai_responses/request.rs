//! The neutral [`Request`] as a Responses API `POST /responses` body
//! (async-openai's `CreateResponse`, generated from OpenAI's spec): `input`
//! items, function tools, `stream: true`, `store: false`, and the encrypted
//! reasoning that lets a stateless conversation keep its reasoning across
//! turns. Messages use the spec's least ambiguous form — a role and a
//! plain string — which matches exactly one branch of its `InputItem`.

use async_openai::types::responses::{
    CreateResponse, EasyInputContent, EasyInputMessage, FunctionCallOutput,
    FunctionCallOutputItemParam, FunctionTool, FunctionToolCall, IncludeEnum, InputItem,
    InputParam, Item, MessageType, Reasoning, ReasoningItem, Role, Tool,
};
use serde_json::Value;

use crate::model::{Message, ReasoningEffort, Request, ToolSchema};

/// The JSON body for `request`.
pub(super) fn body(request: &Request) -> Value {
    // Nothing is kept server-side, so reasoning must come back encrypted
    // to be echoed in the next request. Models without reasoning answer
    // `include` with HTTP 400, so it is asked for only when the caller set
    // an effort or the conversation already carries reasoning.
    let has_reasoning = request.messages.iter().any(|message| {
        matches!(
            message,
            Message::Assistant {
                reasoning: Some(_),
                ..
            }
        )
    });
    let body = CreateResponse {
        model: Some(request.model.clone()),
        instructions: request.instructions.clone(),
        input: InputParam::Items(input(&request.messages)),
        tools: (!request.tools.is_empty()).then(|| request.tools.iter().map(tool).collect()),
        // Set explicitly: nothing else adds it.
        stream: Some(true),
        store: Some(false),
        include: (request.reasoning.is_some() || has_reasoning)
            .then(|| vec![IncludeEnum::ReasoningEncryptedContent]),
        max_output_tokens: request.max_output_tokens,
        temperature: request.temperature,
        reasoning: request.reasoning.map(|effort| Reasoning {
            effort: Some(match effort {
                ReasoningEffort::Low => async_openai::types::responses::ReasoningEffort::Low,
                ReasoningEffort::Medium => async_openai::types::responses::ReasoningEffort::Medium,
                ReasoningEffort::High => async_openai::types::responses::ReasoningEffort::High,
            }),
            ..Reasoning::default()
        }),
        ..CreateResponse::default()
    };
    let mut body = serde_json::to_value(body).unwrap_or(Value::Null);
    drop_reasoning_ids(&mut body);
    body
}

fn tool(tool: &ToolSchema) -> Tool {
    Tool::Function(FunctionTool {
        name: tool.name.clone(),
        description: Some(tool.description.clone()),
        parameters: Some(tool.parameters.clone()),
        strict: Some(false),
        ..FunctionTool::default()
    })
}

fn message(role: Role, text: &str) -> InputItem {
    InputItem::EasyMessage(EasyInputMessage {
        r#type: MessageType::Message,
        role,
        content: EasyInputContent::Text(text.to_owned()),
        phase: None,
    })
}

/// Conversation items in order. An assistant turn becomes its reasoning
/// item(s), then its text message, then its function calls — the order
/// the model produced them in.
fn input(messages: &[Message]) -> Vec<InputItem> {
    let mut items = Vec::new();
    for message_ in messages {
        match message_ {
            Message::User { text } => items.push(message(Role::User, text)),
            Message::Assistant {
                text,
                tool_calls,
                reasoning,
            } => {
                if let Some(reasoning) = reasoning {
                    items.extend(
                        reasoning_items(reasoning)
                            .into_iter()
                            .map(|item| InputItem::Item(Item::Reasoning(item))),
                    );
                }
                if let Some(text) = text.as_deref().filter(|text| !text.is_empty()) {
                    items.push(message(Role::Assistant, text));
                }
                for call in tool_calls {
                    items.push(InputItem::Item(Item::FunctionCall(FunctionToolCall {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                        ..FunctionToolCall::default()
                    })));
                }
            }
            Message::ToolResult {
                call_id, output, ..
            } => items.push(InputItem::Item(Item::FunctionCallOutput(
                FunctionCallOutputItemParam {
                    call_id: Some(call_id.clone()),
                    output: FunctionCallOutput::Text(output.clone()),
                    id: None,
                    status: None,
                    name: None,
                    namespace: None,
                    caller: None,
                },
            ))),
        }
    }
    items
}

/// The one place the body departs from the spec's types: a reasoning
/// item's `id`, which the spec requires and async-openai writes as `null`,
/// is left out. With `store: false` the server keeps no items, so an id is
/// looked up and fails ("Items are not persisted when `store` is set to
/// false"); `encrypted_content` carries the state instead
/// (`docs/architecture.md`, "async-openai").
fn drop_reasoning_ids(body: &mut Value) {
    let Some(Value::Array(items)) = body.get_mut("input") else {
        return;
    };
    for item in items {
        if item.get("type").and_then(Value::as_str) == Some("reasoning")
            && let Some(item) = item.as_object_mut()
        {
            item.remove("id");
        }
    }
}

/// The stored reasoning (one item as [`crate::Event::Reasoning`] carried
/// it, or an array of them) ready to echo. The output-only `status` is
/// dropped (and the `id`, see [`drop_reasoning_ids`]); `encrypted_content`
/// carries the state, and an item without it cannot round-trip, so it is
/// left out.
fn reasoning_items(reasoning: &Value) -> Vec<ReasoningItem> {
    let items: Vec<&Value> = match reasoning {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    items
        .into_iter()
        .filter_map(|item| {
            if item.get("type").and_then(Value::as_str) != Some("reasoning") {
                return None;
            }
            let mut item = item.clone();
            // A server may leave out the (required) summary list.
            if let Some(fields) = item.as_object_mut() {
                fields
                    .entry("summary")
                    .or_insert_with(|| Value::Array(Vec::new()));
            }
            let mut item: ReasoningItem = serde_json::from_value(item).ok()?;
            item.encrypted_content.as_ref()?;
            item.id = None;
            item.status = None;
            Some(item)
        })
        .collect()
}
