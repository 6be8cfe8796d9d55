//! `Agent` and its builder: one session of a model working in a workspace
//! — the provider, the tools and their context, the transcript, the budget,
//! the event sink and (optionally) the session store it autosaves to.

use std::sync::Arc;

use oy_boundary::Workspace;
use oy_provider::{Provider, RetryPolicy};
use oy_tools::{
    Approver, Asker, ChangeJournal, EventSink, Ledger, Policy, Registry, ToolContext, ToolEvent,
    default_registry,
};

use crate::budget::{ContextBudget, FALLBACK_WINDOW, known_window};
use crate::error::AgentError;
use crate::events::{AgentEvent, AgentEventSink, NoAgentEvents, TokenUsage};
use crate::instructions::read_agents_md;
use crate::notes::ContextNote;
use crate::session::{SavedSession, SessionHeader, SessionStore, new_session_id};
use crate::transcript::{Entry, Transcript};
use crate::window::{WindowOrigin, WindowProbe};

/// Limits and knobs of the loop (the defaults are in docs/architecture.md).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentOptions {
    /// Model requests allowed in one turn (`--max-turns`).
    pub max_turns: u32,
    /// Consecutive tool-only answers allowed before the turn stops.
    pub churn_limit: u32,
    /// The same failing call this many times in a row stops the turn.
    pub repeat_limit: u32,
    /// The model's context window in tokens, when known from configuration.
    pub context_window: Option<u64>,
    /// Fraction of the window at which the transcript is compacted.
    pub compact_at: f64,
    /// Provider retry bounds.
    pub retry: RetryPolicy,
    /// Cap on output tokens per request.
    pub max_output_tokens: Option<u32>,
    /// Whether `AGENTS.md` at the workspace root is added to the instructions.
    pub read_agents_md: bool,
}

impl Default for AgentOptions {
    fn default() -> Self {
        Self {
            max_turns: 100,
            churn_limit: 40,
            repeat_limit: 3,
            context_window: None,
            compact_at: 0.85,
            retry: RetryPolicy::default(),
            max_output_tokens: None,
            read_agents_md: true,
        }
    }
}

/// Builds an [`Agent`].
#[must_use]
pub struct AgentBuilder {
    provider: Arc<dyn Provider>,
    model: String,
    workspace: Option<Arc<Workspace>>,
    policy: Policy,
    approver: Option<Arc<dyn Approver>>,
    asker: Option<Arc<dyn Asker>>,
    events: Arc<dyn AgentEventSink>,
    registry: Option<Registry>,
    configure: Option<Box<dyn FnOnce(ToolContext) -> ToolContext + Send>>,
    options: AgentOptions,
    store: Option<Arc<SessionStore>>,
    resume: Option<SavedSession>,
    checkpoints: Option<std::path::PathBuf>,
    journal: Option<std::path::PathBuf>,
}

impl AgentBuilder {
    /// Starts a builder for `model` on `provider`.
    pub fn new(provider: Arc<dyn Provider>, model: impl Into<String>) -> Self {
        Self {
            provider,
            model: model.into(),
            workspace: None,
            policy: Policy::new(oy_tools::Mode::Plan, false),
            approver: None,
            asker: None,
            events: Arc::new(NoAgentEvents),
            registry: None,
            configure: None,
            options: AgentOptions::default(),
            store: None,
            resume: None,
            checkpoints: None,
            journal: None,
        }
    }

    /// Records every change of several files before it lands, under `dir`
    /// (the frontend's private directory of journals, one subdirectory per
    /// workspace), and at build completes or undoes whole any change a
    /// process that died left half made (an `interrupted_change` event for
    /// each; docs/crash-safety.md).
    pub fn journal_in(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.journal = Some(dir.into());
        self
    }

    /// Keeps each turn's changes for undo under `dir` (an existing
    /// private directory holding every session's checkpoints; see
    /// [`crate::open_checkpoints`]). Without it nothing is kept.
    pub fn checkpoints_in(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.checkpoints = Some(dir.into());
        self
    }

    /// The workspace the tools work in (required).
    pub fn workspace(mut self, workspace: Arc<Workspace>) -> Self {
        self.workspace = Some(workspace);
        self
    }

    /// The safety mode and network switch (default: plan, non-interactive).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Who approves "ask" actions. Without one, "ask" means no.
    pub fn approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Who answers the `ask` tool.
    pub fn asker(mut self, asker: Arc<dyn Asker>) -> Self {
        self.asker = Some(asker);
        self
    }

    /// Where events go.
    pub fn events(mut self, events: Arc<dyn AgentEventSink>) -> Self {
        self.events = events;
        self
    }

    /// The tools (default: [`default_registry`]).
    pub fn registry(mut self, registry: Registry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Adjusts the tool context before the agent takes it (child
    /// environment, cancellation token, output cap, ledger sink).
    pub fn configure_tools(
        mut self,
        configure: impl FnOnce(ToolContext) -> ToolContext + Send + 'static,
    ) -> Self {
        self.configure = Some(Box::new(configure));
        self
    }

    /// Loop limits and knobs.
    pub fn options(mut self, options: AgentOptions) -> Self {
        self.options = options;
        self
    }

    /// Autosaves the session to `store` after every turn.
    pub fn session_store(mut self, store: Arc<SessionStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Continues a saved session. Its mode is not restored: the policy
    /// given to this builder applies. A session of another workspace is
    /// refused.
    pub fn resume(mut self, saved: SavedSession) -> Self {
        self.resume = Some(saved);
        self
    }

    /// Builds the agent and emits `session_started`.
    pub fn build(self) -> Result<Agent, AgentError> {
        let workspace = self
            .workspace
            .ok_or_else(|| AgentError::Build("the agent needs a workspace".to_owned()))?;
        let forwarder = Arc::new(ToolEventForwarder(Arc::clone(&self.events)));
        let mut tools =
            ToolContext::new(Arc::clone(&workspace), self.policy).with_events(forwarder);
        if let Some(approver) = self.approver {
            tools = tools.with_approver(approver);
        }
        if let Some(asker) = self.asker {
            tools = tools.with_asker(asker);
        }
        if let Some(configure) = self.configure {
            tools = configure(tools);
        }
        let root = workspace.root().display().to_string();
        let (transcript, history, header, resumed) = match self.resume {
            Some(saved) => {
                if saved.header.workspace != root {
                    return Err(AgentError::ForeignSession {
                        id: saved.header.id,
                        saved_in: saved.header.workspace,
                        root,
                    });
                }
                let transcript = Transcript::from_entries(saved.context).map_err(|error| {
                    AgentError::session(format!(
                        "session {} is damaged ({error}); start a new one",
                        saved.header.id
                    ))
                })?;
                tools = tools.with_state(saved.tool_state);
                (transcript, saved.history, saved.header, true)
            }
            None => (
                Transcript::new(),
                Vec::new(),
                SessionHeader::new(new_session_id(), root.clone()),
                false,
            ),
        };
        if let Some(dir) = &self.checkpoints {
            // Damaged or unreadable checkpoints never stop a session: it
            // goes on, and says its changes cannot be undone.
            match crate::undo::session_checkpoints(&tools, dir, &header.id) {
                Ok(checkpoints) => tools = tools.with_checkpoints(Arc::new(checkpoints)),
                Err(error) => self.events.emit(&AgentEvent::Error {
                    message: format!("this session's changes cannot be undone: {error}"),
                }),
            }
        }
        // The resumed session's unsaved turn, if its process died; from
        // now on every side effect is recorded beside the session first.
        let unsaved = match &self.store {
            Some(store) if resumed => store.unsaved_effects(&header.id),
            _ => Vec::new(),
        };
        if let Some(store) = &self.store {
            let sink = crate::interrupted::LedgerFile {
                store: Arc::clone(store),
                id: header.id.clone(),
            };
            tools = tools.with_ledger(Arc::new(Ledger::with_sink(Box::new(sink))));
        }
        let recovered = match &self.journal {
            Some(dir) => {
                let journal = ChangeJournal::for_workspace(dir, workspace.root());
                tools = tools.with_journal(Arc::new(journal));
                tools.recover_interrupted()
            }
            None => Vec::new(),
        };
        let (window, window_origin) = initial_window(self.options.context_window, &self.model);
        let agents_md = if self.options.read_agents_md {
            read_agents_md(&workspace)
        } else {
            None
        };
        let window_probe = if self.options.context_window.is_some() {
            WindowProbe::Settled
        } else {
            WindowProbe::NotAsked
        };
        let mut agent = Agent {
            provider: self.provider,
            model: self.model,
            registry: Arc::new(self.registry.unwrap_or_else(default_registry)),
            tools: Arc::new(tools),
            events: self.events,
            budget: ContextBudget::new(window, self.options.compact_at),
            options: self.options,
            agents_md,
            transcript,
            history,
            header,
            store: self.store,
            usage_total: TokenUsage::default(),
            compacted_weight: None,
            window_probe,
            window_origin,
            pending_notes: Vec::new(),
        };
        agent.emit(&AgentEvent::SessionStarted {
            session_id: agent.header.id.clone(),
            workspace: root,
            provider: agent.provider.name().to_owned(),
            model: agent.model.clone(),
            mode: agent.policy().mode.name().to_owned(),
            network: agent.policy().network.name().to_owned(),
            resumed,
        });
        for change in recovered {
            agent.emit(&AgentEvent::InterruptedChange(change));
        }
        agent.report_unsaved(unsaved);
        Ok(agent)
    }
}

/// Forwards the tools' events to the session's sink: they already carry
/// the provider's call id, so nothing is translated or remembered.
struct ToolEventForwarder(Arc<dyn AgentEventSink>);

impl EventSink for ToolEventForwarder {
    fn emit(&self, event: &ToolEvent) {
        self.0.emit(&AgentEvent::from(event.clone()));
    }
}

/// One session: a model, a workspace, tools, a transcript.
pub struct Agent {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) model: String,
    pub(crate) registry: Arc<Registry>,
    pub(crate) tools: Arc<ToolContext>,
    pub(crate) events: Arc<dyn AgentEventSink>,
    pub(crate) budget: ContextBudget,
    pub(crate) options: AgentOptions,
    pub(crate) agents_md: Option<String>,
    pub(crate) transcript: Transcript,
    /// Everything ever said, uncompacted, with full tool output: what the
    /// saved session keeps so compaction never loses text.
    pub(crate) history: Vec<Entry>,
    pub(crate) header: SessionHeader,
    pub(crate) store: Option<Arc<SessionStore>>,
    pub(crate) usage_total: TokenUsage,
    /// Transcript weight right after the last compaction: an automatic one
    /// waits until the transcript has grown again, so a window too small
    /// for the recent turns does not trigger a summary request every time.
    pub(crate) compacted_weight: Option<usize>,
    /// The model server's own word on its window, asked in the background.
    pub(crate) window_probe: WindowProbe,
    /// Where the budget's window came from.
    pub(crate) window_origin: WindowOrigin,
    /// Notes for the next turn's user message (`notes.rs`).
    pub(crate) pending_notes: Vec<ContextNote>,
}

/// The window before the server is asked, and where it came from.
fn initial_window(configured: Option<u64>, model: &str) -> (u64, WindowOrigin) {
    match (configured, known_window(model)) {
        (Some(window), _) => (window, WindowOrigin::Configured),
        (None, Some(window)) => (window, WindowOrigin::ModelTable),
        (None, None) => (FALLBACK_WINDOW, WindowOrigin::Default),
    }
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("session", &self.header.id)
            .field("provider", &self.provider.name())
            .field("model", &self.model)
            .field("entries", &self.transcript.len())
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.header.id
    }

    /// The model id.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Switches the model for later turns (a chat's `/model`).
    pub fn set_model(&mut self, model: impl Into<String>) {
        self.model = model.into();
        if self.options.context_window.is_none() {
            let (window, origin) = initial_window(None, &self.model);
            self.budget = ContextBudget::new(window, self.options.compact_at);
            self.window_origin = origin;
            self.window_probe = WindowProbe::NotAsked;
        }
    }

    /// The provider's short name.
    pub fn provider_name(&self) -> &str {
        self.provider.name()
    }

    /// The current policy.
    pub fn policy(&self) -> Policy {
        self.tools.policy()
    }

    /// Changes the mode or network switch for later turns (a chat's `/mode`).
    pub fn set_policy(&self, policy: Policy) {
        self.tools.set_policy(policy);
    }

    /// The working transcript (compacted).
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// Everything said in the session, uncompacted.
    pub fn history(&self) -> &[Entry] {
        &self.history
    }

    /// The tools' context (todos, ledger, cancellation token).
    pub fn tool_context(&self) -> &Arc<ToolContext> {
        &self.tools
    }

    /// The tool registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The context budget.
    pub fn budget(&self) -> &ContextBudget {
        &self.budget
    }

    /// Tokens used in the session so far.
    pub fn usage(&self) -> TokenUsage {
        self.usage_total
    }

    /// The system instructions the next request will carry.
    pub fn instructions(&self) -> String {
        crate::instructions::instructions(self.policy(), self.agents_md.as_deref())
    }

    /// Estimated tokens of the next request (instructions, tool schemas,
    /// transcript).
    pub fn context_tokens(&self) -> u64 {
        self.budget.estimate(self.request_bytes())
    }

    /// Forgets the conversation (a chat's `/clear`) and the notes queued
    /// for the next turn; the saved history keeps what was said. What the
    /// person allowed for the session goes with it: a fresh start asks
    /// again.
    pub fn clear(&mut self) {
        self.transcript.clear();
        self.pending_notes.clear();
        self.compacted_weight = None;
        self.tools.clear_session_allows();
    }

    /// The session as it would be saved now.
    pub fn snapshot(&self) -> SavedSession {
        let mut header = self.header.clone();
        header.model.clone_from(&self.model);
        header.provider = self.provider.name().to_owned();
        header.mode = self.policy().mode.name().to_owned();
        SavedSession {
            header,
            history: self.history.clone(),
            context: self.transcript.entries().to_vec(),
            tool_state: self.tools.snapshot_state(),
        }
    }

    /// Saves the session to its store now (it is also saved after every turn).
    pub async fn save(&mut self) -> Result<(), AgentError> {
        let Some(store) = self.store.clone() else {
            return Ok(());
        };
        self.header.touch();
        let snapshot = self.snapshot();
        // Saved: the turn's effects are in the session, not only in its
        // ledger (see `interrupted.rs`).
        tokio::task::spawn_blocking(move || {
            store.save(&snapshot)?;
            store.clear_ledger(&snapshot.header.id);
            Ok(())
        })
        .await
        .map_err(|error| AgentError::session(format!("saving the session failed: {error}")))?
    }

    pub(crate) fn emit(&self, event: &AgentEvent) {
        self.events.emit(event);
    }

    /// Bytes of the next request: instructions, offered tool schemas, and
    /// the transcript.
    pub(crate) fn request_bytes(&self) -> usize {
        self.fixed_bytes() + self.transcript.weight()
    }

    pub(crate) fn fixed_bytes(&self) -> usize {
        let schemas: usize = self
            .registry
            .specs(&self.tools)
            .iter()
            .map(|spec| {
                spec.name.len() + spec.description.len() + spec.parameters.to_string().len()
            })
            .sum();
        self.instructions().len() + schemas
    }
}
