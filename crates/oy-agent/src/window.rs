//! Asking the model server for its context window without making anyone
//! wait: the question goes out when the first turn starts, beside the
//! first model request, and its answer replaces the budget's window once
//! it is in. A transcript only nears the window after several requests,
//! so the answer is there when it matters; a server that cannot tell (or
//! a configured window) leaves the budget as the model table made it.

use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use oy_provider::{Provider, ServerWindow};
use tokio::task::JoinHandle;

/// How long the server may take to answer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

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
            let window = server.applied_to(self.budget.window());
            self.budget = self.budget.with_window(window);
        }
    }
}
