//! HTTP plumbing for the Responses backend: the client, the key-over-plain-
//! HTTP check, and turning transport errors and error statuses into
//! [`ProviderError`]s. Private and self-contained, so it can merge with the
//! shared OpenAI module later.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};

use crate::error::{ErrorKind, ProviderError};
use crate::secret::Secret;

/// How much of an error body is read for its message.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// How much of an error body's text goes into a message.
const MAX_DETAIL_CHARS: usize = 500;

/// Refuses a key sent in clear text to anything but this machine.
pub(super) fn check_transport(
    url: &reqwest::Url,
    has_key: bool,
    allow_insecure_http: bool,
) -> Result<(), ProviderError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if !has_key || allow_insecure_http || is_loopback(url) => Ok(()),
        "http" => Err(ProviderError::new(
            ErrorKind::Config,
            format!(
                "refusing to send an API key over plain http:// to {}; use https:// or allow insecure HTTP explicitly",
                url.host_str().unwrap_or("the server")
            ),
        )),
        other => Err(ProviderError::new(
            ErrorKind::Config,
            format!("unsupported URL scheme {other:?} for the provider; use https:// or http://"),
        )),
    }
}

fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let name = host.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
    }
}

/// The headers every request carries: the caller's extras, then
/// `Authorization` when there is a (non-empty) key.
pub(super) fn default_headers(
    extra: &[(String, String)],
    key: Option<&Secret>,
) -> Result<HeaderMap, ProviderError> {
    let mut headers = HeaderMap::new();
    for (name, value) in extra {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            ProviderError::new(ErrorKind::Config, format!("invalid header name {name:?}"))
        })?;
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            ProviderError::new(
                ErrorKind::Config,
                format!("invalid value for header {name}"),
            )
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    if let Some(key) = key.filter(|key| !key.is_empty()) {
        let mut value =
            HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                ProviderError::new(
                    ErrorKind::Config,
                    "the API key holds characters that cannot go in a header",
                )
            })?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    Ok(headers)
}

/// A transport failure before a response arrived.
pub(super) fn send_error(error: reqwest::Error, what: &str) -> ProviderError {
    let kind = if error.is_timeout() {
        ErrorKind::Timeout
    } else {
        ErrorKind::Connect
    };
    ProviderError::new(kind, format!("{what} failed: {}", error.without_url()))
}

/// The error for a non-success response, with `Retry-After` and the
/// server's message (never request headers, never the key).
pub(super) async fn status_error(
    mut response: reqwest::Response,
    credential: Option<&str>,
) -> ProviderError {
    let status = response.status().as_u16();
    let retry_after = retry_after(response.headers());
    let mut body = Vec::new();
    while body.len() < MAX_ERROR_BODY_BYTES {
        match tokio::time::timeout(Duration::from_secs(10), response.chunk()).await {
            Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(MAX_ERROR_BODY_BYTES);
    ProviderError::status(status, retry_after, &detail(&body), credential)
}

/// `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as an HTTP
/// date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(ms) = text("retry-after-ms").and_then(|value| value.trim().parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    let value = text(RETRY_AFTER.as_str())?.trim();
    match value.parse::<f64>() {
        Ok(secs) => Duration::try_from_secs_f64(secs).ok(),
        Err(_) => httpdate::parse_http_date(value)
            .ok()?
            .duration_since(std::time::SystemTime::now())
            .ok(),
    }
}

/// The human part of an error body: OpenAI's `{"error":{"message"}}` when
/// present, else the start of the text.
pub(super) fn detail(body: &[u8]) -> String {
    let parsed = serde_json::from_slice::<serde_json::Value>(body).ok();
    let message = parsed.as_ref().and_then(|value| {
        let error = value.get("error").unwrap_or(value);
        error
            .get("message")
            .and_then(serde_json::Value::as_str)
            .or_else(|| error.as_str())
    });
    let text = match message {
        Some(message) => message.to_owned(),
        None => String::from_utf8_lossy(body).into_owned(),
    };
    let text = text.trim();
    match text.char_indices().nth(MAX_DETAIL_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> reqwest::Url {
        reqwest::Url::parse(text).unwrap()
    }

    #[test]
    fn key_over_plain_http_only_to_loopback() {
        assert!(check_transport(&url("http://127.0.0.1:8080/v1"), true, false).is_ok());
        assert!(check_transport(&url("http://[::1]:8080/v1"), true, false).is_ok());
        assert!(check_transport(&url("http://localhost:11434/v1"), true, false).is_ok());
        assert!(check_transport(&url("http://example.com/v1"), false, false).is_ok());
        assert!(check_transport(&url("http://example.com/v1"), true, true).is_ok());
        let error = check_transport(&url("http://example.com/v1"), true, false).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config);
        assert!(check_transport(&url("ftp://example.com/"), false, false).is_err());
    }

    #[test]
    fn retry_after_reads_ms_then_seconds() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        headers.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn detail_prefers_the_error_message() {
        assert_eq!(detail(br#"{"error":{"message":"slow down"}}"#), "slow down");
        assert_eq!(detail(b" plain text "), "plain text");
    }
}
