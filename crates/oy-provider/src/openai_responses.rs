//! `OpenAiResponsesProvider`: the OpenAI Responses API (`POST /responses`,
//! streamed) as a [`Provider`], over the shared OpenAI-compatible client
//! ([`OpenAiConfig`], its HTTP error mapping and bounded SSE reader).
//!
//! The stream goes through `reqwest` directly (the client async-openai is
//! built on) rather than async-openai's byot `create_stream`, because for
//! this backend async-openai would: retry 429/5xx itself inside its tower
//! layer (the side-effect ledger must be the only one deciding replays);
//! drop the `Retry-After` header when it turns a status into an error;
//! parse SSE with no bound on one event and queue events on an unbounded
//! channel (so [`crate::limits`] could not be enforced while reading); have
//! no idle timeout; and send an empty `Bearer` header without a key. The
//! request and event types are our own serde JSON either way.

mod decode;
mod request;

use std::collections::VecDeque;
use std::time::Duration;

use crate::error::{ErrorKind, ProviderError};
use crate::model::{Event, ModelInfo, Request};
use crate::openai::sse::SseReader;
use crate::openai::{OpenAiClient, OpenAiConfig};
use crate::provider::{BoxFuture, EventStream, Provider};
use crate::pump::{self, Step};
use crate::window::{self, ServerWindow};

use decode::Decoder;

/// A Responses API backend. Requests are stateless (`store: false`): the
/// whole conversation is sent each time, with encrypted reasoning echoed.
#[derive(Debug, Clone)]
pub struct OpenAiResponsesProvider {
    client: OpenAiClient,
}

impl OpenAiResponsesProvider {
    /// Checks `config` and builds the HTTP client. Fails with
    /// [`ErrorKind::Config`] for a bad URL, header or proxy, or a key that
    /// would travel over plain HTTP to another machine.
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        Ok(Self {
            client: OpenAiClient::new(config)?,
        })
    }

    async fn open(&self, request: &Request) -> Result<EventStream, ProviderError> {
        let body = serde_json::to_vec(&request::body(request)).map_err(|error| {
            ProviderError::new(
                ErrorKind::Config,
                format!("cannot encode the request: {error}"),
            )
        })?;
        let reader = self.client.post_stream("/responses", body).await?;
        Ok(Box::pin(pump::events(State {
            reader,
            decoder: Decoder::default(),
        })))
    }

    /// `GET /models`, sorted by id.
    async fn models(&self) -> Result<Vec<ModelInfo>, ProviderError> {
        let mut models = self.client.list_models().await?;
        models.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(models)
    }
}

/// Reading state: the SSE reader and the decoder.
struct State {
    reader: SseReader,
    decoder: Decoder,
}

impl Step for State {
    /// Reads one SSE event; the answer is complete at `response.completed`
    /// (or `response.incomplete`); a wire that ends before that is cut.
    async fn step(&mut self, out: &mut VecDeque<Event>) -> Result<bool, ProviderError> {
        if self.decoder.is_finished() {
            return Ok(false);
        }
        match self.reader.next_event().await? {
            Some(sse) => {
                let events = self
                    .decoder
                    .decode(sse.event.as_deref().unwrap_or_default(), &sse.data)?;
                out.extend(events);
                Ok(!self.decoder.is_finished())
            }
            None => Err(ProviderError::new(
                ErrorKind::StreamCut,
                "the response stream ended before response.completed",
            )),
        }
    }
}

impl Provider for OpenAiResponsesProvider {
    fn name(&self) -> &str {
        "openai-responses"
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        Box::pin(self.open(request))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(self.models())
    }

    fn context_window<'a>(
        &'a self,
        model: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Option<ServerWindow>> {
        Box::pin(window::probe(&self.client, model, timeout))
    }
}
