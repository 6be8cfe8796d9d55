//! The provider-neutral request and event model. Backends translate it to
//! and from their wire formats; nothing else in oy sees a wire type.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool the model may call: a name, a description, and the JSON Schema
/// of its arguments object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    /// The name the model calls it by.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// One tool call the model made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call (generated when the server sent none),
    /// echoed back with the result.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as raw JSON text, exactly as the model produced them.
    pub arguments: String,
}

/// One item of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Message {
    /// The person's words.
    User {
        /// The text.
        text: String,
    },
    /// What the model said: text, tool calls, or both.
    Assistant {
        /// Visible text, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Tool calls, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// Opaque reasoning state some APIs (Responses) want echoed back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<Value>,
    },
    /// The result of one tool call.
    ToolResult {
        /// The call it answers.
        call_id: String,
        /// The model-visible output text.
        output: String,
        /// True when the tool failed (`TOOL_ERROR`).
        #[serde(default)]
        is_error: bool,
    },
}

/// How hard a reasoning model should think.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningEffort {
    /// Minimal reasoning.
    Low,
    /// The default.
    Medium,
    /// Maximum reasoning.
    High,
}

/// One model request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Request {
    /// The model id.
    pub model: String,
    /// System instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// Tools offered for this request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSchema>,
    /// Cap on output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Reasoning effort, for models that take one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningEffort>,
}

/// Token counts, when the server reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from a cache, when reported.
    #[serde(default)]
    pub cached_input_tokens: u64,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// It hit the output-token cap.
    MaxTokens,
    /// A content filter stopped it.
    ContentFilter,
    /// Something the backend does not map (kept verbatim).
    Other(String),
}

/// One piece of a streamed answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// Visible text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A tool call began (its arguments follow as deltas).
    ToolCallStarted {
        /// Position of the call in this answer.
        index: usize,
        /// The call id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More argument text for a started call.
    ToolCallArgumentsDelta {
        /// Which call.
        index: usize,
        /// The new argument text.
        delta: String,
    },
    /// A tool call is complete.
    ToolCallDone {
        /// Which call.
        index: usize,
        /// The whole call.
        call: ToolCall,
    },
    /// Opaque reasoning state to echo back next turn (Responses API).
    Reasoning {
        /// The item as the server sent it.
        item: Value,
    },
    /// Token usage.
    Usage {
        /// The counts.
        usage: Usage,
    },
    /// The answer is complete.
    Finished {
        /// Why it stopped.
        reason: StopReason,
    },
}

/// A model the provider offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Its id, as requests name it.
    pub id: String,
    /// Who owns it, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owned_by: Option<String>,
    /// Context window in tokens, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}
