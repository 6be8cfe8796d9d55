//! Turns streamed Chat Completions chunks into neutral [`Event`]s: text
//! deltas, tool calls assembled from pieces interleaved by `index`, usage,
//! and one `Finished` at the end — tolerant of what compatible servers do
//! differently, strict about limits and about the stream really ending.

use std::collections::{HashMap, VecDeque};

use crate::error::{ErrorKind, ProviderError};
use crate::limits::{MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_CALLS};
use crate::model::{Event, StopReason, ToolCall, Usage};

use super::wire::{ChatChunk, ChatToolCallDelta, ChatUsage};

/// One tool call being assembled.
#[derive(Debug, Default)]
struct PendingCall {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
    started: bool,
    done: bool,
}

/// Decoder state for one answer.
#[derive(Debug, Default)]
pub(crate) struct ChatDecoder {
    calls: Vec<PendingCall>,
    /// The server's `index` → the call it currently names.
    by_wire_index: HashMap<usize, usize>,
    finish_reason: Option<String>,
    /// `[DONE]` was seen, or the stream otherwise completed.
    complete: bool,
}

impl ChatDecoder {
    /// True once the answer is complete; the caller stops reading.
    pub(crate) fn is_complete(&self) -> bool {
        self.complete
    }

    /// Handles one SSE `data:` payload.
    pub(crate) fn data(
        &mut self,
        data: &str,
        out: &mut VecDeque<Event>,
    ) -> Result<(), ProviderError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            return self.end(out);
        }
        let chunk: ChatChunk = serde_json::from_str(data).map_err(|error| {
            ProviderError::new(
                ErrorKind::Protocol,
                format!("the provider sent a chunk that is not valid JSON: {error}"),
            )
        })?;
        if let Some(error) = chunk.error {
            return Err(mid_stream_error(&error));
        }
        // With `n` > 1 a server could interleave choices; oy asks for one
        // and reads only the first.
        for choice in chunk.choices.into_iter().filter(|choice| choice.index == 0) {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta.content.filter(|text| !text.is_empty()) {
                    out.push_back(Event::TextDelta { text });
                }
                for piece in delta.tool_calls.unwrap_or_default() {
                    self.tool_piece(piece, out)?;
                }
            }
            if let Some(reason) = choice.finish_reason.filter(|reason| !reason.is_empty()) {
                self.close_calls(out)?;
                self.finish_reason = Some(reason);
            }
        }
        if let Some(usage) = chunk.usage {
            out.push_back(Event::Usage {
                usage: map_usage(&usage),
            });
        }
        Ok(())
    }

    /// The body ended. Fine after `[DONE]` or a `finish_reason` (some
    /// servers never send `[DONE]`); otherwise the stream was cut.
    pub(crate) fn eof(&mut self, out: &mut VecDeque<Event>) -> Result<(), ProviderError> {
        if self.complete {
            return Ok(());
        }
        if self.finish_reason.is_none() {
            return Err(ProviderError::new(
                ErrorKind::StreamCut,
                "the stream ended before the answer was complete",
            ));
        }
        self.end(out)
    }

    /// Completes the answer: closes open calls and emits `Finished`.
    fn end(&mut self, out: &mut VecDeque<Event>) -> Result<(), ProviderError> {
        if self.complete {
            return Ok(());
        }
        self.close_calls(out)?;
        let any_calls = !self.calls.is_empty();
        let reason = match self.finish_reason.as_deref() {
            Some(reason) => map_stop_reason(reason, any_calls),
            // `[DONE]` with no finish_reason: infer it.
            None if any_calls => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        out.push_back(Event::Finished { reason });
        self.complete = true;
        Ok(())
    }

    fn tool_piece(
        &mut self,
        piece: ChatToolCallDelta,
        out: &mut VecDeque<Event>,
    ) -> Result<(), ProviderError> {
        let id = piece.id.filter(|id| !id.is_empty());
        let (name, arguments) = match piece.function {
            Some(function) => (
                function.name.filter(|name| !name.is_empty()),
                function.arguments,
            ),
            None => (None, None),
        };
        let position = self.position_for(piece.index, id.as_deref())?;
        let Some(call) = self.calls.get_mut(position) else {
            return Ok(());
        };
        if call.id.is_none() {
            call.id = id;
        }
        if call.name.is_none() {
            call.name = name;
        }
        let arguments = arguments.unwrap_or_default();
        if call.arguments.len() + arguments.len() > MAX_TOOL_ARGUMENT_BYTES {
            return Err(ProviderError::new(
                ErrorKind::LimitExceeded,
                format!("a tool call's arguments exceeded {MAX_TOOL_ARGUMENT_BYTES} bytes"),
            ));
        }
        call.arguments.push_str(&arguments);
        if !call.started {
            if let Some(name) = call.name.clone() {
                call.started = true;
                let id = call
                    .id
                    .get_or_insert_with(|| format!("call_{position}"))
                    .clone();
                out.push_back(Event::ToolCallStarted {
                    index: position,
                    id,
                    name,
                });
                // Arguments that arrived before the name.
                if !call.arguments.is_empty() {
                    out.push_back(Event::ToolCallArgumentsDelta {
                        index: position,
                        delta: call.arguments.clone(),
                    });
                }
            }
        } else if !arguments.is_empty() {
            out.push_back(Event::ToolCallArgumentsDelta {
                index: position,
                delta: arguments,
            });
        }
        Ok(())
    }

    /// Which call a piece belongs to, opening a new one when it names a new
    /// `index`, or — for servers that omit `index` or reuse it for every
    /// call (some Ollama and llama.cpp versions) — a new `id`.
    fn position_for(
        &mut self,
        index: Option<usize>,
        id: Option<&str>,
    ) -> Result<usize, ProviderError> {
        let existing = match index {
            Some(index) => self.by_wire_index.get(&index).copied(),
            None => self.calls.len().checked_sub(1),
        };
        let reuse = existing.filter(|&position| {
            let Some(call) = self.calls.get(position) else {
                return false;
            };
            match (call.id.as_deref(), id) {
                (Some(known), Some(new)) => known == new,
                _ => !call.done,
            }
        });
        if let Some(position) = reuse {
            return Ok(position);
        }
        if self.calls.len() >= MAX_TOOL_CALLS {
            return Err(ProviderError::new(
                ErrorKind::LimitExceeded,
                format!("the model made more than {MAX_TOOL_CALLS} tool calls in one answer"),
            ));
        }
        let position = self.calls.len();
        self.calls.push(PendingCall::default());
        self.by_wire_index
            .insert(index.unwrap_or(position), position);
        Ok(position)
    }

    /// Emits `ToolCallDone` for every open call, in order.
    fn close_calls(&mut self, out: &mut VecDeque<Event>) -> Result<(), ProviderError> {
        for (index, call) in self.calls.iter_mut().enumerate() {
            if call.done {
                continue;
            }
            let (Some(id), Some(name)) = (call.id.clone(), call.name.clone()) else {
                return Err(ProviderError::new(
                    ErrorKind::Protocol,
                    "the provider sent a tool call without a name",
                ));
            };
            call.done = true;
            out.push_back(Event::ToolCallDone {
                index,
                call: ToolCall {
                    id,
                    name,
                    arguments: std::mem::take(&mut call.arguments),
                },
            });
        }
        Ok(())
    }
}

/// An `{"error": …}` chunk. With an HTTP-like `code` (vLLM, OpenRouter
/// and LiteLLM send one) it is a status error, so a 429 or 5xx is retried
/// like one; otherwise the server broke protocol.
fn mid_stream_error(error: &serde_json::Value) -> ProviderError {
    let message = error
        .get("message")
        .and_then(serde_json::Value::as_str)
        .map_or_else(|| error.to_string(), str::to_owned);
    let code = error
        .get("code")
        .and_then(serde_json::Value::as_u64)
        .and_then(|code| u16::try_from(code).ok())
        .filter(|code| (400..=599).contains(code));
    match code {
        Some(code) => ProviderError::status(code, None, &format!("mid-stream: {message}"), None),
        None => ProviderError::new(
            ErrorKind::Protocol,
            format!("the provider reported an error mid-stream: {message}"),
        ),
    }
}

/// `finish_reason` → [`StopReason`]. `stop` with tool calls is read as
/// tool use: some servers (Ollama among them) say `stop` either way.
fn map_stop_reason(reason: &str, any_calls: bool) -> StopReason {
    match reason {
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "stop" | "eos" | "eos_token" | "end_turn" if any_calls => StopReason::ToolUse,
        "stop" | "eos" | "eos_token" | "end_turn" => StopReason::EndTurn,
        "length" | "max_tokens" => StopReason::MaxTokens,
        "content_filter" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_owned()),
    }
}

fn map_usage(usage: &ChatUsage) -> Usage {
    Usage {
        input_tokens: usage.prompt_tokens.unwrap_or_default(),
        output_tokens: usage.completion_tokens.unwrap_or_default(),
        cached_input_tokens: usage
            .prompt_tokens_details
            .as_ref()
            .and_then(|details| details.cached_tokens)
            .unwrap_or_default(),
    }
}
