//! `Transcript`: the conversation the model sees, as entries (user text,
//! assistant text and tool calls, tool results, summaries), with the one
//! invariant every request relies on: each tool call is answered by exactly
//! one result, immediately after the assistant entry that made it.

use oy_provider::{Message, ToolCall};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One item of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Entry {
    /// The person's words.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant {
        /// Visible text, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Tool calls, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// Opaque reasoning state some APIs want echoed back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<Value>,
    },
    /// The answer to one tool call.
    ToolResult {
        /// The provider's id of the call.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// What the model sees (possibly cut, with a marker saying so).
        output: String,
        /// True when the call failed (`TOOL_ERROR`).
        #[serde(default)]
        is_error: bool,
        /// The uncut text when `output` was cut (by the tool's cap or by
        /// compaction); kept so the saved session loses nothing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        full_text: Option<String>,
    },
    /// A summary standing in for older entries that compaction removed.
    Summary {
        /// The summary text.
        text: String,
        /// How many entries it replaced.
        replaced: usize,
    },
}

impl Entry {
    /// The bytes this entry adds to a request (text, arguments, output);
    /// the basis of the token estimate.
    pub fn weight(&self) -> usize {
        match self {
            Self::User { text } | Self::Summary { text, .. } => text.len(),
            Self::Assistant {
                text,
                tool_calls,
                reasoning,
            } => {
                text.as_ref().map_or(0, String::len)
                    + tool_calls
                        .iter()
                        .map(|call| call.id.len() + call.name.len() + call.arguments.len() + 32)
                        .sum::<usize>()
                    + reasoning.as_ref().map_or(0, |item| item.to_string().len())
            }
            Self::ToolResult {
                call_id, output, ..
            } => call_id.len() + output.len() + 32,
        }
    }
}

/// A broken pairing found by [`Transcript::check`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("transcript entry {index}: {problem}")]
pub struct PairingError {
    /// Where.
    pub index: usize,
    /// What is wrong.
    pub problem: String,
}

/// The conversation, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    entries: Vec<Entry>,
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Self {
        Self::default()
    }

    /// A transcript holding `entries` (a resumed session), checked.
    pub fn from_entries(entries: Vec<Entry>) -> Result<Self, PairingError> {
        let transcript = Self { entries };
        transcript.check()?;
        Ok(transcript)
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Mutable access for compaction, which must keep [`Self::check`] true.
    pub(crate) fn entries_mut(&mut self) -> &mut Vec<Entry> {
        &mut self.entries
    }

    /// Appends an entry. The loop appends an assistant entry's results
    /// right after it, before anything else.
    pub fn push(&mut self, entry: Entry) {
        self.entries.push(entry);
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was said yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets everything (a chat's `/clear`).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Sum of [`Entry::weight`].
    pub fn weight(&self) -> usize {
        self.entries.iter().map(Entry::weight).sum()
    }

    /// The first user entry: the task, which compaction always keeps.
    pub fn task_index(&self) -> Option<usize> {
        self.entries
            .iter()
            .position(|entry| matches!(entry, Entry::User { .. }))
    }

    /// Checks the pairing invariant: every assistant entry with tool calls
    /// is followed immediately by one result per call, in order, and no
    /// result appears anywhere else.
    pub fn check(&self) -> Result<(), PairingError> {
        let mut index = 0;
        while index < self.entries.len() {
            match &self.entries[index] {
                Entry::Assistant { tool_calls, .. } => {
                    for (offset, call) in tool_calls.iter().enumerate() {
                        let at = index + 1 + offset;
                        match self.entries.get(at) {
                            Some(Entry::ToolResult { call_id, .. }) if *call_id == call.id => {}
                            _ => {
                                return Err(PairingError {
                                    index: at,
                                    problem: format!("expected the result of call `{}`", call.id),
                                });
                            }
                        }
                    }
                    index += 1 + tool_calls.len();
                }
                Entry::ToolResult { call_id, .. } => {
                    return Err(PairingError {
                        index,
                        problem: format!("result of `{call_id}` without its call"),
                    });
                }
                Entry::User { .. } | Entry::Summary { .. } => index += 1,
            }
        }
        Ok(())
    }

    /// Splits the entries into units that must stay together: a user or
    /// summary entry alone, or an assistant entry with all its results.
    /// Returns each unit's range of entry indexes.
    pub fn units(&self) -> Vec<std::ops::Range<usize>> {
        let mut units = Vec::new();
        let mut index = 0;
        while index < self.entries.len() {
            let len = match &self.entries[index] {
                Entry::Assistant { tool_calls, .. } => {
                    let mut len = 1;
                    while len <= tool_calls.len()
                        && matches!(
                            self.entries.get(index + len),
                            Some(Entry::ToolResult { .. })
                        )
                    {
                        len += 1;
                    }
                    len
                }
                _ => 1,
            };
            units.push(index..index + len);
            index += len;
        }
        units
    }

    /// The messages a request carries.
    pub fn to_messages(&self) -> Vec<Message> {
        self.entries
            .iter()
            .map(|entry| match entry {
                Entry::User { text } => Message::User { text: text.clone() },
                Entry::Summary { text, .. } => Message::User {
                    text: format!(
                        "[Summary of the earlier conversation, which was compacted to save context]\n{text}"
                    ),
                },
                Entry::Assistant {
                    text,
                    tool_calls,
                    reasoning,
                } => Message::Assistant {
                    text: text.clone(),
                    tool_calls: tool_calls.clone(),
                    reasoning: reasoning.clone(),
                },
                Entry::ToolResult {
                    call_id,
                    output,
                    is_error,
                    ..
                } => Message::ToolResult {
                    call_id: call_id.clone(),
                    output: output.clone(),
                    is_error: *is_error,
                },
            })
            .collect()
    }
}
