//! SDK failures as [`ProviderError`]s, classified by the SDK's error type
//! and the HTTP status (never by message text): service exceptions keep
//! their status (throttling 429, unavailable 503, internal 500, access
//! denied 403, validation 400), dispatch failures become `Connect` or
//! `Timeout`, a connection that breaks mid-stream is a `StreamCut`, and an
//! event stream that cannot be decoded is a `Protocol` error (the same
//! bytes would come back on a retry).
//!
//! Every message is one line built from `Display` texts: who was asked,
//! the status, the AWS error code and message, or the innermost cause of a
//! transport failure. Never `Debug` of SDK types or `DisplayErrorContext`,
//! which carry whole responses, headers and nested SDK structures.

use std::error::Error;
use std::fmt::Debug;
use std::time::Duration;

use aws_sdk_bedrockruntime::config::http::HttpResponse;
use aws_sdk_bedrockruntime::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_bedrockruntime::operation::converse_stream::ConverseStreamError;
use aws_sdk_bedrockruntime::types::error::ConverseStreamOutputError;

use crate::error::{ErrorKind, ProviderError};

/// Names the credential in 401/403 messages (never its value).
const CREDENTIAL: &str = "the AWS credential chain";

/// How much of a cause or an AWS message a message keeps: enough for an
/// IAM denial naming its action and resource, not a whole response body.
const MAX_TEXT_CHARS: usize = 300;

/// A failure of the ConverseStream call itself (before any event); `who`
/// names the runtime (`the Bedrock runtime at URL`).
pub(crate) fn from_send(
    error: SdkError<ConverseStreamError, HttpResponse>,
    who: &str,
) -> ProviderError {
    match error {
        SdkError::ServiceError(context) => {
            let status = context.raw().status().as_u16();
            let retry_after = retry_after(context.raw());
            let error = context.into_err();
            let status = if status >= 400 {
                status
            } else {
                send_status(&error)
            };
            answered(who, status, retry_after, &error)
        }
        other => transport(other, who),
    }
}

/// A failure of a whole call (Converse, ListFoundationModels,
/// ListAsyncInvokes): service errors keep their HTTP status, the rest as
/// for ConverseStream.
pub(crate) fn from_call<E>(error: SdkError<E, HttpResponse>, who: &str) -> ProviderError
where
    E: Error + ProvideErrorMetadata + 'static,
{
    match error {
        SdkError::ServiceError(context) => {
            let status = context.raw().status().as_u16();
            let retry_after = retry_after(context.raw());
            answered(who, status, retry_after, context.err())
        }
        other => transport(other, who),
    }
}

/// A failure while reading the event stream.
pub(crate) fn from_stream<R>(error: SdkError<ConverseStreamOutputError, R>) -> ProviderError
where
    R: Debug + 'static,
{
    match error {
        SdkError::ServiceError(context) => {
            let error = context.into_err();
            match stream_exception(&error) {
                Some((status, name)) => {
                    // Exception frames name their type in a header the
                    // error metadata does not carry.
                    let detail = match detail(&error) {
                        text if text.is_empty() => name.to_owned(),
                        text if error.code().is_none() => format!("{name}: {text}"),
                        text => text,
                    };
                    ProviderError::status_from(
                        "the Bedrock stream reported",
                        status,
                        None,
                        &detail,
                        None,
                    )
                }
                None => ProviderError::new(
                    ErrorKind::Protocol,
                    format!("the Bedrock stream reported an error: {}", detail(&error)),
                ),
            }
        }
        // Bytes that do not decode: bad checksums, impossible lengths, a
        // body that ended by HTTP's own framing inside a frame (garbage
        // whose length prefix promises more than came), payloads that are
        // not the event they claim. The server would send the same again.
        SdkError::ResponseError(_) => ProviderError::new(
            ErrorKind::Protocol,
            format!(
                "Bedrock sent an event stream oy cannot decode: {}",
                cause(&error)
            ),
        ),
        // The connection broke while the body was read: a cut, worth a retry.
        SdkError::DispatchFailure(_) => ProviderError::new(
            ErrorKind::StreamCut,
            format!("the Bedrock stream broke: {}", cause(&error)),
        ),
        other => transport(other, "the Bedrock stream"),
    }
}

/// `WHO answered HTTP STATUS: Code: message`, with the credential named on
/// 401/403.
fn answered(
    who: &str,
    status: u16,
    retry_after: Option<Duration>,
    error: &impl ProvideErrorMetadata,
) -> ProviderError {
    ProviderError::status_from(
        &format!("{who} answered"),
        status,
        retry_after,
        &detail(error),
        Some(CREDENTIAL),
    )
}

/// Construction, timeout, dispatch and unreadable-response failures (and
/// anything new).
fn transport<E, R>(error: SdkError<E, R>, who: &str) -> ProviderError
where
    E: Error + 'static,
    R: Debug + 'static,
{
    let cause = cause(&error);
    let (kind, message) = match &error {
        SdkError::ConstructionFailure(_) => (
            ErrorKind::Config,
            format!("cannot build a request for {who}: {cause}"),
        ),
        SdkError::TimeoutError(_) => (
            ErrorKind::Timeout,
            format!("{who} did not answer in time: {cause}"),
        ),
        SdkError::DispatchFailure(failure) if failure.is_timeout() => {
            (ErrorKind::Timeout, format!("cannot reach {who}: {cause}"))
        }
        SdkError::DispatchFailure(failure) if failure.is_user() => (
            ErrorKind::Config,
            format!("cannot send a request to {who}: {cause}"),
        ),
        SdkError::DispatchFailure(_) => {
            (ErrorKind::Connect, format!("cannot reach {who}: {cause}"))
        }
        _ => (
            ErrorKind::Protocol,
            format!("{who} sent a response oy cannot read: {cause}"),
        ),
    };
    ProviderError::new(kind, message)
}

/// The innermost cause of `error`, in plain words on one bounded line: an
/// operating-system error by its kind (`connection refused`), anything
/// else by its own text (`failed to lookup address information: …`,
/// `invalid peer certificate: …`). The outer layers only say "dispatch
/// failure", "io error", "client error (Connect)".
pub(crate) fn cause(error: &(dyn Error + 'static)) -> String {
    let mut innermost = error;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    let text = match innermost.downcast_ref::<std::io::Error>() {
        Some(io) if io.raw_os_error().is_some() => io.kind().to_string(),
        _ => innermost.to_string(),
    };
    one_line(&text)
}

/// `Code: message`, as AWS reports it.
fn detail(error: &impl ProvideErrorMetadata) -> String {
    let text = match (error.code(), error.message()) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code.to_owned(),
        (None, Some(message)) => message.to_owned(),
        (None, None) => String::new(),
    };
    one_line(&text)
}

/// `text` with runs of whitespace (newlines too) made one space, cut to
/// [`MAX_TEXT_CHARS`].
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &joined[..at]),
        None => joined,
    }
}

/// The documented status of each exception, for when the raw one is missing.
fn send_status(error: &ConverseStreamError) -> u16 {
    match error {
        ConverseStreamError::ValidationException(_) => 400,
        ConverseStreamError::AccessDeniedException(_) => 403,
        ConverseStreamError::ResourceNotFoundException(_) => 404,
        ConverseStreamError::ModelTimeoutException(_) => 408,
        ConverseStreamError::ModelErrorException(_)
        | ConverseStreamError::ModelStreamErrorException(_) => 424,
        ConverseStreamError::ThrottlingException(_)
        | ConverseStreamError::ModelNotReadyException(_) => 429,
        ConverseStreamError::ServiceUnavailableException(_) => 503,
        _ => 500,
    }
}

/// Exception events inside the stream carry no HTTP status: use each one's
/// documented status, and its name. An unknown exception is a protocol
/// error.
fn stream_exception(error: &ConverseStreamOutputError) -> Option<(u16, &'static str)> {
    match error {
        ConverseStreamOutputError::ValidationException(_) => Some((400, "ValidationException")),
        ConverseStreamOutputError::ModelStreamErrorException(_) => {
            Some((424, "ModelStreamErrorException"))
        }
        ConverseStreamOutputError::ThrottlingException(_) => Some((429, "ThrottlingException")),
        ConverseStreamOutputError::InternalServerException(_) => {
            Some((500, "InternalServerException"))
        }
        ConverseStreamOutputError::ServiceUnavailableException(_) => {
            Some((503, "ServiceUnavailableException"))
        }
        _ => None,
    }
}

/// `Retry-After` in seconds, when sent.
fn retry_after(response: &HttpResponse) -> Option<Duration> {
    response
        .headers()
        .get("retry-after")
        .and_then(|value| value.trim().parse::<u64>().ok())
        .map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_and_multi_line_texts_become_one_bounded_line() {
        assert_eq!(one_line("a\n  b\tc "), "a b c");
        let long = "x".repeat(MAX_TEXT_CHARS + 50);
        let cut = one_line(&long);
        assert_eq!(cut.chars().count(), MAX_TEXT_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn an_os_error_is_named_by_its_kind() {
        let refused = std::io::Error::from_raw_os_error(111);
        assert_eq!(cause(&refused), "connection refused");
        let custom = std::io::Error::other("failed to lookup address information");
        assert_eq!(cause(&custom), "failed to lookup address information");
    }
}
