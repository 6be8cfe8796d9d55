//! The tools oy offers a model, and the rules they run under.
//!
//! It owns: tool specs (JSON Schema from the argument structs via
//! `schemars`), the [`Registry`] that runs a call end to end, the file tools
//! (`list`, `read`, `search`, `sloc`, `write`, `replace`, `patch`, `move`,
//! `remove`, `todo`, `ask`), the process tools (`bash`, `exec`,
//! `exec_command`, `write_stdin`), `webfetch`, user tools from
//! `tools.json` and the [`TrustStore`] rule for which of them
//! [`load_user_tools`] adds, the shared output [`limit`]er, the approval
//! [`Policy`] (safety modes) and the [`Ceiling`] a workspace may put on it,
//! the [`Approver`]/[`Asker`] traits a frontend implements, the
//! [`SessionScope`]s a person allowed for the session (in memory only), the
//! side-effect [`Ledger`], structured [`ToolEvent`]s, and
//! [`redact_secrets`] for output that ran outside the sandbox.
//!
//! Every path goes through `oy-boundary`; every side effect passes
//! [`Invocation::authorize`] (policy, approval with an exact preview, ledger
//! entry) before it happens.
//!
//! The [`sandbox`] module confines every process a tool starts (Landlock,
//! seccomp, a supervisor that outlives none of its descendants); it runs
//! through the embedding program re-executed as a launcher.
//!
//! It must never: touch a file except through `oy-boundary` (the one
//! exception, [`private_dir`], creates and tightens a state directory
//! outside any workspace), know about
//! model providers or wire formats, read environment variables, print, or
//! panic on a model's input — a failure is a `TOOL_ERROR` with a `RECOVERY`.

mod approval;
mod args;
mod cancel;
mod child_env;
mod context;
mod diff;
mod error;
mod events;
mod journal;
mod ledger;
pub mod limit;
mod output;
mod policy;
mod process;
mod protected;
mod pty;
mod redact;
mod registry;
pub mod sandbox;
mod session_allow;
mod shown;
mod spec;
mod state;
pub mod tools;
mod trust;
mod user_tools;

pub use approval::{Answer, ApprovalRequest, Approver, Asker, Preview, Refusal, RefusedBy, Reply};
pub use args::{parse_args, parse_json};
pub use cancel::CancelToken;
pub use child_env::{ChildEnv, is_credential_like};
pub use context::{Invocation, ToolContext};
pub use diff::unified_diff;
pub use error::ToolError;
pub use events::{
    ApprovalEvent, ApprovalStage, CallStatus, EventSink, NoEvents, OutputStream, ToolCallFinished,
    ToolCallStarted, ToolEvent, ToolOutputDelta,
};
pub use journal::{ChangeJournal, JOURNAL_DIR, JournalError, Recovered, RecoveryOutcome};
pub use ledger::{JsonlSink, Ledger, LedgerEntry, LedgerSink};
pub use limit::{Limit, Limited};
pub use output::{ChangeSummary, ToolOutput};
pub use policy::{
    Ceiling, CeilingReport, Decision, Lowering, Mode, Network, Overreach, Policy, Privileges,
    UnknownName,
};
pub use protected::protect_workspace;
pub use pty::ChildKiller;
pub use redact::{Redacted, redact_secrets};
pub use registry::{Registry, Tool, ToolSource};
pub use sandbox::{Sandbox, SandboxInputs, SandboxSetting};
pub use session_allow::{SessionGrant, SessionScope};
pub use spec::{Effect, LazySpec, ToolSpec, compact_schema};
pub use state::{TodoItem, TodoStatus, ToolState, content_digest};
pub use tools::default_registry;
pub use trust::{
    FileTrustStore, GlobalManifest, MemoryTrustStore, PrivateDirError, TrustError, TrustRequest,
    TrustStore, WORKSPACE_MANIFEST, WorkspaceTools, load_user_tools, private_dir,
};
pub use user_tools::{ManifestError, UserTool, UserToolDef, example_arguments, parse_manifest};
