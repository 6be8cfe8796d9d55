//! `ScriptedProvider`: a provider that plays back answers written in
//! advance and records every request — for tests of anything that drives a
//! model (the retry gate, the agent loop, embedding programs).

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::error::ProviderError;
use crate::model::{Event, ModelInfo, Request};
use crate::provider::{BoxFuture, EventStream, Provider};
use crate::window::{ServerWindow, WindowSource};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum ScriptedReply {
    /// The request fails before any event.
    Fail(ProviderError),
    /// These items are streamed (an `Err` item breaks the stream there).
    Stream(Vec<Result<Event, ProviderError>>),
}

/// Plays back [`ScriptedReply`]s in order; when they run out, every
/// further request fails with a protocol error naming the script. Its
/// model list (one `scripted-model` with a 128 000-token window unless
/// [`ScriptedProvider::with_models`] names others) is also where
/// [`Provider::context_window`] finds a model's window.
#[derive(Debug)]
pub struct ScriptedProvider {
    replies: Mutex<VecDeque<ScriptedReply>>,
    requests: Mutex<Vec<Request>>,
    models: Vec<ModelInfo>,
}

impl Default for ScriptedProvider {
    fn default() -> Self {
        Self::new([])
    }
}

impl ScriptedProvider {
    /// A provider that will answer with `replies`, in order.
    pub fn new(replies: impl IntoIterator<Item = ScriptedReply>) -> Self {
        Self {
            replies: Mutex::new(replies.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
            models: vec![ModelInfo {
                id: "scripted-model".to_owned(),
                owned_by: None,
                context_window: Some(128_000),
            }],
        }
    }

    /// The same provider listing `models` instead (and reporting their
    /// windows from [`Provider::context_window`]).
    #[must_use]
    pub fn with_models(mut self, models: impl IntoIterator<Item = ModelInfo>) -> Self {
        self.models = models.into_iter().collect();
        self
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        "scripted"
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request.clone());
        let reply = self
            .replies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        Box::pin(async move {
            match reply {
                Some(ScriptedReply::Fail(error)) => Err(error),
                Some(ScriptedReply::Stream(items)) => {
                    let stream: EventStream = Box::pin(futures_util::stream::iter(items));
                    Ok(stream)
                }
                None => Err(ProviderError::new(
                    crate::ErrorKind::Protocol,
                    "the scripted provider has no more replies",
                )),
            }
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        let models = self.models.clone();
        Box::pin(async { Ok(models) })
    }

    /// The window of `model`'s entry in the scripted model list.
    fn context_window<'a>(
        &'a self,
        model: &'a str,
        _timeout: Duration,
    ) -> BoxFuture<'a, Option<ServerWindow>> {
        let window = self
            .models
            .iter()
            .find(|entry| entry.id == model)
            .and_then(|entry| entry.context_window)
            .filter(|&tokens| tokens > 0)
            .map(|tokens| ServerWindow::new(tokens, WindowSource::ModelList));
        Box::pin(std::future::ready(window))
    }
}
