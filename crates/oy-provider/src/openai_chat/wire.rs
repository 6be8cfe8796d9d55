//! Chat Completions wire types: the request body oy sends (async-openai's
//! `CreateChatCompletionRequest`, generated from OpenAI's spec, built from
//! the neutral [`Request`]) and the streamed chunks it reads back, lenient
//! about what compatible servers leave out. They never leave this crate.

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestDeveloperMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestToolMessage,
    ChatCompletionRequestUserMessage, ChatCompletionStreamOptions, ChatCompletionTool,
    ChatCompletionTools, CreateChatCompletionRequest, FunctionCall, FunctionObject,
};
use serde::Deserialize;
use serde_json::Value;

use crate::model::{Message, ReasoningEffort, Request};

/// The body of `POST /chat/completions` for `request`. `openai` selects
/// OpenAI's own dialect: instructions as a `developer` message and
/// `max_completion_tokens` (its reasoning models reject `max_tokens`).
/// Every other server gets `system` and `max_tokens`, which vLLM,
/// llama.cpp, Ollama, LM Studio and LiteLLM all understand while some of
/// them ignore or reject the newer names.
pub(crate) fn request_body(request: &Request, openai: bool) -> CreateChatCompletionRequest {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(instructions) = request.instructions.clone() {
        messages.push(if openai {
            ChatCompletionRequestMessage::Developer(ChatCompletionRequestDeveloperMessage {
                content: instructions.into(),
                name: None,
            })
        } else {
            ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage {
                content: instructions.into(),
                name: None,
            })
        });
    }
    messages.extend(request.messages.iter().map(message));
    let tools = request
        .tools
        .iter()
        .map(|tool| {
            ChatCompletionTools::Function(ChatCompletionTool {
                function: FunctionObject {
                    name: tool.name.clone(),
                    description: Some(tool.description.clone()),
                    parameters: Some(tool.parameters.clone()),
                    strict: None,
                },
            })
        })
        .collect::<Vec<_>>();
    let mut body = CreateChatCompletionRequest {
        model: request.model.clone(),
        messages,
        // Set explicitly: nothing else adds it.
        stream: Some(true),
        stream_options: Some(ChatCompletionStreamOptions {
            include_usage: Some(true),
            include_obfuscation: None,
        }),
        tools: (!tools.is_empty()).then_some(tools),
        temperature: request.temperature,
        reasoning_effort: request.reasoning.map(|effort| match effort {
            ReasoningEffort::Low => async_openai::types::chat::ReasoningEffort::Low,
            ReasoningEffort::Medium => async_openai::types::chat::ReasoningEffort::Medium,
            ReasoningEffort::High => async_openai::types::chat::ReasoningEffort::High,
        }),
        ..CreateChatCompletionRequest::default()
    };
    if openai {
        body.max_completion_tokens = request.max_output_tokens;
    } else {
        set_max_tokens(&mut body, request.max_output_tokens);
    }
    body
}

/// `max_tokens`: deprecated by OpenAI, and still the one name every other
/// compatible server reads.
#[expect(
    deprecated,
    reason = "non-OpenAI servers read max_tokens, not its successor"
)]
fn set_max_tokens(body: &mut CreateChatCompletionRequest, max: Option<u32>) {
    body.max_tokens = max;
}

fn message(message: &Message) -> ChatCompletionRequestMessage {
    match message {
        Message::User { text } => {
            ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage {
                content: text.clone().into(),
                name: None,
            })
        }
        Message::Assistant {
            text, tool_calls, ..
        } => {
            let calls: Vec<ChatCompletionMessageToolCalls> = tool_calls
                .iter()
                .map(|call| {
                    ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                        id: call.id.clone(),
                        function: FunctionCall {
                            name: call.name.clone(),
                            arguments: call.arguments.clone(),
                        },
                    })
                })
                .collect();
            ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
                // Optional when there are tool calls; omitted rather than `null`.
                content: text
                    .clone()
                    .map(ChatCompletionRequestAssistantMessageContent::Text),
                tool_calls: (!calls.is_empty()).then_some(calls),
                ..ChatCompletionRequestAssistantMessage::default()
            })
        }
        Message::ToolResult {
            call_id, output, ..
        } => ChatCompletionRequestMessage::Tool(ChatCompletionRequestToolMessage {
            content: output.clone().into(),
            tool_call_id: call_id.clone(),
        }),
    }
}

/// One streamed `chat.completion.chunk`. Every field of it and of the
/// types below may be missing, so each type reads a missing field as its
/// default (`#[serde(default)]` on the type, not on each field).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ChatChunk {
    #[serde(deserialize_with = "null_as_default")]
    pub(crate) choices: Vec<ChatChoice>,
    pub(crate) usage: Option<ChatUsage>,
    /// Some gateways report a failure mid-stream as a chunk with `error`.
    pub(crate) error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ChatChoice {
    #[serde(deserialize_with = "null_as_default")]
    pub(crate) index: u32,
    pub(crate) delta: Option<ChatDelta>,
    pub(crate) finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ChatDelta {
    pub(crate) content: Option<String>,
    pub(crate) tool_calls: Option<Vec<ChatToolCallDelta>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ChatToolCallDelta {
    pub(crate) index: Option<usize>,
    pub(crate) id: Option<String>,
    pub(crate) function: Option<ChatFunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ChatFunctionDelta {
    pub(crate) name: Option<String>,
    pub(crate) arguments: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ChatUsage {
    pub(crate) prompt_tokens: Option<u64>,
    pub(crate) completion_tokens: Option<u64>,
    pub(crate) prompt_tokens_details: Option<PromptTokensDetails>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct PromptTokensDetails {
    pub(crate) cached_tokens: Option<u64>,
}

/// `null` where a list or number belongs reads as its default.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::request_body;
    use crate::model::{Message, Request};

    #[test]
    fn uses_openai_dialect_only_for_openai() {
        let request = Request {
            model: "o4-mini".to_owned(),
            instructions: Some("Be brief.".to_owned()),
            messages: vec![Message::User {
                text: "hi".to_owned(),
            }],
            max_output_tokens: Some(100),
            ..Request::default()
        };
        let openai = serde_json::to_value(request_body(&request, true)).unwrap();
        assert_eq!(
            openai["messages"][0],
            json!({"role": "developer", "content": "Be brief."})
        );
        assert_eq!(openai["max_completion_tokens"], 100);
        assert!(openai.get("max_tokens").is_none());
        let other = serde_json::to_value(request_body(&request, false)).unwrap();
        assert_eq!(other["messages"][0]["role"], "system");
        assert_eq!(other["max_tokens"], 100);
        assert!(other.get("max_completion_tokens").is_none());
    }
}
