//! What every OpenAI-compatible backend shares: [`OpenAiConfig`], the HTTP
//! client built from it (rustls, no redirects, the key only where it
//! belongs), HTTP error mapping with `Retry-After`, the bounded SSE reader,
//! `GET /models`, and (`openai/probe.rs`) the quiet side requests
//! [`crate::window`] asks a server's own endpoints with.
//!
//! Why `reqwest` directly rather than `async-openai`'s client: its streams
//! go through `eventsource-stream`, which buffers an event without bound and
//! has no idle timeout, and it sends an empty `Bearer` header when there is
//! no key. oy needs all three under its own control (see [`crate::limits`]),
//! so requests and SSE framing are done here over the same `reqwest` that
//! `async-openai` is built on, with oy's own serde wire structs.

mod probe;
pub(crate) mod sse;

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;

use crate::error::{ErrorKind, ProviderError};
use crate::limits::MAX_RESPONSE_BYTES;
use crate::model::ModelInfo;
use crate::secret::Secret;

/// Largest error body read for a message; the rest is dropped.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// Longest server detail kept in an error message.
const MAX_ERROR_DETAIL_CHARS: usize = 500;

/// How to reach an OpenAI-compatible server. Resolved by the frontend from
/// flags, environment and config; this crate never reads them itself.
/// `Debug` shows extra header names only: their values may be credentials.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// The API root, e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:11434/v1`; paths such as `/chat/completions` are
    /// appended to it.
    pub base_url: String,
    /// The key; `None` or empty sends no `Authorization` header at all.
    pub api_key: Option<Secret>,
    /// Where the key came from (`OPENAI_API_KEY`, a config key…), named in
    /// 401/403 messages instead of the key.
    pub api_key_name: Option<String>,
    /// Extra headers sent with every request (gateways, organisations).
    pub extra_headers: Vec<(String, String)>,
    /// Longest wait for the response headers of a streamed request, and for
    /// the whole of a non-streamed one (`GET /models`).
    pub request_timeout: Duration,
    /// Longest silence inside a streamed body before it is cut.
    pub idle_timeout: Duration,
    /// Allow sending the key over plain `http://` to a host that is not
    /// loopback (otherwise refused as a configuration error).
    pub allow_insecure_key: bool,
    /// An explicit proxy URL for every request. Proxy environment variables
    /// are ignored: the frontend resolves the environment, not this library.
    pub proxy: Option<String>,
}

impl OpenAiConfig {
    /// A config for `base_url` with no key, no extra headers, no proxy, a
    /// 120 s request timeout and a 60 s idle timeout.
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            api_key_name: None,
            extra_headers: Vec::new(),
            request_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(60),
            allow_insecure_key: false,
            proxy: None,
        }
    }
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let header_names: Vec<&str> = self
            .extra_headers
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        f.debug_struct("OpenAiConfig")
            // A base URL may carry `user:password@`.
            .field("base_url", &oy_secrets::redact_userinfo(&self.base_url))
            .field("api_key", &self.api_key)
            .field("api_key_name", &self.api_key_name)
            .field("extra_headers", &header_names)
            .field("request_timeout", &self.request_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("allow_insecure_key", &self.allow_insecure_key)
            .field(
                "proxy",
                &self.proxy.as_deref().map(oy_secrets::redact_userinfo),
            )
            .finish()
    }
}

/// A checked config and the HTTP client built from it.
#[derive(Debug, Clone)]
pub(crate) struct OpenAiClient {
    http: reqwest::Client,
    base: String,
    /// The server's root: `base` without a trailing `/v1` (a proxy's path
    /// prefix kept), where servers put their own endpoints.
    origin: reqwest::Url,
    host: String,
    headers: HeaderMap,
    config: OpenAiConfig,
}

impl OpenAiClient {
    /// Checks `config` (URL, headers, key transport) and builds the client.
    pub(crate) fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        let url = reqwest::Url::parse(config.base_url.trim())
            .map_err(|_| config_error("the provider base_url is not a valid URL"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(config_error(
                "the provider base_url must be http:// or https://",
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(config_error(
                "the provider base_url must not carry credentials; set the key separately",
            ));
        }
        let host = url.host_str().unwrap_or_default().to_owned();
        let loopback = is_loopback(&url);
        let key = config.api_key.as_ref().filter(|key| !key.is_empty());
        if key.is_some() && url.scheme() == "http" && !loopback && !config.allow_insecure_key {
            return Err(config_error(
                "refusing to send the API key over plain http:// to a host that is not loopback; use https:// or set allow_insecure_key",
            ));
        }
        let mut headers = HeaderMap::new();
        for (name, value) in &config.extra_headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| config_error(format!("extra header name {name:?} is not valid")))?;
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| config_error(format!("extra header {name} has an invalid value")))?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        if let Some(key) = key {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                    config_error("the API key contains characters not allowed in a header")
                })?;
            value.set_sensitive(true);
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        let mut builder = reqwest::Client::builder()
            // An API endpoint has no business redirecting; following one
            // could carry the key elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.request_timeout.min(Duration::from_secs(30)))
            // Only an explicit proxy is used: a library reads no environment.
            .no_proxy();
        if let Some(proxy) = &config.proxy {
            let proxy = reqwest::Proxy::all(proxy.trim())
                .map_err(|_| config_error("the provider proxy is not a valid URL"))?;
            builder = builder.proxy(proxy);
        }
        let http = builder.build().map_err(|error| {
            config_error(format!(
                "cannot build the HTTP client: {}",
                error_without_url(&error)
            ))
        })?;
        Ok(Self {
            http,
            base: url.as_str().trim_end_matches('/').to_owned(),
            origin: probe::origin_of(&url),
            host,
            headers,
            config,
        })
    }

    /// The config it was built from.
    pub(crate) fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// True when talking to OpenAI's own endpoint.
    pub(crate) fn is_openai(&self) -> bool {
        self.host.eq_ignore_ascii_case("api.openai.com")
    }

    /// `base_url` + `path` (which starts with `/`).
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POSTs a JSON `body` to `path` expecting an event stream. Errors come
    /// back before any event: a status error, a connect error, or a
    /// timeout waiting for the headers.
    pub(crate) async fn post_stream(
        &self,
        path: &str,
        body: Vec<u8>,
    ) -> Result<sse::SseReader, ProviderError> {
        let request = self
            .http
            .post(self.url(path))
            .headers(self.headers.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .body(body);
        let response = self.send(request).await?;
        Ok(sse::SseReader::new(response, self.config.idle_timeout))
    }

    /// GETs `path` and returns its body (bounded), within the request
    /// timeout.
    pub(crate) async fn get_bytes(&self, path: &str) -> Result<Vec<u8>, ProviderError> {
        let request = self.http.get(self.url(path)).headers(self.headers.clone());
        let timeout = self.config.request_timeout;
        tokio::time::timeout(timeout, async {
            let mut response = self.send(request).await?;
            read_bounded(&mut response, MAX_RESPONSE_BYTES).await
        })
        .await
        .map_err(|_| timeout_error(timeout))?
    }

    /// `GET /models`, tolerating what compatible servers leave out.
    pub(crate) async fn list_models(&self) -> Result<Vec<ModelInfo>, ProviderError> {
        let body = self.get_bytes("/models").await?;
        parse_models(&body)
    }

    async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ProviderError> {
        let timeout = self.config.request_timeout;
        let mut response = tokio::time::timeout(timeout, request.send())
            .await
            .map_err(|_| timeout_error(timeout))?
            .map_err(|error| self.send_error(&error))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers(), SystemTime::now());
        let body = tokio::time::timeout(timeout, read_bounded(&mut response, MAX_ERROR_BODY_BYTES))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let detail = self.redact(&error_detail(&body));
        Err(ProviderError::status(
            status.as_u16(),
            retry_after,
            &detail,
            self.credential(),
        ))
    }

    /// What a 401/403 message names as the key's source: `None` when no key
    /// was sent.
    fn credential(&self) -> Option<&str> {
        self.config
            .api_key
            .as_ref()
            .filter(|key| !key.is_empty())
            .map(|_| {
                self.config
                    .api_key_name
                    .as_deref()
                    .unwrap_or("the configured API key")
            })
    }

    fn send_error(&self, error: &reqwest::Error) -> ProviderError {
        let kind = if error.is_timeout() {
            ErrorKind::Timeout
        } else {
            ErrorKind::Connect
        };
        let chain = self.redact(&error_without_url(error));
        ProviderError::new(
            kind,
            format!("could not reach the provider at {}: {chain}", self.base),
        )
    }

    /// Removes the key from text a server sent back (some echo it).
    fn redact(&self, text: &str) -> String {
        match self
            .config
            .api_key
            .as_ref()
            .filter(|key| key.expose().len() >= 4)
        {
            Some(key) => text.replace(key.expose(), "***"),
            None => text.to_owned(),
        }
    }
}

/// An error and its sources on one line, without the request URL.
pub(crate) fn error_without_url(error: &reqwest::Error) -> String {
    // `without_url` consumes the error; cut the URL out of the text instead
    // (it may carry a query string the user did not mean to show).
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text
            .replace(&format!(" for url ({url})"), "")
            .replace(url.as_str(), "");
    }
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

fn config_error(message: impl Into<String>) -> ProviderError {
    ProviderError::new(ErrorKind::Config, message)
}

fn timeout_error(timeout: Duration) -> ProviderError {
    ProviderError::new(
        ErrorKind::Timeout,
        format!(
            "the provider did not answer within {} s",
            timeout.as_secs_f32()
        ),
    )
}

/// `localhost` (and `*.localhost`, which resolves there too) or a loopback
/// IP address.
fn is_loopback(url: &reqwest::Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let name = bare.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
    }
}

/// Reads a body up to `limit` bytes; more is a [`ErrorKind::LimitExceeded`].
async fn read_bounded(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, ProviderError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|error| {
        ProviderError::new(
            ErrorKind::StreamCut,
            format!("the response broke: {}", error_without_url(&error)),
        )
    })? {
        if body.len() + chunk.len() > limit {
            return Err(ProviderError::new(
                ErrorKind::LimitExceeded,
                format!("the provider's response exceeded {limit} bytes"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// OpenAI's `retry-after-ms`, else `Retry-After` (seconds, possibly
/// fractional, or an HTTP date).
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    if let Some(ms) =
        header_str(headers, "retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header_str(headers, "retry-after")?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// The server's own explanation: `error.message` from a JSON error body,
/// else the body text, shortened.
fn error_detail(body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Envelope {
        error: Option<serde_json::Value>,
        message: Option<String>,
    }
    let text = String::from_utf8_lossy(body);
    let detail = match serde_json::from_slice::<Envelope>(body) {
        Ok(Envelope {
            error: Some(error), ..
        }) => match error {
            serde_json::Value::String(text) => text,
            other => other
                .get("message")
                .and_then(serde_json::Value::as_str)
                .map_or_else(|| other.to_string(), str::to_owned),
        },
        Ok(Envelope {
            message: Some(message),
            ..
        }) => message,
        _ => text.into_owned(),
    };
    let detail = detail.trim();
    match detail.char_indices().nth(MAX_ERROR_DETAIL_CHARS) {
        Some((cut, _)) => format!("{}…", &detail[..cut]),
        None => detail.to_owned(),
    }
}

/// Parses a `GET /models` body: `{"data": [{"id", "owned_by"?,
/// "context_length"? | "context_window"? | "max_model_len"?}]}`.
pub(crate) fn parse_models(body: &[u8]) -> Result<Vec<ModelInfo>, ProviderError> {
    #[derive(Deserialize)]
    struct List {
        data: Vec<Entry>,
    }
    #[derive(Deserialize)]
    struct Entry {
        id: String,
        #[serde(default)]
        owned_by: Option<String>,
        #[serde(default)]
        context_length: Option<u64>,
        #[serde(default)]
        context_window: Option<u64>,
        // vLLM's name for it.
        #[serde(default)]
        max_model_len: Option<u64>,
    }
    let list: List = serde_json::from_slice(body).map_err(|error| {
        ProviderError::new(
            ErrorKind::Protocol,
            format!("the model list is not valid: {error}"),
        )
    })?;
    Ok(list
        .data
        .into_iter()
        .map(|entry| ModelInfo {
            id: entry.id,
            owned_by: entry.owned_by,
            context_window: entry
                .context_window
                .or(entry.context_length)
                .or(entry.max_model_len),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(
        base_url: &str,
        key: Option<&str>,
        allow_insecure_key: bool,
    ) -> Result<OpenAiClient, ProviderError> {
        let mut config = OpenAiConfig::new(base_url);
        config.api_key = key.map(Secret::new);
        config.allow_insecure_key = allow_insecure_key;
        OpenAiClient::new(config)
    }

    #[test]
    fn key_over_plain_http_only_to_loopback() {
        let key = Some("sk-test");
        assert!(client("http://127.0.0.1:8080/v1", key, false).is_ok());
        assert!(client("http://[::1]:8080/v1", key, false).is_ok());
        assert!(client("http://localhost:11434/v1", key, false).is_ok());
        assert!(client("http://api.localhost:11434/v1", key, false).is_ok());
        assert!(client("http://example.com/v1", None, false).is_ok());
        assert!(client("http://example.com/v1", key, true).is_ok());
        let error = client("http://example.com/v1", key, false).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config);
        assert!(client("ftp://example.com/", None, false).is_err());
    }

    #[test]
    fn invalid_proxy_is_a_config_error_and_debug_hides_its_password() {
        let mut config = OpenAiConfig::new("https://api.openai.com/v1");
        config.proxy = Some("http://user:hunter2@proxy.example:3128".to_owned());
        assert!(!format!("{config:?}").contains("hunter2"));
        assert!(OpenAiClient::new(config.clone()).is_ok());
        config.proxy = Some("not a url".to_owned());
        let error = OpenAiClient::new(config).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config);
    }

    #[test]
    fn retry_after_reads_ms_then_seconds() {
        let now = SystemTime::now();
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(7)));
        headers.insert("retry-after", HeaderValue::from_static("1.5"));
        assert_eq!(
            retry_after(&headers, now),
            Some(Duration::from_millis(1500))
        );
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_millis(250)));
    }

    #[test]
    fn detail_prefers_the_error_message() {
        assert_eq!(
            error_detail(br#"{"error":{"message":"slow down"}}"#),
            "slow down"
        );
        assert_eq!(error_detail(br#"{"error":"overloaded"}"#), "overloaded");
        assert_eq!(error_detail(b" plain text "), "plain text");
    }
}
