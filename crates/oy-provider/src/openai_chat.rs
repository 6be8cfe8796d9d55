//! [`OpenAiChatProvider`]: the Chat Completions backend for OpenAI and the
//! many servers that copy its API (vLLM, llama.cpp, Ollama, LM Studio,
//! LiteLLM, gateways). `POST {base}/chat/completions` with `stream: true`
//! and usage requested in the final chunk; the body is oy's own serde
//! structs, so what goes on the wire is exactly what the tests pin.

mod decode;
mod wire;

use std::collections::VecDeque;
use std::time::Duration;

use crate::error::{ErrorKind, ProviderError};
use crate::model::{Event, ModelInfo, Request};
use crate::openai::sse::SseReader;
use crate::openai::{OpenAiClient, OpenAiConfig};
use crate::provider::{BoxFuture, EventStream, Provider};
use crate::pump::{self, Step};
use crate::window::{self, ServerWindow};

use decode::ChatDecoder;
use wire::request_body;

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
        let body = serde_json::to_vec(&request_body(request, self.client.is_openai())).map_err(
            |error| {
                ProviderError::new(
                    ErrorKind::Config,
                    format!("cannot encode the request: {error}"),
                )
            },
        )?;
        let reader = self.client.post_stream("/chat/completions", body).await?;
        Ok(Box::pin(pump::events(State {
            reader,
            decoder: ChatDecoder::default(),
        })))
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

    fn context_window<'a>(
        &'a self,
        model: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Option<ServerWindow>> {
        Box::pin(window::probe(&self.client, model, timeout))
    }
}

/// Reading state: the SSE reader and the decoder.
struct State {
    reader: SseReader,
    decoder: ChatDecoder,
}

impl Step for State {
    /// Reads one SSE event; the answer is complete at `[DONE]` (anything
    /// after it is ignored and the connection dropped) or at the wire's end.
    async fn step(&mut self, out: &mut VecDeque<Event>) -> Result<bool, ProviderError> {
        if self.decoder.is_complete() {
            return Ok(false);
        }
        match self.reader.next_event().await? {
            Some(event) => self.decoder.data(&event.data, out).map(|()| true),
            None => self.decoder.eof(out).map(|()| false),
        }
    }
}
