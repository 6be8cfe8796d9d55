//! [`OpenAiChatProvider`]: the Chat Completions backend for OpenAI and the
//! many servers that copy its API (vLLM, llama.cpp, Ollama, LM Studio,
//! LiteLLM, gateways). `POST {base}/chat/completions` with `stream: true`
//! and usage requested in the final chunk; the body is oy's own serde
//! structs, so what goes on the wire is exactly what the tests pin.

mod decode;
mod wire;

use std::collections::VecDeque;

use futures_util::stream;

use crate::error::{ErrorKind, ProviderError};
use crate::model::{Event, ModelInfo, Request};
use crate::openai::sse::SseReader;
use crate::openai::{OpenAiClient, OpenAiConfig};
use crate::provider::{BoxFuture, EventStream, Provider};

use decode::ChatDecoder;
use wire::ChatRequest;

/// The Chat Completions backend.
#[derive(Debug, Clone)]
pub struct OpenAiChatProvider {
    client: OpenAiClient,
}

impl OpenAiChatProvider {
    /// Checks `config` and builds the client. Fails with
    /// [`ErrorKind::Config`] for a bad URL or header, or a key that would go
    /// over plain `http://` to a host that is not loopback.
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        Ok(Self {
            client: OpenAiClient::new(config)?,
        })
    }

    /// The config it was built from.
    pub fn config(&self) -> &OpenAiConfig {
        self.client.config()
    }

    async fn open(&self, request: &Request) -> Result<EventStream, ProviderError> {
        let body = serde_json::to_vec(&ChatRequest::new(request, self.client.is_openai()))
            .map_err(|error| {
                ProviderError::new(
                    ErrorKind::Config,
                    format!("cannot encode the request: {error}"),
                )
            })?;
        let reader = self.client.post_stream("/chat/completions", body).await?;
        Ok(Box::pin(events(reader)))
    }
}

impl Provider for OpenAiChatProvider {
    fn name(&self) -> &str {
        "openai-chat"
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        Box::pin(self.open(request))
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(self.client.list_models())
    }
}

/// Reading state: the SSE reader, the decoder, events decoded but not yet
/// yielded, the error that ends the stream, and whether it has ended.
struct State {
    reader: SseReader,
    decoder: ChatDecoder,
    pending: VecDeque<Event>,
    error: Option<ProviderError>,
    ended: bool,
}

/// The answer as a stream of events; the first error ends it.
fn events(
    reader: SseReader,
) -> impl futures_core::Stream<Item = Result<Event, ProviderError>> + Send {
    let state = State {
        reader,
        decoder: ChatDecoder::default(),
        pending: VecDeque::new(),
        error: None,
        ended: false,
    };
    stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.pending.pop_front() {
                return Some((Ok(event), state));
            }
            if let Some(error) = state.error.take() {
                return Some((Err(error), state));
            }
            if state.ended {
                return None;
            }
            if let Err(error) = step(&mut state).await {
                // Events decoded before the failure still go out first.
                state.ended = true;
                state.error = Some(error);
            }
        }
    })
}

/// Reads one SSE event into `pending`, or marks the end.
async fn step(state: &mut State) -> Result<(), ProviderError> {
    if state.decoder.is_complete() {
        // Anything after `[DONE]` is ignored; the connection is dropped.
        state.ended = true;
        return Ok(());
    }
    match state.reader.next_event().await? {
        Some(event) => state.decoder.data(&event.data, &mut state.pending),
        None => {
            state.ended = true;
            state.decoder.eof(&mut state.pending)
        }
    }
}
