//! [`ConverseDecoder`]: ConverseStream events as neutral [`Event`]s. Tool
//! calls are tracked by content-block index; their input JSON arrives as
//! text deltas and is checked against [`crate::limits`]. `messageStop`
//! gives the stop reason, `metadata` the usage, and `Finished` follows the
//! metadata (or the end of the stream when there is none).

use std::collections::{HashMap, VecDeque};

use aws_sdk_bedrockruntime::types::{
    ContentBlockDelta, ContentBlockStart, ConverseStreamOutput, StopReason as WireStopReason,
};

use crate::error::{ErrorKind, ProviderError};
use crate::limits::{MAX_RESPONSE_BYTES, MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_CALLS};
use crate::model::{Event, StopReason, ToolCall, Usage};

/// A tool-use block that has started but not stopped.
#[derive(Debug)]
struct OpenCall {
    index: usize,
    id: String,
    name: String,
    arguments: String,
}

/// Decoding state for one answer.
#[derive(Debug, Default)]
pub(crate) struct ConverseDecoder {
    open: HashMap<i32, OpenCall>,
    calls: usize,
    received: usize,
    stop: Option<StopReason>,
    finished: bool,
}

impl ConverseDecoder {
    /// True once `Finished` has been emitted.
    pub(crate) fn is_finished(&self) -> bool {
        self.finished
    }

    /// Maps one stream event into `out`.
    pub(crate) fn event(
        &mut self,
        event: ConverseStreamOutput,
        out: &mut VecDeque<Event>,
    ) -> Result<(), ProviderError> {
        match event {
            ConverseStreamOutput::ContentBlockStart(start) => {
                if let Some(ContentBlockStart::ToolUse(tool)) = start.start {
                    self.start_call(start.content_block_index, tool.tool_use_id, tool.name, out)?;
                }
            }
            ConverseStreamOutput::ContentBlockDelta(delta) => match delta.delta {
                Some(ContentBlockDelta::Text(text)) => {
                    self.count(text.len())?;
                    if !text.is_empty() {
                        out.push_back(Event::TextDelta { text });
                    }
                }
                Some(ContentBlockDelta::ToolUse(tool)) => {
                    self.call_delta(delta.content_block_index, tool.input, out)?;
                }
                // Reasoning, citations, images: nothing oy shows yet.
                _ => {}
            },
            ConverseStreamOutput::ContentBlockStop(stop) => {
                self.close_call(stop.content_block_index, out);
            }
            ConverseStreamOutput::MessageStop(stop) => {
                self.close_all(out);
                self.stop = Some(stop_reason(&stop.stop_reason));
            }
            ConverseStreamOutput::Metadata(metadata) => {
                if let Some(usage) = metadata.usage {
                    out.push_back(Event::Usage {
                        usage: Usage {
                            input_tokens: tokens(usage.input_tokens),
                            output_tokens: tokens(usage.output_tokens),
                            cached_input_tokens: usage.cache_read_input_tokens.map_or(0, tokens),
                        },
                    });
                }
                self.finish(out);
            }
            // messageStart carries only the role; unknown events are skipped.
            _ => {}
        }
        Ok(())
    }

    /// The stream ended: finish, or report a cut if `messageStop` never came.
    pub(crate) fn eof(&mut self, out: &mut VecDeque<Event>) -> Result<(), ProviderError> {
        if self.stop.is_none() {
            return Err(ProviderError::new(
                ErrorKind::StreamCut,
                "the Bedrock stream ended before the answer was complete",
            ));
        }
        self.finish(out);
        Ok(())
    }

    fn finish(&mut self, out: &mut VecDeque<Event>) {
        if self.finished {
            return;
        }
        if let Some(reason) = self.stop.clone() {
            out.push_back(Event::Finished { reason });
            self.finished = true;
        }
    }

    fn count(&mut self, bytes: usize) -> Result<(), ProviderError> {
        self.received = self.received.saturating_add(bytes);
        if self.received > MAX_RESPONSE_BYTES {
            return Err(limit(format!(
                "the answer is larger than {MAX_RESPONSE_BYTES} bytes"
            )));
        }
        Ok(())
    }

    fn start_call(
        &mut self,
        block: i32,
        id: String,
        name: String,
        out: &mut VecDeque<Event>,
    ) -> Result<(), ProviderError> {
        if self.calls >= MAX_TOOL_CALLS {
            return Err(limit(format!(
                "the model made more than {MAX_TOOL_CALLS} tool calls in one answer"
            )));
        }
        let index = self.calls;
        self.calls += 1;
        out.push_back(Event::ToolCallStarted {
            index,
            id: id.clone(),
            name: name.clone(),
        });
        self.open.insert(
            block,
            OpenCall {
                index,
                id,
                name,
                arguments: String::new(),
            },
        );
        Ok(())
    }

    fn call_delta(
        &mut self,
        block: i32,
        delta: String,
        out: &mut VecDeque<Event>,
    ) -> Result<(), ProviderError> {
        self.count(delta.len())?;
        let Some(call) = self.open.get_mut(&block) else {
            return Err(ProviderError::new(
                ErrorKind::Protocol,
                format!(
                    "Bedrock sent tool input for block {block}, which is not a started tool use"
                ),
            ));
        };
        if call.arguments.len().saturating_add(delta.len()) > MAX_TOOL_ARGUMENT_BYTES {
            return Err(limit(format!(
                "the arguments of tool call `{}` are larger than {MAX_TOOL_ARGUMENT_BYTES} bytes",
                call.name
            )));
        }
        call.arguments.push_str(&delta);
        if !delta.is_empty() {
            out.push_back(Event::ToolCallArgumentsDelta {
                index: call.index,
                delta,
            });
        }
        Ok(())
    }

    fn close_call(&mut self, block: i32, out: &mut VecDeque<Event>) {
        if let Some(call) = self.open.remove(&block) {
            out.push_back(done(call));
        }
    }

    fn close_all(&mut self, out: &mut VecDeque<Event>) {
        let mut calls: Vec<OpenCall> = self.open.drain().map(|(_, call)| call).collect();
        calls.sort_by_key(|call| call.index);
        out.extend(calls.into_iter().map(done));
    }
}

fn done(call: OpenCall) -> Event {
    // A tool that takes no arguments may stream no input at all.
    let arguments = if call.arguments.trim().is_empty() {
        "{}".to_owned()
    } else {
        call.arguments
    };
    Event::ToolCallDone {
        index: call.index,
        call: ToolCall {
            id: call.id,
            name: call.name,
            arguments,
        },
    }
}

fn limit(message: String) -> ProviderError {
    ProviderError::new(ErrorKind::LimitExceeded, message)
}

fn tokens(count: i32) -> u64 {
    u64::try_from(count).unwrap_or(0)
}

/// Converse stop reasons in neutral terms; a stop sequence is a normal end
/// of turn, a guardrail a content filter, the rest kept verbatim.
pub(crate) fn stop_reason(reason: &WireStopReason) -> StopReason {
    match reason {
        WireStopReason::EndTurn | WireStopReason::StopSequence => StopReason::EndTurn,
        WireStopReason::ToolUse => StopReason::ToolUse,
        WireStopReason::MaxTokens => StopReason::MaxTokens,
        WireStopReason::ContentFiltered | WireStopReason::GuardrailIntervened => {
            StopReason::ContentFilter
        }
        other => StopReason::Other(other.as_str().to_owned()),
    }
}
