//! Asking the model server for its context window without making anyone
//! wait: the question goes out when the first turn starts, beside the
//! first model request, and its answer replaces the budget's window once
//! it is in. A transcript only nears the window after several requests,
//! so the answer is there when it matters; a server that cannot tell (or
//! a configured window) leaves the budget as the model table made it.
//!
//! Before a turn sends anything, a prompt that cannot fit the window is
//! refused ([`crate::AgentError::PromptTooLarge`]). Only then is the answer
//! waited for (it may name a larger window); a prompt that fits never waits.

use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use oy_provider::{Provider, ServerWindow};
use tokio::task::JoinHandle;

use crate::error::AgentError;

/// How long the server may take to answer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Where the budget's window came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WindowOrigin {
    /// The configuration named it.
    Configured,
    /// oy's table of well-known models.
    ModelTable,
    /// The model server's own answer.
    Server,
    /// Nothing knew it: the fallback.
    Default,
}

impl WindowOrigin {
    /// The words `PromptTooLarge` uses (docs/events.md).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Configured => "configured",
            Self::ModelTable => "the model table",
            Self::Server => "the server",
            Self::Default => "default",
        }
    }
}

/// Where the question stands.
#[derive(Debug, Default)]
pub(crate) enum WindowProbe {
    /// Not asked yet (or the model changed).
    #[default]
    NotAsked,
    /// Asked; the answer comes on this task.
    Asking(JoinHandle<Option<ServerWindow>>),
    /// Answered, or nothing to ask (a configured window).
    Settled,
}

impl WindowProbe {
    /// Asks `provider` about `model` if not asked yet. Needs a Tokio
    /// runtime, as the agent's turns do.
    pub(crate) fn ask(&mut self, provider: &Arc<dyn Provider>, model: &str) {
        if matches!(self, Self::NotAsked) {
            let (provider, model) = (Arc::clone(provider), model.to_owned());
            *self = Self::Asking(tokio::spawn(async move {
                provider.context_window(&model, PROBE_TIMEOUT).await
            }));
        }
    }

    /// Waits for the answer (at most a little past the probe's own
    /// timeout), once.
    pub(crate) async fn settle(&mut self) -> Option<ServerWindow> {
        let Self::Asking(task) = self else {
            return None;
        };
        let answer = tokio::time::timeout(PROBE_TIMEOUT + Duration::from_secs(1), task)
            .await
            .ok()
            .and_then(Result::ok)
            .flatten();
        *self = Self::Settled;
        answer
    }

    /// The answer, once, when it has come in.
    pub(crate) fn answer(&mut self) -> Option<ServerWindow> {
        let Self::Asking(task) = self else {
            return None;
        };
        if !task.is_finished() {
            return None;
        }
        let answer = task.now_or_never().and_then(Result::ok).flatten();
        *self = Self::Settled;
        answer
    }
}

impl Drop for WindowProbe {
    fn drop(&mut self) {
        if let Self::Asking(task) = self {
            task.abort();
        }
    }
}

impl crate::Agent {
    /// Starts asking the server about the window (once per model).
    pub(crate) fn ask_window(&mut self) {
        self.window_probe.ask(&self.provider, &self.model);
    }

    /// Takes the server's answer into the budget once it has come in.
    pub(crate) fn refresh_window(&mut self) {
        if let Some(server) = self.window_probe.answer() {
            self.apply_server_window(server);
        }
    }

    fn apply_server_window(&mut self, server: ServerWindow) {
        let window = server.applied_to(self.budget.window());
        if window != self.budget.window() {
            self.window_origin = WindowOrigin::Server;
        }
        self.budget = self.budget.with_window(window);
    }

    /// Refuses `prompt` when the instructions, the tool definitions and
    /// the prompt (estimated like every request) exceed the window, before
    /// anything is sent or recorded. Over the window known now, it waits
    /// for the server's answer first, so a server running the model with
    /// a larger window is not refused wrongly; a cancellation meanwhile
    /// lets the turn start (and stop as cancelled).
    pub(crate) async fn check_prompt_fits(&mut self, prompt: &str) -> Result<(), AgentError> {
        let prompt_tokens = self.budget.estimate(self.fixed_bytes() + prompt.len());
        self.refresh_window();
        if prompt_tokens <= self.budget.window() {
            return Ok(());
        }
        let cancel = self.tools.cancel_token().clone();
        match cancel.run_until_cancelled(self.window_probe.settle()).await {
            None => return Ok(()),
            Some(Some(server)) => self.apply_server_window(server),
            Some(None) => {}
        }
        // The fallback is a guess: only a window something stated refuses.
        if prompt_tokens <= self.budget.window() || self.window_origin == WindowOrigin::Default {
            return Ok(());
        }
        Err(AgentError::PromptTooLarge {
            prompt_tokens,
            window: self.budget.window(),
            source: self.window_origin.name().to_owned(),
        })
    }
}
