//! `ToolContext` (what every call can reach: workspace, policy, approver,
//! ledger, events, session state) and `Invocation` (one call, and the
//! `authorize` gate every mutating tool passes before it acts).

use std::cell::Cell;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use oy_boundary::{Workspace, WorkspacePath};
use oy_checkpoint::Checkpoints;
use serde_json::Value;

use crate::approval::{Answer, ApprovalRequest, Approver, Asker, Preview, Refusal, RefusedBy};
use crate::cancel::CancelToken;
use crate::child_env::ChildEnv;
use crate::diff::{DiffWriter, LazyDiff};
use crate::error::ToolError;
use crate::events::{
    ApprovalEvent, ApprovalStage, EventSink, NoEvents, OutputStream, ToolEvent, ToolOutputDelta,
};
use crate::journal::{ChangeJournal, Recovered};
use crate::ledger::Ledger;
use crate::limit::Limit;
use crate::policy::{Decision, Policy};
use crate::process::live::LiveSink;
use crate::pty::PtySessions;
use crate::sandbox::{Launch, Launched, Sandbox};
use crate::session_allow::{SessionAllows, SessionGrant, SessionScope, Subject};
use crate::spec::Effect;
use crate::state::ToolState;

/// Everything a tool call can reach. One per session; shared by calls.
pub struct ToolContext {
    workspace: Arc<Workspace>,
    policy: Mutex<Policy>,
    approver: Option<Arc<dyn Approver>>,
    asker: Option<Arc<dyn Asker>>,
    ledger: Arc<Ledger>,
    events: Arc<dyn EventSink>,
    state: Mutex<ToolState>,
    output_limit: Limit,
    child_env: ChildEnv,
    cancel: CancelToken,
    /// What every child process runs under.
    sandbox: Arc<Sandbox>,
    /// What the person allowed for the rest of the session (in memory
    /// only, never saved with it: see `session_allow.rs`).
    session_allows: SessionAllows,
    /// The shell, found once (see [`Self::shell`]).
    shell: std::sync::OnceLock<std::ffi::OsString>,
    /// Where each turn's changes are kept for undo (none: not kept).
    checkpoints: Option<Arc<Checkpoints>>,
    /// Where a change of several files is recorded before it lands (none:
    /// not recorded; see `journal.rs`).
    journal: Option<Arc<ChangeJournal>>,
    /// Live `exec_command` sessions; dropping the context kills them all.
    /// Declared after `sandbox` so they die before its temporary
    /// directory is removed.
    pty_sessions: PtySessions,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("root", &self.workspace.root())
            .field("policy", &self.policy())
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context with no approver, no asker, an empty ledger and no events.
    pub fn new(workspace: Arc<Workspace>, policy: Policy) -> Self {
        Self {
            workspace,
            policy: Mutex::new(policy),
            approver: None,
            asker: None,
            ledger: Arc::new(Ledger::new()),
            events: Arc::new(NoEvents),
            state: Mutex::new(ToolState::default()),
            output_limit: Limit::default(),
            child_env: ChildEnv::default(),
            cancel: CancelToken::new(),
            sandbox: Arc::new(Sandbox::default()),
            session_allows: SessionAllows::default(),
            shell: std::sync::OnceLock::new(),
            checkpoints: None,
            journal: None,
            pty_sessions: PtySessions::default(),
        }
    }

    /// The shell `bash` and `exec_command` run: the first `bash` on the
    /// child's `PATH` outside the workspace, by its absolute path, looked
    /// up once per session, so no file put in the workspace later (on a
    /// `PATH` directory or not) can stand in for it. `bash` (looked up at
    /// spawn) when there is none, so the spawn reports it missing.
    pub(crate) fn shell(&self) -> std::ffi::OsString {
        self.shell
            .get_or_init(|| {
                self.program_outside("bash")
                    .map_or_else(|| "bash".into(), std::ffi::OsString::from)
            })
            .clone()
    }

    /// The git oy itself runs (checkpoint snapshots): like the shell, the
    /// first on the child's `PATH` outside the workspace, as an absolute
    /// path, so a command can never plant the git oy runs unsandboxed.
    pub fn git_program(&self) -> Option<std::path::PathBuf> {
        self.program_outside("git")
    }

    /// `name` in the first absolute `PATH` directory outside the root that
    /// holds an executable of that name.
    fn program_outside(&self, name: &str) -> Option<std::path::PathBuf> {
        let root = crate::protected::canonical(self.workspace.root());
        self.child_path_dirs()
            .iter()
            .filter(|dir| !dir.starts_with(&root))
            .map(|dir| dir.join(name))
            .filter(|candidate| crate::sandbox::is_executable(candidate))
            .map(crate::protected::canonical)
            .find(|program| !program.starts_with(&root))
    }

    /// Canonical absolute directories of the child's `PATH`, as they are
    /// now (a link or directory made since is seen).
    pub(crate) fn child_path_dirs(&self) -> Vec<std::path::PathBuf> {
        let path = self
            .child_env
            .vars()
            .iter()
            .rev()
            .find(|(name, _)| name == "PATH")
            .map(|(_, value)| value.clone())
            .unwrap_or_default();
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute())
            .map(crate::protected::canonical)
            .collect()
    }

    /// Sets who approves "ask" actions (an interactive frontend).
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Sets who answers the `ask` tool.
    pub fn with_asker(mut self, asker: Arc<dyn Asker>) -> Self {
        self.asker = Some(asker);
        self
    }

    /// Shares a ledger (the provider's retry gate reads the same one).
    pub fn with_ledger(mut self, ledger: Arc<Ledger>) -> Self {
        self.ledger = ledger;
        self
    }

    /// Sends tool events to `events`.
    pub fn with_events(mut self, events: Arc<dyn EventSink>) -> Self {
        self.events = events;
        self
    }

    /// Starts from saved session state.
    pub fn with_state(self, state: ToolState) -> Self {
        *self.state() = state;
        self
    }

    /// Caps model-visible output (default 64 KiB).
    pub fn with_output_limit(mut self, limit: Limit) -> Self {
        self.output_limit = limit;
        self
    }

    /// Sets the environment child processes get (see [`ChildEnv::filtered`]).
    pub fn with_child_env(mut self, env: ChildEnv) -> Self {
        self.child_env = env;
        self.shell = std::sync::OnceLock::new();
        self
    }

    /// Keeps every file change and (in git) every command's changes in
    /// `checkpoints` before they happen (docs/undo.md).
    pub fn with_checkpoints(mut self, checkpoints: Arc<Checkpoints>) -> Self {
        self.checkpoints = Some(checkpoints);
        self
    }

    /// Records every change of several files in `journal` before it lands,
    /// so one interrupted half way is completed or undone whole at the
    /// next start ([`Self::recover_interrupted`]).
    pub fn with_journal(mut self, journal: Arc<ChangeJournal>) -> Self {
        self.journal = Some(journal);
        self
    }

    /// The journal changes are recorded in, if any.
    pub fn journal(&self) -> Option<&ChangeJournal> {
        self.journal.as_deref()
    }

    /// Completes or undoes, whole, every change a process that died left
    /// half made in this workspace (nothing without a journal). The
    /// workspace gets the protected paths first, so putting files back is
    /// refused wherever a file tool would be. A frontend calls this once
    /// at start, before the first tool call, and shows what it returns.
    pub fn recover_interrupted(&self) -> Vec<Recovered> {
        let Some(journal) = &self.journal else {
            return Vec::new();
        };
        crate::protected::protect_workspace(&self.workspace, self.sandbox.private_dirs());
        journal.recover(&self.workspace)
    }

    /// The checkpoints changes are kept in, if any.
    pub fn checkpoints(&self) -> Option<&Arc<Checkpoints>> {
        self.checkpoints.as_ref()
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Runs every child process under `sandbox` (see [`Sandbox::resolve`]).
    /// Without one, children run unconfined in their own process group.
    pub fn with_sandbox(mut self, sandbox: Arc<Sandbox>) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The sandbox child processes run under.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// `launch` as the command to spawn: wrapped in the sandbox, with the
    /// network allowed only when the policy's network switch is `allow`.
    pub(crate) fn launch(&self, launch: Launch) -> std::io::Result<Launched> {
        let network = self.policy().network == crate::policy::Network::Allow;
        self.sandbox.wrap(launch, self.workspace.root(), network)
    }

    /// One line naming the sandbox a command would run under now
    /// (`sandbox: full, workspace-write, network off`).
    pub fn sandbox_note(&self) -> String {
        let network = self.policy().network == crate::policy::Network::Allow;
        self.sandbox.describe(network)
    }

    /// The environment for child processes.
    pub fn child_env(&self) -> &ChildEnv {
        &self.child_env
    }

    /// Shares a cancellation token with the frontend (Ctrl-C handling).
    pub fn with_cancel(mut self, cancel: CancelToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The token a running tool checks to stop early.
    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    /// The policy.
    pub fn policy(&self) -> Policy {
        *self.policy.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the policy for later calls (a chat's `/mode`, a research-only
    /// `/ask` turn). A call already past its `authorize` is not affected.
    pub fn set_policy(&self, policy: Policy) {
        *self.policy.lock().unwrap_or_else(PoisonError::into_inner) = policy;
    }

    /// What the person allowed for the rest of the session by answering
    /// "always" (a chat's `/permissions`), in the order given.
    pub fn session_allows(&self) -> Vec<SessionScope> {
        self.session_allows.list()
    }

    /// Forgets every session permission: the next call each one covered
    /// asks again (a chat's `/clear`).
    pub fn clear_session_allows(&self) {
        self.session_allows.clear();
    }

    /// The ledger.
    pub fn ledger(&self) -> &Arc<Ledger> {
        &self.ledger
    }

    /// The session state (read records, todos).
    pub fn state(&self) -> MutexGuard<'_, ToolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A copy of the session state, for saving.
    pub fn snapshot_state(&self) -> ToolState {
        self.state().clone()
    }

    /// The PTY sessions `exec_command` started and `write_stdin` drives.
    /// A handle that kills every PTY session's process group, for a
    /// frontend that must exit without dropping the context (a second
    /// Ctrl-C).
    pub fn child_killer(&self) -> crate::pty::ChildKiller {
        self.pty_sessions.killer()
    }

    pub(crate) fn pty_sessions(&self) -> &PtySessions {
        &self.pty_sessions
    }

    pub(crate) fn output_limit(&self) -> Limit {
        self.output_limit
    }

    pub(crate) fn asker(&self) -> Option<&Arc<dyn Asker>> {
        self.asker.as_ref()
    }

    pub(crate) fn emit(&self, event: &ToolEvent) {
        self.events.emit(event);
    }

    /// Whether anyone would see a change's diff (see
    /// [`EventSink::wants_diffs`]).
    pub(crate) fn wants_diffs(&self) -> bool {
        self.events.wants_diffs()
    }

    pub(crate) fn begin_call<'a>(
        &'a self,
        call_id: &'a str,
        tool: &'a str,
        args: &'a Value,
    ) -> Invocation<'a> {
        Invocation {
            ctx: self,
            tool,
            call_id,
            args,
            side_effect_recorded: Cell::new(false),
            refusal: std::cell::RefCell::new(None),
            cancelled: Cell::new(false),
            changes: std::cell::RefCell::new(Vec::new()),
        }
    }
}

/// One tool call in progress.
pub struct Invocation<'a> {
    ctx: &'a ToolContext,
    tool: &'a str,
    /// The provider's id for the call: the events, the ledger and the
    /// transcript all use it.
    call_id: &'a str,
    args: &'a Value,
    side_effect_recorded: Cell<bool>,
    refusal: std::cell::RefCell<Option<Refusal>>,
    /// Set when [`Self::authorize`] refused because the turn was cancelled.
    cancelled: Cell<bool>,
    /// The paths the call's file changes touch (from `effect_of`): kept
    /// in the checkpoint once the change is authorized.
    changes: std::cell::RefCell<Vec<WorkspacePath>>,
}

impl LiveSink for Invocation<'_> {
    fn output(&self, stream: OutputStream, text: String, skipped_bytes: u64) {
        self.ctx.emit(&ToolEvent::ToolOutput(ToolOutputDelta {
            call_id: self.call_id.to_owned(),
            tool: self.tool.to_owned(),
            stream,
            text,
            skipped_bytes,
        }));
    }
}

impl Invocation<'_> {
    /// The diff the `tool_call_finished` event carries, or `None` when
    /// the context's sink would drop it (see [`EventSink::wants_diffs`]):
    /// then it is never made.
    pub(crate) fn event_diff<F: Fn(&mut DiffWriter)>(&self, diff: LazyDiff<F>) -> Option<String> {
        self.ctx.wants_diffs().then(|| diff.for_event())
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        self.tool
    }

    /// The context.
    pub fn ctx(&self) -> &ToolContext {
        self.ctx
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        self.ctx.workspace()
    }

    /// The provider's id for the call.
    pub fn call_id(&self) -> &str {
        self.call_id
    }

    /// True once the call passed [`Self::authorize`] for a side effect
    /// (the ledger holds an attempt under its id).
    pub(crate) fn side_effect_recorded(&self) -> bool {
        self.side_effect_recorded.get()
    }

    /// A note naming the sandbox rule a failed command most likely ran
    /// into (see `docs/sandbox.md`), or `None`.
    pub(crate) fn explain_refusal(&self, stderr: &str, cwd: &std::path::Path) -> Option<String> {
        let ctx = self.ctx;
        if ctx.sandbox.level() == crate::sandbox::Level::None {
            return None;
        }
        let network = ctx.policy().network == crate::policy::Network::Allow;
        let root = ctx.workspace.root();
        crate::sandbox::explain_refusal(stderr, root, cwd, network)
    }

    /// True when [`Self::authorize`] refused the call because the turn was
    /// cancelled.
    pub(crate) fn was_cancelled(&self) -> bool {
        self.cancelled.get()
    }

    /// Set when the mode said "ask" and the answer was a bare no (the
    /// person declined without a reason, or there was no one to ask).
    pub(crate) fn refusal(&self) -> Option<Refusal> {
        self.refusal.borrow().clone()
    }

    /// Notes the paths a file change will touch, for the checkpoint.
    pub(crate) fn will_change(&self, paths: Vec<WorkspacePath>) {
        self.changes.borrow_mut().extend(paths);
    }

    /// Keeps what the change or command is about to alter (docs/undo.md).
    /// A file change whose old state cannot be kept does not happen.
    fn checkpoint(&self, effect: Effect) -> Result<(), ToolError> {
        let Some(checkpoints) = self.ctx.checkpoints.as_ref() else {
            return Ok(());
        };
        let changes = self.changes.borrow();
        if !changes.is_empty() {
            return checkpoints
                .before_change(self.ctx.workspace(), &changes)
                .map_err(|error| {
                    ToolError::failed(
                        format!("the change was not made: its undo checkpoint could not be saved ({error})"),
                        "tell the user; undo needs oy's data directory to be writable",
                    )
                });
        }
        if effect == Effect::Process {
            checkpoints.before_command(self.ctx.workspace());
        }
        Ok(())
    }

    fn refused(&self, by: RefusedBy, hint: String) {
        *self.refusal.borrow_mut() = Some(Refusal { by, hint });
    }

    /// Refuses now, before any expensive work, a call whose `effect`
    /// [`Self::authorize`] would refuse without asking anyone (the mode
    /// forbids it, or it asks and no one can answer). A change that turns
    /// out to need more (the command approval) is still checked then.
    pub fn precheck(&self, effect: Effect, summary: &str) -> Result<(), ToolError> {
        let policy = self.ctx.policy();
        match policy.decide(effect) {
            Decision::Allow => Ok(()),
            Decision::Ask if self.ctx.approver.is_some() => Ok(()),
            Decision::Ask | Decision::Deny => {
                self.authorize(effect, summary, || Preview::Summary(summary.to_owned()))
            }
        }
    }

    /// The gate every side effect passes: applies the policy, asks the
    /// approver when the mode says "ask" (showing `preview`), and records the
    /// attempt in the ledger before returning `Ok`. After `Ok` the tool must
    /// act; after `Err` it must not. `preview` is only built when someone
    /// is asked.
    pub fn authorize(
        &self,
        effect: Effect,
        summary: impl Into<String>,
        preview: impl FnOnce() -> Preview,
    ) -> Result<(), ToolError> {
        self.authorize_as(&Subject::Other, effect, summary, preview)
    }

    /// [`Self::authorize`] for a call a session permission can cover
    /// (`subject`): when the mode says "ask", a remembered scope that covers
    /// it approves without asking (a "deny" stays a deny), and otherwise
    /// the request offers the scope `subject` allows, remembered on an
    /// "always" answer.
    pub(crate) fn authorize_as(
        &self,
        subject: &Subject,
        effect: Effect,
        summary: impl Into<String>,
        preview: impl FnOnce() -> Preview,
    ) -> Result<(), ToolError> {
        let summary = summary.into();
        let policy = self.ctx.policy();
        let denied = |reason: String| ToolError::Denied {
            tool: self.tool.to_owned(),
            reason,
            hint: policy.hint_for(effect),
        };
        let approval = |stage| self.approval_event(stage, &summary, None);
        let cancelled = || {
            self.cancelled.set(true);
            ToolError::Denied {
                tool: self.tool.to_owned(),
                reason: "the turn was cancelled".to_owned(),
                hint: "stop here and tell the user what was done so far".to_owned(),
            }
        };
        if self.ctx.cancel.is_cancelled() {
            approval(ApprovalStage::Denied);
            return Err(cancelled());
        }
        let decision = policy.decide(effect);
        let remembered = (decision == Decision::Ask)
            .then(|| self.ctx.session_allows.covering(self.tool, effect, subject))
            .flatten();
        match decision {
            Decision::Allow => {}
            Decision::Ask if remembered.is_some() => {
                let grant = remembered.map(|scope| SessionGrant {
                    scope,
                    added: false,
                });
                self.approval_event(ApprovalStage::Given, &summary, grant);
            }
            Decision::Deny => {
                approval(ApprovalStage::Denied);
                return Err(denied(format!(
                    "mode `{}` does not allow this",
                    policy.mode
                )));
            }
            Decision::Ask => {
                let Some(approver) = self.ctx.approver.as_ref() else {
                    self.refused(RefusedBy::NoOneToAsk, policy.hint_for(effect));
                    approval(ApprovalStage::Denied);
                    return Err(denied(format!(
                        "mode `{}` asks before this ({summary}) and there is no one to ask (non-interactive)",
                        policy.mode
                    )));
                };
                approval(ApprovalStage::Asked);
                let request = ApprovalRequest {
                    tool: self.tool.to_owned(),
                    effect,
                    summary: summary.clone(),
                    preview: preview(),
                    session_scope: subject.offer(self.tool, effect),
                };
                let reply = approver.reply(&request);
                if reply.answer == Answer::Deny {
                    approval(ApprovalStage::Denied);
                    let said = reply
                        .reason
                        .as_deref()
                        .map(str::trim)
                        .filter(|r| !r.is_empty());
                    let Some(said) = said else {
                        self.refused(RefusedBy::Person, policy.hint_for(effect));
                        return Err(ToolError::Denied {
                            tool: self.tool.to_owned(),
                            reason: "the user declined".to_owned(),
                            hint:
                                "ask the user what they want instead, or try a different approach"
                                    .to_owned(),
                        });
                    };
                    // A no with a reason is guidance: the turn goes on and
                    // the model gets the person's words.
                    return Err(ToolError::Denied {
                        tool: self.tool.to_owned(),
                        reason: "the user declined".to_owned(),
                        hint: format!(
                            "the user said: \"{said}\" — do not retry the same call; follow what they said"
                        ),
                    });
                }
                // A Ctrl-C while the person was deciding wins over a late yes.
                if self.ctx.cancel.is_cancelled() {
                    approval(ApprovalStage::Denied);
                    return Err(cancelled());
                }
                let added = (reply.answer == Answer::ApproveForSession)
                    .then_some(request.session_scope)
                    .flatten();
                if let Some(scope) = &added {
                    self.ctx.session_allows.remember(scope.clone());
                }
                let grant = added.map(|scope| SessionGrant { scope, added: true });
                self.approval_event(ApprovalStage::Given, &summary, grant);
            }
        }
        if effect.is_side_effect() {
            self.checkpoint(effect)?;
            self.ctx
                .ledger
                .record_attempt(self.call_id, self.tool, self.args);
            self.side_effect_recorded.set(true);
        }
        Ok(())
    }

    /// Emits an approval event for this call.
    fn approval_event(&self, stage: ApprovalStage, summary: &str, session: Option<SessionGrant>) {
        self.ctx.emit(&ToolEvent::Approval(ApprovalEvent {
            call_id: self.call_id.to_owned(),
            tool: self.tool.to_owned(),
            stage,
            summary: summary.to_owned(),
            session,
        }));
    }
}
