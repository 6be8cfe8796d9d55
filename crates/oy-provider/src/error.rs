//! `ProviderError`: what went wrong talking to a model, classified by type
//! and status code (never by searching message text) so the retry gate and
//! the CLI can ask `is_retryable()` / `retry_after()`.

use std::time::Duration;

/// The class of a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Could not connect (refused, reset before a response, DNS, TLS).
    Connect,
    /// The request took longer than its timeout.
    Timeout,
    /// The stream went silent longer than the idle timeout.
    IdleTimeout,
    /// The stream ended before the answer was complete.
    StreamCut,
    /// The server answered with an HTTP error status.
    Status,
    /// The server sent something that does not follow its API.
    Protocol,
    /// The server sent more than oy accepts (a limit in [`crate::limits`]).
    LimitExceeded,
    /// The configuration cannot work (bad URL, key over plain HTTP…).
    Config,
}

/// A failed provider call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProviderError {
    kind: ErrorKind,
    status: Option<u16>,
    retry_after: Option<Duration>,
    message: String,
}

impl ProviderError {
    /// A failure of `kind` with a message for people (never a key, never
    /// request headers).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            status: None,
            retry_after: None,
            message: message.into(),
        }
    }

    /// An HTTP error status. `credential` names the key that was sent (for
    /// 401/403 messages), never its value.
    pub fn status(
        status: u16,
        retry_after: Option<Duration>,
        detail: &str,
        credential: Option<&str>,
    ) -> Self {
        Self::status_from(
            "the provider answered",
            status,
            retry_after,
            detail,
            credential,
        )
    }

    /// [`ProviderError::status`] with the lead-in naming who answered
    /// (`the Bedrock runtime at URL answered`), for backends that talk to
    /// more than one endpoint.
    pub(crate) fn status_from(
        lead: &str,
        status: u16,
        retry_after: Option<Duration>,
        detail: &str,
        credential: Option<&str>,
    ) -> Self {
        let mut message = format!("{lead} HTTP {status}");
        // The server's words stay on this one line: a body with line breaks
        // could otherwise print lines that look like oy's own (`hint: …`).
        let detail = detail.split_whitespace().collect::<Vec<_>>().join(" ");
        if !detail.is_empty() {
            message.push_str(": ");
            message.push_str(&detail);
        }
        if matches!(status, 401 | 403) {
            match credential {
                Some(name) => message.push_str(&format!(
                    " (the key sent was from {name}; check that it is valid for this server)"
                )),
                None => message.push_str(" (no key was sent; set one for this provider)"),
            }
        }
        Self {
            kind: ErrorKind::Status,
            status: Some(status),
            retry_after,
            message,
        }
    }

    /// The class.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The HTTP status, for [`ErrorKind::Status`].
    pub fn http_status(&self) -> Option<u16> {
        self.status
    }

    /// How long the server asked us to wait (`Retry-After`).
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }

    /// Transient failures: connection problems, timeouts, a cut stream,
    /// 408, 409, 429 and 5xx. Other 4xx, protocol errors, limits and
    /// configuration errors are not worth repeating.
    pub fn is_retryable(&self) -> bool {
        match self.kind {
            ErrorKind::Connect
            | ErrorKind::Timeout
            | ErrorKind::IdleTimeout
            | ErrorKind::StreamCut => true,
            ErrorKind::Status => self
                .status
                .is_some_and(|status| matches!(status, 408 | 409 | 429) || status >= 500),
            ErrorKind::Protocol | ErrorKind::LimitExceeded | ErrorKind::Config => false,
        }
    }

    /// The same error with a note appended (why it was not retried).
    pub fn with_note(mut self, note: &str) -> Self {
        self.message.push_str("; ");
        self.message.push_str(note);
        self
    }
}
