//! `OpenAiResponsesProvider`: the OpenAI Responses API (`POST /responses`,
//! streamed) as a [`Provider`].
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
mod http;
mod request;
mod sse;

use std::collections::VecDeque;
use std::time::Duration;

use crate::error::{ErrorKind, ProviderError};
use crate::limits::MAX_RESPONSE_BYTES;
use crate::model::{Event, ModelInfo, Request};
use crate::provider::{BoxFuture, EventStream, Provider};
use crate::secret::Secret;

use decode::Decoder;
use sse::SseReader;

/// How to reach a Responses API server.
#[derive(Debug, Clone)]
pub struct OpenAiResponsesConfig {
    /// The API base, e.g. `https://api.openai.com/v1` (`/responses` and
    /// `/models` are appended).
    pub base_url: String,
    /// The key, sent as `Authorization: Bearer`; none (or empty) sends no
    /// `Authorization` header, for local servers.
    pub api_key: Option<Secret>,
    /// Where the key came from (`OPENAI_API_KEY`, a config entry), named in
    /// 401/403 messages instead of the key.
    pub key_source: Option<String>,
    /// Extra headers sent with every request (gateways, organisations).
    pub headers: Vec<(String, String)>,
    /// Time allowed to connect and receive the response headers.
    pub request_timeout: Duration,
    /// Longest silence tolerated inside a stream before it is cut.
    pub idle_timeout: Duration,
    /// Allow sending the key over plain `http://` to a non-loopback host.
    pub allow_insecure_http: bool,
    /// An explicit proxy URL. Proxy environment variables are ignored: the
    /// frontend resolves the environment, not this library.
    pub proxy: Option<String>,
}

impl OpenAiResponsesConfig {
    /// Defaults for `base_url`: no key, no extra headers, a 120 s request
    /// timeout and a 60 s idle timeout.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            key_source: None,
            headers: Vec::new(),
            request_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(60),
            allow_insecure_http: false,
            proxy: None,
        }
    }
}

/// A Responses API backend. Requests are stateless (`store: false`): the
/// whole conversation is sent each time, with encrypted reasoning echoed.
#[derive(Debug, Clone)]
pub struct OpenAiResponsesProvider {
    client: reqwest::Client,
    responses_url: reqwest::Url,
    models_url: reqwest::Url,
    credential: Option<String>,
    request_timeout: Duration,
    idle_timeout: Duration,
}

impl OpenAiResponsesProvider {
    /// Checks `config` and builds the HTTP client. Fails with
    /// [`ErrorKind::Config`] for a bad URL or header, or a key that would
    /// travel over plain HTTP to another machine.
    pub fn new(config: OpenAiResponsesConfig) -> Result<Self, ProviderError> {
        let base = config.base_url.trim_end_matches('/');
        let parse = |path: &str| {
            reqwest::Url::parse(&format!("{base}/{path}")).map_err(|error| {
                ProviderError::new(
                    ErrorKind::Config,
                    format!("invalid provider base URL: {error}"),
                )
            })
        };
        let responses_url = parse("responses")?;
        let models_url = parse("models")?;
        let key = config.api_key.as_ref().filter(|key| !key.is_empty());
        http::check_transport(&responses_url, key.is_some(), config.allow_insecure_http)?;
        let headers = http::default_headers(&config.headers, key)?;
        let mut builder = reqwest::Client::builder()
            .default_headers(headers)
            .connect_timeout(config.request_timeout)
            // A redirect could carry the key elsewhere; answer it as an error.
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy();
        if let Some(proxy) = &config.proxy {
            let proxy = reqwest::Proxy::all(proxy).map_err(|_| {
                ProviderError::new(ErrorKind::Config, "invalid proxy URL for the provider")
            })?;
            builder = builder.proxy(proxy);
        }
        let client = builder.build().map_err(|error| {
            ProviderError::new(
                ErrorKind::Config,
                format!("cannot build the HTTP client: {}", error.without_url()),
            )
        })?;
        Ok(Self {
            client,
            responses_url,
            models_url,
            credential: key.map(|_| {
                config
                    .key_source
                    .clone()
                    .unwrap_or_else(|| "the configured API key".to_owned())
            }),
            request_timeout: config.request_timeout,
            idle_timeout: config.idle_timeout,
        })
    }

    /// Sends a request and waits for the response headers.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        what: &str,
    ) -> Result<reqwest::Response, ProviderError> {
        let response = tokio::time::timeout(self.request_timeout, request.send())
            .await
            .map_err(|_| {
                ProviderError::new(
                    ErrorKind::Timeout,
                    format!("{what} got no answer within {:?}", self.request_timeout),
                )
            })?
            .map_err(|error| http::send_error(error, what))?;
        if response.status().is_success() {
            Ok(response)
        } else {
            Err(http::status_error(response, self.credential.as_deref()).await)
        }
    }

    async fn open(&self, request: &Request) -> Result<EventStream, ProviderError> {
        let body = serde_json::to_vec(&request::body(request)).map_err(|error| {
            ProviderError::new(
                ErrorKind::Config,
                format!("cannot encode the request: {error}"),
            )
        })?;
        let builder = self
            .client
            .post(self.responses_url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .body(body);
        let response = self.send(builder, "the Responses request").await?;
        let state = StreamState {
            reader: SseReader::new(response, self.idle_timeout),
            decoder: Decoder::default(),
            queued: VecDeque::new(),
            over: false,
        };
        Ok(Box::pin(futures_util::stream::unfold(
            state,
            StreamState::next,
        )))
    }

    async fn models(&self) -> Result<Vec<ModelInfo>, ProviderError> {
        let builder = self.client.get(self.models_url.clone());
        let mut response = self.send(builder, "listing models").await?;
        let mut body = Vec::new();
        loop {
            let chunk = tokio::time::timeout(self.idle_timeout, response.chunk())
                .await
                .map_err(|_| {
                    ProviderError::new(ErrorKind::IdleTimeout, "the model list stopped arriving")
                })?
                .map_err(|error| http::send_error(error, "listing models"))?;
            let Some(chunk) = chunk else { break };
            if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
                return Err(ProviderError::new(
                    ErrorKind::LimitExceeded,
                    format!("the model list exceeded {MAX_RESPONSE_BYTES} bytes"),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        parse_models(&body)
    }
}

/// `{"data":[{"id","owned_by"}…]}` as [`ModelInfo`]s, sorted by id.
fn parse_models(body: &[u8]) -> Result<Vec<ModelInfo>, ProviderError> {
    #[derive(serde::Deserialize)]
    struct List {
        data: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        id: String,
        #[serde(default)]
        owned_by: Option<String>,
        #[serde(default)]
        context_window: Option<u64>,
    }
    let list: List = serde_json::from_slice(body).map_err(|error| {
        ProviderError::new(
            ErrorKind::Protocol,
            format!("the model list is not the expected JSON ({error})"),
        )
    })?;
    let mut models: Vec<ModelInfo> = list
        .data
        .into_iter()
        .map(|entry| ModelInfo {
            id: entry.id,
            owned_by: entry.owned_by,
            context_window: entry.context_window,
        })
        .collect();
    models.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(models)
}

/// What the event stream carries between polls.
struct StreamState {
    reader: SseReader,
    decoder: Decoder,
    queued: VecDeque<Event>,
    /// Set after the last item (an error or the end).
    over: bool,
}

impl StreamState {
    async fn next(mut self) -> Option<(Result<Event, ProviderError>, Self)> {
        loop {
            if let Some(event) = self.queued.pop_front() {
                return Some((Ok(event), self));
            }
            if self.over || self.decoder.is_finished() {
                return None;
            }
            let item = match self.reader.next().await {
                Ok(Some(sse)) => self.decoder.decode(&sse.name, &sse.data),
                Ok(None) => Err(ProviderError::new(
                    ErrorKind::StreamCut,
                    "the response stream ended before response.completed",
                )),
                Err(error) => Err(error),
            };
            match item {
                Ok(events) => self.queued.extend(events),
                Err(error) => {
                    self.over = true;
                    return Some((Err(error), self));
                }
            }
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
}
