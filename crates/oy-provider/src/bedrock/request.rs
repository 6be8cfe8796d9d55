//! The neutral [`Request`] as ConverseStream input: messages with text,
//! tool-use and tool-result blocks (consecutive same-role items merged, as
//! Converse wants strictly alternating roles), system blocks, the tool
//! configuration with JSON Schema as a smithy `Document`, and the inference
//! configuration.

use aws_sdk_bedrockruntime::error::BuildError;
use aws_sdk_bedrockruntime::types::{
    ContentBlock, ConversationRole, InferenceConfiguration, Message as WireMessage,
    SystemContentBlock, Tool, ToolConfiguration, ToolInputSchema, ToolResultBlock,
    ToolResultContentBlock, ToolResultStatus, ToolSpecification, ToolUseBlock,
};
use aws_smithy_types::{Document, Number};
use serde_json::Value;

use crate::error::{ErrorKind, ProviderError};
use crate::model::{Message, Request};

/// The pieces of one ConverseStream call.
#[derive(Debug)]
pub(crate) struct ConverseInput {
    pub(crate) messages: Vec<WireMessage>,
    pub(crate) system: Option<Vec<SystemContentBlock>>,
    pub(crate) tool_config: Option<ToolConfiguration>,
    pub(crate) inference: Option<InferenceConfiguration>,
}

impl ConverseInput {
    /// Translates `request`.
    pub(crate) fn new(request: &Request) -> Result<Self, ProviderError> {
        build(request).map_err(|error| {
            ProviderError::new(
                ErrorKind::Config,
                format!("cannot build the Bedrock request: {error}"),
            )
        })
    }
}

fn build(request: &Request) -> Result<ConverseInput, BuildError> {
    let mut turns: Vec<(ConversationRole, Vec<ContentBlock>)> = Vec::new();
    for message in &request.messages {
        let (role, blocks) = blocks(message)?;
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let messages = turns
        .into_iter()
        .map(|(role, content)| {
            WireMessage::builder()
                .role(role)
                .set_content(Some(content))
                .build()
        })
        .collect::<Result<Vec<_>, _>>()?;

    let system = request
        .instructions
        .as_ref()
        .filter(|text| !text.is_empty())
        .map(|text| vec![SystemContentBlock::Text(text.clone())]);

    let tool_config = if request.tools.is_empty() {
        None
    } else {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                ToolSpecification::builder()
                    .name(&tool.name)
                    .description(&tool.description)
                    .input_schema(ToolInputSchema::Json(document(&tool.parameters)))
                    .build()
                    .map(Tool::ToolSpec)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Some(
            ToolConfiguration::builder()
                .set_tools(Some(tools))
                .build()?,
        )
    };

    let inference =
        (request.max_output_tokens.is_some() || request.temperature.is_some()).then(|| {
            InferenceConfiguration::builder()
                .set_max_tokens(
                    request
                        .max_output_tokens
                        .map(|max| i32::try_from(max).unwrap_or(i32::MAX)),
                )
                .set_temperature(request.temperature)
                .build()
        });

    Ok(ConverseInput {
        messages,
        system,
        tool_config,
        inference,
    })
}

/// One neutral message as a role and its content blocks.
fn blocks(message: &Message) -> Result<(ConversationRole, Vec<ContentBlock>), BuildError> {
    Ok(match message {
        Message::User { text } => (
            ConversationRole::User,
            non_empty_text(text).into_iter().collect(),
        ),
        Message::Assistant {
            text, tool_calls, ..
        } => {
            // Converse rejects empty text blocks; reasoning state is a
            // Responses-API item and has no Converse form.
            let mut content: Vec<ContentBlock> = text
                .as_deref()
                .and_then(non_empty_text)
                .into_iter()
                .collect();
            for call in tool_calls {
                content.push(ContentBlock::ToolUse(
                    ToolUseBlock::builder()
                        .tool_use_id(&call.id)
                        .name(&call.name)
                        .input(arguments_document(&call.arguments))
                        .build()?,
                ));
            }
            (ConversationRole::Assistant, content)
        }
        Message::ToolResult {
            call_id,
            output,
            is_error,
        } => {
            let mut result = ToolResultBlock::builder()
                .tool_use_id(call_id)
                .content(ToolResultContentBlock::Text(output.clone()));
            if *is_error {
                result = result.status(ToolResultStatus::Error);
            }
            (
                ConversationRole::User,
                vec![ContentBlock::ToolResult(result.build()?)],
            )
        }
    })
}

fn non_empty_text(text: &str) -> Option<ContentBlock> {
    (!text.is_empty()).then(|| ContentBlock::Text(text.to_owned()))
}

/// A call's raw argument text as the JSON object Converse wants. Text that
/// is not a JSON object (a model's malformed call, already answered with a
/// tool error) is sent as `{}` so the conversation stays valid.
fn arguments_document(arguments: &str) -> Document {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => document(&value),
        _ => Document::Object(Default::default()),
    }
}

/// A JSON value as a smithy `Document`.
pub(crate) fn document(value: &Value) -> Document {
    match value {
        Value::Null => Document::Null,
        Value::Bool(flag) => Document::Bool(*flag),
        Value::Number(number) => {
            if let Some(unsigned) = number.as_u64() {
                Document::Number(Number::PosInt(unsigned))
            } else if let Some(signed) = number.as_i64() {
                Document::Number(Number::NegInt(signed))
            } else {
                number.as_f64().map_or(Document::Null, |float| {
                    Document::Number(Number::Float(float))
                })
            }
        }
        Value::String(text) => Document::String(text.clone()),
        Value::Array(items) => Document::Array(items.iter().map(document).collect()),
        Value::Object(fields) => Document::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), document(value)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;

    #[test]
    fn converts_json_numbers_strings_and_nesting() {
        let value = serde_json::json!({"a": [1, -2, 1.5, "x", null, true]});
        let Document::Object(fields) = document(&value) else {
            panic!("not an object");
        };
        assert_eq!(
            fields.get("a"),
            Some(&Document::Array(vec![
                Document::Number(Number::PosInt(1)),
                Document::Number(Number::NegInt(-2)),
                Document::Number(Number::Float(1.5)),
                Document::String("x".into()),
                Document::Null,
                Document::Bool(true),
            ]))
        );
    }

    #[test]
    fn merges_tool_results_and_following_user_text_into_one_user_turn() {
        let request = Request {
            model: "m".into(),
            messages: vec![
                Message::User { text: "hi".into() },
                Message::Assistant {
                    text: Some(String::new()),
                    tool_calls: vec![ToolCall {
                        id: "t1".into(),
                        name: "read".into(),
                        arguments: "not json".into(),
                    }],
                    reasoning: None,
                },
                Message::ToolResult {
                    call_id: "t1".into(),
                    output: "boom".into(),
                    is_error: true,
                },
                Message::User {
                    text: "again".into(),
                },
            ],
            ..Request::default()
        };
        let input = ConverseInput::new(&request).unwrap();
        assert_eq!(input.messages.len(), 3);
        assert_eq!(input.messages[1].content().len(), 1);
        let ContentBlock::ToolUse(call) = &input.messages[1].content()[0] else {
            panic!("not a tool use");
        };
        assert_eq!(call.input(), &Document::Object(Default::default()));
        assert_eq!(input.messages[2].content().len(), 2);
        assert!(input.system.is_none() && input.tool_config.is_none());
        assert!(input.inference.is_none());
    }
}
