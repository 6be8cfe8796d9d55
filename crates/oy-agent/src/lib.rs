//! The oy agent: one session of a model working in a workspace.
//!
//! It owns: the [`Transcript`] (user text, assistant text and tool calls,
//! tool results, summaries — each call paired with exactly one result),
//! the tool loop of a [`Agent::turn`] and its fail-closed guards (repeated
//! failures, tool-only churn, a request cap), the system instructions
//! (with the workspace's `AGENTS.md`, and [`INIT_PROMPT`], the turn that
//! writes it), the [`ContextBudget`] and
//! compaction, saved sessions ([`SessionStore`]), the [`AgentEvent`]s a
//! frontend or an embedding program receives, and what a person adds to a
//! turn besides their words: files their `@path` mentions attach
//! ([`Agent::prepare`], a [`Prompt`]) and [`ContextNote`]s about what
//! happened since the last turn. Build one with [`AgentBuilder`].
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
mod interrupted;
mod mentions;
mod notes;
mod prompt;
mod session;
mod transcript;
mod turn;
mod undo;
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
pub use interrupted::interrupted_turn_message;
pub use mentions::{
    Completion, CompletionCandidate, Mention, MentionError, attach_mentions, complete_mention,
    find_mentions,
};
pub use notes::{ContextNote, ShellStatus};
pub use prompt::{Attachment, AttachmentKind, Prompt};
pub use session::{SESSION_VERSION, SavedSession, SessionHeader, SessionStore, new_session_id};
pub use transcript::{Entry, PairingError, Transcript};
pub use turn::TurnOutcome;
pub use undo::{CHECKPOINTS_DIR, open_checkpoints, session_checkpoints};
