//! SDK failures as [`ProviderError`]s, classified by the SDK's error type
//! and the HTTP status (never by message text): service exceptions keep
//! their status (throttling 429, unavailable 503, internal 500, access
//! denied 403, validation 400), dispatch failures become `Connect` or
//! `Timeout`, and a broken event stream becomes `StreamCut`.

use std::time::Duration;

use aws_sdk_bedrockruntime::config::http::HttpResponse;
use aws_sdk_bedrockruntime::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_bedrockruntime::operation::converse_stream::ConverseStreamError;
use aws_sdk_bedrockruntime::types::error::ConverseStreamOutputError;

use crate::error::{ErrorKind, ProviderError};

/// Names the credential in 401/403 messages (never its value).
const CREDENTIAL: &str = "the AWS credential chain";

/// A failure of the ConverseStream call itself (before any event).
pub(crate) fn from_send(error: SdkError<ConverseStreamError, HttpResponse>) -> ProviderError {
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
            ProviderError::status(status, retry_after, &detail(&error), Some(CREDENTIAL))
        }
        error @ SdkError::ResponseError(_) => ProviderError::new(
            ErrorKind::Protocol,
            format!(
                "Bedrock sent a response oy cannot read: {}",
                DisplayErrorContext(&error)
            ),
        ),
        other => transport(other, "reach Bedrock"),
    }
}

/// A failure of a whole call (Converse, ListFoundationModels): service
/// errors keep their HTTP status, the rest as for ConverseStream.
pub(crate) fn from_call<E>(error: SdkError<E, HttpResponse>, doing: &str) -> ProviderError
where
    E: std::error::Error + ProvideErrorMetadata + 'static,
{
    match error {
        SdkError::ServiceError(context) => {
            let status = context.raw().status().as_u16();
            let retry_after = retry_after(context.raw());
            let error = context.into_err();
            ProviderError::status(status, retry_after, &detail(&error), Some(CREDENTIAL))
        }
        other => transport(other, doing),
    }
}

/// A failure while reading the event stream.
pub(crate) fn from_stream<R>(error: SdkError<ConverseStreamOutputError, R>) -> ProviderError
where
    R: std::fmt::Debug,
{
    match error {
        SdkError::ServiceError(context) => {
            let error = context.into_err();
            match stream_status(&error) {
                Some(status) => ProviderError::status(status, None, &detail(&error), None),
                None => ProviderError::new(
                    ErrorKind::Protocol,
                    format!("Bedrock reported an error mid-stream: {}", detail(&error)),
                ),
            }
        }
        error @ SdkError::ResponseError(_) => ProviderError::new(
            ErrorKind::StreamCut,
            format!("the Bedrock stream broke: {}", DisplayErrorContext(&error)),
        ),
        other => transport(other, "keep reading from Bedrock"),
    }
}

/// Construction, timeout and dispatch failures (and anything new).
fn transport<E, R>(error: SdkError<E, R>, doing: &str) -> ProviderError
where
    E: std::error::Error + 'static,
    R: std::fmt::Debug,
{
    let kind = match &error {
        SdkError::ConstructionFailure(_) => ErrorKind::Config,
        SdkError::TimeoutError(_) => ErrorKind::Timeout,
        SdkError::DispatchFailure(failure) if failure.is_timeout() => ErrorKind::Timeout,
        SdkError::DispatchFailure(failure) if failure.is_user() => ErrorKind::Config,
        SdkError::DispatchFailure(_) => ErrorKind::Connect,
        _ => ErrorKind::Protocol,
    };
    ProviderError::new(
        kind,
        format!("cannot {doing}: {}", DisplayErrorContext(&error)),
    )
}

/// `Code: message`, as AWS reports it.
fn detail(error: &impl ProvideErrorMetadata) -> String {
    match (error.code(), error.message()) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code.to_owned(),
        (None, Some(message)) => message.to_owned(),
        (None, None) => String::new(),
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
/// documented status. An unknown exception is a protocol error.
fn stream_status(error: &ConverseStreamOutputError) -> Option<u16> {
    match error {
        ConverseStreamOutputError::ValidationException(_) => Some(400),
        ConverseStreamOutputError::ModelStreamErrorException(_) => Some(424),
        ConverseStreamOutputError::ThrottlingException(_) => Some(429),
        ConverseStreamOutputError::InternalServerException(_) => Some(500),
        ConverseStreamOutputError::ServiceUnavailableException(_) => Some(503),
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
