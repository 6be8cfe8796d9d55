//! The oy agent: one session of a model working in a workspace.
//!
//! It owns: the [`Transcript`] (user text, assistant text and tool calls,
//! tool results, summaries — each call paired with exactly one result),
//! the tool loop of a [`Agent::turn`] and its fail-closed guards (repeated
//! failures, tool-only churn, a request cap), the system instructions
//! (with the workspace's `AGENTS.md`, and [`INIT_PROMPT`], the turn that
//! writes it), the [`ContextBudget`] and
//! compaction, saved sessions ([`SessionStore`]), and the [`AgentEvent`]s a
//! frontend or an embedding program receives. Build one with
//! [`AgentBuilder`].
//!
//! It is the only crate that knows both `oy-tools` and `oy-provider`: it
//! converts tool specs into wire-neutral schemas and model calls into tool
//! invocations.
//!
//! It must never: read environment variables, print, touch a file except
//! through `oy-boundary`, replay a prompt after a side effect (the ledger
//! decides), run a tool the policy does not offer, or leave a tool call
//! without its result.

mod agent;
mod budget;
mod compaction;
mod error;
mod events;
mod init;
mod instructions;
mod session;
mod transcript;
mod turn;
mod window;

pub use agent::{Agent, AgentBuilder, AgentOptions};
pub use budget::{ContextBudget, FALLBACK_WINDOW, known_window};
pub use error::AgentError;
pub use events::{
    AgentEvent, AgentEventSink, ApprovalEvent, ApprovalStage, CallStatus, CollectedEvents,
    NoAgentEvents, OutputStream, TokenUsage, ToolCallFinished, ToolCallStarted, ToolOutputDelta,
    TurnStop,
};
pub use init::INIT_PROMPT;
pub use instructions::{AGENTS_MD_CAP, instructions, read_agents_md};
pub use session::{SESSION_VERSION, SavedSession, SessionHeader, SessionStore, new_session_id};
pub use transcript::{Entry, PairingError, Transcript};
pub use turn::TurnOutcome;
