//! The non-streaming path: `Converse` answers with the whole message at
//! once; it is replayed as the same events a stream would have carried
//! (text, tool calls started / arguments / done, usage, finish), so callers
//! see no difference.

use aws_sdk_bedrockruntime::operation::converse::ConverseOutput;
use aws_sdk_bedrockruntime::types::{ContentBlock, ConverseOutput as Output};
use aws_smithy_types::{Document, Number};
use serde_json::Value;

use crate::error::{ErrorKind, ProviderError};
use crate::limits::{MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_CALLS};
use crate::model::{Event, StopReason, ToolCall, Usage};

use super::decode::stop_reason;

/// The events of a whole `Converse` answer, in stream order.
pub(crate) fn events(output: &ConverseOutput) -> Result<Vec<Event>, ProviderError> {
    let mut events = Vec::new();
    let mut calls = 0;
    if let Some(Output::Message(message)) = output.output() {
        for block in message.content() {
            match block {
                ContentBlock::Text(text) if !text.is_empty() => {
                    events.push(Event::TextDelta { text: text.clone() });
                }
                ContentBlock::ToolUse(tool) => {
                    if calls >= MAX_TOOL_CALLS {
                        return Err(limit(format!(
                            "Bedrock asked for more than {MAX_TOOL_CALLS} tool calls"
                        )));
                    }
                    let arguments = to_json(tool.input()).to_string();
                    if arguments.len() > MAX_TOOL_ARGUMENT_BYTES {
                        return Err(limit(format!(
                            "tool call arguments over {MAX_TOOL_ARGUMENT_BYTES} bytes"
                        )));
                    }
                    let call = ToolCall {
                        id: tool.tool_use_id().to_owned(),
                        name: tool.name().to_owned(),
                        arguments,
                    };
                    events.push(Event::ToolCallStarted {
                        index: calls,
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                    events.push(Event::ToolCallArgumentsDelta {
                        index: calls,
                        delta: call.arguments.clone(),
                    });
                    events.push(Event::ToolCallDone { index: calls, call });
                    calls += 1;
                }
                // Reasoning, images, documents and empty text carry nothing
                // the neutral model shows.
                _ => {}
            }
        }
    }
    if let Some(usage) = output.usage() {
        events.push(Event::Usage {
            usage: Usage {
                input_tokens: u64::try_from(usage.input_tokens()).unwrap_or(0),
                output_tokens: u64::try_from(usage.output_tokens()).unwrap_or(0),
                cached_input_tokens: usage
                    .cache_read_input_tokens()
                    .and_then(|count| u64::try_from(count).ok())
                    .unwrap_or(0),
            },
        });
    }
    let reason = match stop_reason(output.stop_reason()) {
        StopReason::EndTurn if calls > 0 => StopReason::ToolUse,
        reason => reason,
    };
    events.push(Event::Finished { reason });
    Ok(events)
}

fn limit(message: String) -> ProviderError {
    ProviderError::new(ErrorKind::LimitExceeded, message)
}

/// A smithy `Document` as JSON (the tool input the model produced).
fn to_json(document: &Document) -> Value {
    match document {
        Document::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), to_json(value)))
                .collect(),
        ),
        Document::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Document::Number(Number::PosInt(n)) => Value::from(*n),
        Document::Number(Number::NegInt(n)) => Value::from(*n),
        Document::Number(Number::Float(f)) => Value::from(*f),
        Document::String(text) => Value::String(text.clone()),
        Document::Bool(flag) => Value::Bool(*flag),
        Document::Null => Value::Null,
    }
}
