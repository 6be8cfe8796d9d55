//! Responses API streaming events → neutral [`Event`]s. One decoder per
//! answer; it tracks function calls by `output_index` or, where a server
//! leaves that out (llama.cpp's `llama-server`), by `item_id`; enforces the
//! tool-call limits; and knows whether the answer finished. A call whose
//! `output_item.done` never came is completed from what streamed when the
//! response completes.

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{ErrorKind, ProviderError};
use crate::limits::{MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_CALLS};
use crate::model::{Event, StopReason, ToolCall, Usage};

/// A function call being streamed; its position in `Decoder::calls` is
/// the neutral index.
#[derive(Debug)]
struct Call {
    /// The server's item id, to match a later `output` listing.
    item_id: Option<String>,
    id: String,
    name: String,
    arguments: String,
    done: bool,
}

/// How an event names the output item it belongs to.
#[derive(Debug, Clone, Copy)]
struct ItemKey<'v> {
    output_index: Option<u64>,
    item_id: Option<&'v str>,
}

impl<'v> ItemKey<'v> {
    /// The keys of an event: its `output_index`, and its `item_id` (or the
    /// `id` of the item it carries).
    fn of(value: &'v Value) -> Self {
        let item_id = value
            .get("item_id")
            .or_else(|| value.get("item").and_then(|item| item.get("id")))
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        Self {
            output_index: value.get("output_index").and_then(Value::as_u64),
            item_id,
        }
    }

    fn require(self) -> Result<Self, ProviderError> {
        if self.output_index.is_none() && self.item_id.is_none() {
            return Err(protocol(
                "the provider sent an event without an output_index or item_id".into(),
            ));
        }
        Ok(self)
    }
}

/// Decoder state for one streamed answer.
#[derive(Debug, Default)]
pub(super) struct Decoder {
    calls: Vec<Call>,
    by_output_index: HashMap<u64, usize>,
    by_item_id: HashMap<String, usize>,
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
        // An event with neither `type` nor an `event:` name that carries an
        // `error` object is an error: llama.cpp sends
        // `data: {"error":{...}}` mid-stream that way.
        let untyped_error = name.is_empty() && value.get("error").is_some_and(Value::is_object);
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(if untyped_error { "error" } else { name })
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

    /// The call an event belongs to, if it is one.
    fn find(&self, key: ItemKey<'_>) -> Option<usize> {
        key.output_index
            .and_then(|index| self.by_output_index.get(&index))
            .or_else(|| key.item_id.and_then(|id| self.by_item_id.get(id)))
            .copied()
    }

    fn item_added(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let item = value.get("item").unwrap_or(&Value::Null);
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            return Ok(Vec::new());
        }
        let key = ItemKey::of(value).require()?;
        let (index, mut events) = self.start_call(key, item)?;
        let initial = item.get("arguments").and_then(Value::as_str).unwrap_or("");
        if !initial.is_empty() {
            events.extend(self.append_arguments(index, initial)?);
        }
        Ok(events)
    }

    /// The call `key` names, started (with its `ToolCallStarted`) if this
    /// is the first the decoder hears of it.
    fn start_call(
        &mut self,
        key: ItemKey<'_>,
        item: &Value,
    ) -> Result<(usize, Vec<Event>), ProviderError> {
        if let Some(index) = self.find(key) {
            return Ok((index, Vec::new()));
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
            .map_or_else(
                || format!("call_{}", key.output_index.unwrap_or(index as u64)),
                str::to_owned,
            );
        let name = item
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if let Some(output_index) = key.output_index {
            self.by_output_index.insert(output_index, index);
        }
        if let Some(item_id) = key.item_id {
            self.by_item_id.insert(item_id.to_owned(), index);
        }
        self.calls.push(Call {
            item_id: key.item_id.map(str::to_owned),
            id: id.clone(),
            name: name.clone(),
            arguments: String::new(),
            done: false,
        });
        Ok((index, vec![Event::ToolCallStarted { index, id, name }]))
    }

    fn arguments_delta(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let key = ItemKey::of(value).require()?;
        let delta = str_field(value, "delta")?;
        let Some(index) = self.find(key) else {
            return Err(protocol(format!(
                "the provider sent arguments for {}, which is not a function call",
                describe(key)
            )));
        };
        self.append_arguments(index, delta)
    }

    fn append_arguments(&mut self, index: usize, delta: &str) -> Result<Vec<Event>, ProviderError> {
        let Some(call) = self.calls.get_mut(index) else {
            return Ok(Vec::new());
        };
        if call.arguments.len() + delta.len() > MAX_TOOL_ARGUMENT_BYTES {
            return Err(arguments_too_big());
        }
        call.arguments.push_str(delta);
        Ok(vec![Event::ToolCallArgumentsDelta {
            index,
            delta: delta.to_owned(),
        }])
    }

    fn arguments_done(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let key = ItemKey::of(value).require()?;
        if let (Some(index), Some(arguments)) = (
            self.find(key),
            value.get("arguments").and_then(Value::as_str),
        ) {
            set_arguments(&mut self.calls[index], arguments)?;
        }
        Ok(Vec::new())
    }

    fn item_done(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let item = value.get("item").unwrap_or(&Value::Null);
        match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => Ok(vec![Event::Reasoning { item: item.clone() }]),
            Some("function_call") => {
                let key = ItemKey::of(value).require()?;
                // A server that skipped `output_item.added` still gets a
                // started event before the call is done.
                let (index, mut events) = self.start_call(key, item)?;
                events.extend(self.complete_call(index, item)?);
                Ok(events)
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Marks call `index` done, taking the arguments and name the final
    /// `item` carries over what streamed.
    fn complete_call(&mut self, index: usize, item: &Value) -> Result<Vec<Event>, ProviderError> {
        let call = &mut self.calls[index];
        if call.done {
            return Ok(Vec::new());
        }
        if let Some(arguments) = item.get("arguments").and_then(Value::as_str) {
            set_arguments(call, arguments)?;
        }
        if let Some(name) = item.get("name").and_then(Value::as_str)
            && call.name.is_empty()
        {
            name.clone_into(&mut call.name);
        }
        call.done = true;
        Ok(vec![Event::ToolCallDone {
            index,
            call: ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
        }])
    }

    /// Calls the server never sent `output_item.done` for, completed from
    /// the response's `output` listing where it has them, else from what
    /// streamed.
    fn complete_open_calls(&mut self, response: &Value) -> Result<Vec<Event>, ProviderError> {
        let listed = response
            .get("output")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut events = Vec::new();
        for index in 0..self.calls.len() {
            if self.calls[index].done {
                continue;
            }
            let call = &self.calls[index];
            let item = listed
                .iter()
                .find(|item| {
                    let id = item.get("id").and_then(Value::as_str);
                    let call_id = item.get("call_id").and_then(Value::as_str);
                    (id.is_some() && id == call.item_id.as_deref()) || call_id == Some(&call.id)
                })
                .cloned()
                .unwrap_or(Value::Null);
            events.extend(self.complete_call(index, &item)?);
        }
        Ok(events)
    }

    /// `response.completed` / `response.incomplete`: usage, then why it
    /// stopped.
    fn finish(&mut self, value: &Value) -> Result<Vec<Event>, ProviderError> {
        let response = value.get("response").unwrap_or(&Value::Null);
        let incomplete = response.get("status").and_then(Value::as_str) == Some("incomplete")
            || value.get("type").and_then(Value::as_str) == Some("response.incomplete");
        // A call cut by an incomplete answer stays open (its arguments may
        // be half a JSON value); the stop reason says why.
        let mut events = if incomplete {
            Vec::new()
        } else {
            self.complete_open_calls(response)?
        };
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
        } else if self.calls.iter().any(|call| call.done) {
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

/// An event's item, for messages.
fn describe(key: ItemKey<'_>) -> String {
    match (key.output_index, key.item_id) {
        (Some(index), _) => format!("output {index}"),
        (None, Some(id)) => format!("item {id:?}"),
        (None, None) => "an unnamed item".to_owned(),
    }
}

fn set_arguments(call: &mut Call, arguments: &str) -> Result<(), ProviderError> {
    if arguments.len() > MAX_TOOL_ARGUMENT_BYTES {
        return Err(arguments_too_big());
    }
    arguments.clone_into(&mut call.arguments);
    Ok(())
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
