//! Chat Completions wire types: the request body oy sends (built from the
//! neutral [`Request`]) and the streamed chunks it reads back, lenient about
//! what compatible servers leave out. They never leave this crate.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{Message, ReasoningEffort, Request};

/// The body of `POST /chat/completions`.
#[derive(Debug, Serialize)]
pub(crate) struct ChatRequest<'a> {
    model: &'a str,
    messages: Vec<ChatMessage<'a>>,
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ChatTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
}

#[derive(Debug, Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Debug, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum ChatMessage<'a> {
    System {
        content: &'a str,
    },
    Developer {
        content: &'a str,
    },
    User {
        content: &'a str,
    },
    Assistant {
        // Optional when there are tool calls; omitted rather than `null`.
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ChatToolCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
}

#[derive(Debug, Serialize)]
struct ChatToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: ChatFunctionCall<'a>,
}

#[derive(Debug, Serialize)]
struct ChatFunctionCall<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Debug, Serialize)]
struct ChatTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: ChatFunction<'a>,
}

#[derive(Debug, Serialize)]
struct ChatFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

impl<'a> ChatRequest<'a> {
    /// Maps `request`. `openai` selects OpenAI's own dialect: instructions
    /// as a `developer` message and `max_completion_tokens` (its reasoning
    /// models reject `max_tokens`). Every other server gets `system` and
    /// `max_tokens`, which vLLM, llama.cpp, Ollama, LM Studio and LiteLLM
    /// all understand while some of them ignore or reject the newer names.
    pub(crate) fn new(request: &'a Request, openai: bool) -> Self {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        if let Some(instructions) = request.instructions.as_deref() {
            messages.push(if openai {
                ChatMessage::Developer {
                    content: instructions,
                }
            } else {
                ChatMessage::System {
                    content: instructions,
                }
            });
        }
        for message in &request.messages {
            match message {
                Message::User { text } => messages.push(ChatMessage::User { content: text }),
                Message::Assistant {
                    text, tool_calls, ..
                } => messages.push(ChatMessage::Assistant {
                    content: text.as_deref(),
                    tool_calls: tool_calls
                        .iter()
                        .map(|call| ChatToolCall {
                            id: &call.id,
                            kind: "function",
                            function: ChatFunctionCall {
                                name: &call.name,
                                arguments: &call.arguments,
                            },
                        })
                        .collect(),
                }),
                Message::ToolResult {
                    call_id, output, ..
                } => messages.push(ChatMessage::Tool {
                    tool_call_id: call_id,
                    content: output,
                }),
            }
        }
        let tools = request
            .tools
            .iter()
            .map(|tool| ChatTool {
                kind: "function",
                function: ChatFunction {
                    name: &tool.name,
                    description: &tool.description,
                    parameters: &tool.parameters,
                },
            })
            .collect();
        let (max_completion_tokens, max_tokens) = if openai {
            (request.max_output_tokens, None)
        } else {
            (None, request.max_output_tokens)
        };
        Self {
            model: &request.model,
            messages,
            // Set explicitly: nothing else adds it.
            stream: true,
            stream_options: StreamOptions {
                include_usage: true,
            },
            tools,
            max_completion_tokens,
            max_tokens,
            temperature: request.temperature,
            reasoning_effort: request.reasoning.map(|effort| match effort {
                ReasoningEffort::Low => "low",
                ReasoningEffort::Medium => "medium",
                ReasoningEffort::High => "high",
            }),
        }
    }
}

/// One streamed `chat.completion.chunk`; every field may be missing.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChatChunk {
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) choices: Vec<ChatChoice>,
    #[serde(default)]
    pub(crate) usage: Option<ChatUsage>,
    /// Some gateways report a failure mid-stream as a chunk with `error`.
    #[serde(default)]
    pub(crate) error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChatChoice {
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) index: u32,
    #[serde(default)]
    pub(crate) delta: Option<ChatDelta>,
    #[serde(default)]
    pub(crate) finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChatDelta {
    #[serde(default)]
    pub(crate) content: Option<String>,
    #[serde(default)]
    pub(crate) tool_calls: Option<Vec<ChatToolCallDelta>>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChatToolCallDelta {
    #[serde(default)]
    pub(crate) index: Option<usize>,
    #[serde(default)]
    pub(crate) id: Option<String>,
    #[serde(default)]
    pub(crate) function: Option<ChatFunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChatFunctionDelta {
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) arguments: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChatUsage {
    #[serde(default)]
    pub(crate) prompt_tokens: Option<u64>,
    #[serde(default)]
    pub(crate) completion_tokens: Option<u64>,
    #[serde(default)]
    pub(crate) prompt_tokens_details: Option<PromptTokensDetails>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct PromptTokensDetails {
    #[serde(default)]
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

    use super::ChatRequest;
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
        let openai = serde_json::to_value(ChatRequest::new(&request, true)).unwrap();
        assert_eq!(
            openai["messages"][0],
            json!({"role": "developer", "content": "Be brief."})
        );
        assert_eq!(openai["max_completion_tokens"], 100);
        assert!(openai.get("max_tokens").is_none());
        let other = serde_json::to_value(ChatRequest::new(&request, false)).unwrap();
        assert_eq!(other["messages"][0]["role"], "system");
        assert_eq!(other["max_tokens"], 100);
        assert!(other.get("max_completion_tokens").is_none());
    }
}
