//! Responses API streaming events → neutral [`Event`]s. One decoder per
//! answer; it tracks function calls by `output_index`, enforces the
//! tool-call limits, and knows whether the answer finished.

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{ErrorKind, ProviderError};
use crate::limits::{MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_CALLS};
use crate::model::{Event, StopReason, ToolCall, Usage};

/// A function call being streamed.
#[derive(Debug)]
struct Call {
    /// Its position among this answer's calls (the neutral index).
    index: usize,
    id: String,
    name: String,
    arguments: String,
    done: bool,
}

/// Decoder state for one streamed answer.
#[derive(Debug, Default)]
pub(super) struct Decoder {
    /// Calls by the server's `output_index`.
    calls: HashMap<u64, Call>,
    finished: bool,
}

impl Decoder {
    /// True once `response.completed` or `response.incomplete` was seen.
    pub(super) fn is_finished(&self) -> bool {
        self.finished
    }

    /// Decodes one SSE event. `name` is the `event:` field, used only when
    /// the JSON has no `type`. Unknown types are ignored.
    pub(super) fn decode(&mut self, name: &str, data: &str) -> Result<Vec<Event>, ProviderError> {
        if self.finished || data.trim() == "[DONE]" {
            return Ok(Vec::new());
        }
        let value: Value = serde_json::from_str(data).map_err(|error| {
            protocol(format!(
                "the provider sent an event that is not JSON ({error})"
            ))
        })?;
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(name)
            .to_owned();
        match kind.as_str() {
            "response.output_text.delta" | "response.refusal.delta" => {
                let text = str_field(&value, "delta")?;
                Ok(if text.is_empty() {
                    Vec::new()
                } else {
                    vec![Event::TextDelta {
                        text: text.to_owned(),
                    }]
                })
            }
            "response.output_item.added" => self.item_added(&value),
            "response.function_call_arguments.delta" => self.arguments_delta(&value),
            "response.function_call_arguments.done" => self.arguments_done(&value),
            "response.output_item.done" => self.item_done(&value),
            "response.completed" | "response.incomplete" => self.finish(&value),
            "response.failed" => {
                let error = value
                    .get("response")
                    .and_then(|response| response.get("error"))
                    .unwrap_or(&Value::Null);
                Err(stream_error(error, "the response failed"))
            }
            "error" => Err(stream_error(
                value.get("error").unwrap_or(&value),
                "the provider reported an error",
            )),
            _ => Ok(Vec::new()),
        }
    }

    fn item_added(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let item = value.get("item").unwrap_or(&Value::Null);
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            return Ok(Vec::new());
        }
        let output_index = output_index(value)?;
        let mut events = self.start_call(output_index, item)?;
        let initial = item.get("arguments").and_then(Value::as_str).unwrap_or("");
        if !initial.is_empty() {
            events.extend(self.append_arguments(output_index, initial)?);
        }
        Ok(events)
    }

    fn start_call(&mut self, output_index: u64, item: &Value) -> Result<Vec<Event>, ProviderError> {
        if self.calls.contains_key(&output_index) {
            return Ok(Vec::new());
        }
        if self.calls.len() >= MAX_TOOL_CALLS {
            return Err(ProviderError::new(
                ErrorKind::LimitExceeded,
                format!("the model made more than {MAX_TOOL_CALLS} tool calls in one answer"),
            ));
        }
        let index = self.calls.len();
        let id = item
            .get("call_id")
            .or_else(|| item.get("id"))
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map_or_else(|| format!("call_{output_index}"), str::to_owned);
        let name = item
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        self.calls.insert(
            output_index,
            Call {
                index,
                id: id.clone(),
                name: name.clone(),
                arguments: String::new(),
                done: false,
            },
        );
        Ok(vec![Event::ToolCallStarted { index, id, name }])
    }

    fn arguments_delta(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let output_index = output_index(value)?;
        let delta = str_field(value, "delta")?;
        if !self.calls.contains_key(&output_index) {
            return Err(protocol(format!(
                "the provider sent arguments for output {output_index}, which is not a function call"
            )));
        }
        self.append_arguments(output_index, delta)
    }

    fn append_arguments(
        &mut self,
        output_index: u64,
        delta: &str,
    ) -> Result<Vec<Event>, ProviderError> {
        let Some(call) = self.calls.get_mut(&output_index) else {
            return Ok(Vec::new());
        };
        if call.arguments.len() + delta.len() > MAX_TOOL_ARGUMENT_BYTES {
            return Err(arguments_too_big());
        }
        call.arguments.push_str(delta);
        Ok(vec![Event::ToolCallArgumentsDelta {
            index: call.index,
            delta: delta.to_owned(),
        }])
    }

    fn arguments_done(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let output_index = output_index(value)?;
        if let (Some(call), Some(arguments)) = (
            self.calls.get_mut(&output_index),
            value.get("arguments").and_then(Value::as_str),
        ) {
            if arguments.len() > MAX_TOOL_ARGUMENT_BYTES {
                return Err(arguments_too_big());
            }
            arguments.clone_into(&mut call.arguments);
        }
        Ok(Vec::new())
    }

    fn item_done(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let item = value.get("item").unwrap_or(&Value::Null);
        match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => Ok(vec![Event::Reasoning { item: item.clone() }]),
            Some("function_call") => {
                let output_index = output_index(value)?;
                // A server that skipped `output_item.added` still gets a
                // started event before the call is done.
                let mut events = self.start_call(output_index, item)?;
                let Some(call) = self.calls.get_mut(&output_index) else {
                    return Ok(events);
                };
                if let Some(arguments) = item.get("arguments").and_then(Value::as_str) {
                    if arguments.len() > MAX_TOOL_ARGUMENT_BYTES {
                        return Err(arguments_too_big());
                    }
                    arguments.clone_into(&mut call.arguments);
                }
                if let Some(name) = item.get("name").and_then(Value::as_str)
                    && call.name.is_empty()
                {
                    name.clone_into(&mut call.name);
                }
                call.done = true;
                events.push(Event::ToolCallDone {
                    index: call.index,
                    call: ToolCall {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    },
                });
                Ok(events)
            }
            _ => Ok(Vec::new()),
        }
    }

    /// `response.completed` / `response.incomplete`: usage, then why it
    /// stopped.
    fn finish(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let response = value.get("response").unwrap_or(&Value::Null);
        let mut events = Vec::new();
        if let Some(usage) = response.get("usage").filter(|usage| usage.is_object()) {
            let count = |value: Option<&Value>| value.and_then(Value::as_u64).unwrap_or(0);
            events.push(Event::Usage {
                usage: Usage {
                    input_tokens: count(usage.get("input_tokens")),
                    output_tokens: count(usage.get("output_tokens")),
                    cached_input_tokens: count(
                        usage
                            .get("input_tokens_details")
                            .and_then(|details| details.get("cached_tokens")),
                    ),
                },
            });
        }
        let incomplete = response.get("status").and_then(Value::as_str) == Some("incomplete")
            || value.get("type").and_then(Value::as_str) == Some("response.incomplete");
        let reason = if incomplete {
            let why = response
                .get("incomplete_details")
                .and_then(|details| details.get("reason"))
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            match why {
                "max_output_tokens" => StopReason::MaxTokens,
                "content_filter" => StopReason::ContentFilter,
                other => StopReason::Other(other.to_owned()),
            }
        } else if self.calls.values().any(|call| call.done) {
            StopReason::ToolUse
        } else {
            StopReason::EndTurn
        };
        self.finished = true;
        events.push(Event::Finished { reason });
        Ok(events)
    }
}

/// An error reported inside the stream. Server-side and rate-limit codes
/// become retryable statuses (the retry gate only retries them before any
/// event reached the caller); anything else is a protocol error.
fn stream_error(error: &Value, context: &str) -> ProviderError {
    let field = |name: &str| error.get(name).and_then(Value::as_str).unwrap_or("");
    let code = field("code");
    let message = match (code, field("message")) {
        ("", "") => format!("{context} (no details given)"),
        ("", message) => format!("{context}: {message}"),
        (code, "") => format!("{context}: {code}"),
        (code, message) => format!("{context}: {code}: {message}"),
    };
    match code {
        "server_error" | "internal_error" | "server_is_overloaded" | "service_unavailable" => {
            ProviderError::status(500, None, &message, None)
        }
        "rate_limit_exceeded" | "slow_down" => ProviderError::status(429, None, &message, None),
        _ => protocol(message),
    }
}

fn output_index(value: &Value) -> Result<u64, ProviderError> {
    value
        .get("output_index")
        .and_then(Value::as_u64)
        .ok_or_else(|| protocol("the provider sent an event without an output_index".into()))
}

fn str_field<'v>(value: &'v Value, name: &str) -> Result<&'v str, ProviderError> {
    value.get(name).and_then(Value::as_str).ok_or_else(|| {
        protocol(format!(
            "the provider sent an event without a string {name:?}"
        ))
    })
}

fn arguments_too_big() -> ProviderError {
    ProviderError::new(
        ErrorKind::LimitExceeded,
        format!("a tool call's arguments exceeded {MAX_TOOL_ARGUMENT_BYTES} bytes"),
    )
}

fn protocol(message: String) -> ProviderError {
    ProviderError::new(ErrorKind::Protocol, message)
}
