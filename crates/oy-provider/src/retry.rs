//! The retry gate: transient failures are retried with jittered exponential
//! backoff, within bounded attempts and a bounded total wait, honouring
//! `Retry-After` — but only before the first event reaches the caller (so
//! nothing streamed to a person is ever duplicated), and never once the
//! caller's `may_retry` says a side effect was attempted in this turn.

use std::time::Duration;

use futures_util::StreamExt;

use crate::error::ProviderError;
use crate::model::Request;
use crate::provider::{EventStream, Provider};

/// Bounds on retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// The first backoff (doubled each time, with jitter).
    pub base_delay: Duration,
    /// The longest single backoff.
    pub max_delay: Duration,
    /// The most time spent waiting across all retries.
    pub max_total_wait: Duration,
    /// A `Retry-After` longer than this is not waited for.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_total_wait: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// A retry about to happen, for the caller's `retry` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// The attempt that failed (1 = the first).
    pub attempt: u32,
    /// How long the gate waits before the next one.
    pub delay: Duration,
    /// Why.
    pub error: ProviderError,
}

/// Streams `request` from `provider`, retrying transient failures that
/// happen before the first event. `may_retry` is asked before every retry
/// (the agent answers from the side-effect ledger); `on_retry` hears about
/// each retry before its wait.
pub async fn stream_with_retries(
    provider: &dyn Provider,
    request: &Request,
    policy: &RetryPolicy,
    may_retry: &(dyn Fn() -> bool + Sync),
    on_retry: &(dyn Fn(&RetryNotice) + Sync),
) -> Result<EventStream, ProviderError> {
    let mut waited = Duration::ZERO;
    let mut attempt = 1;
    loop {
        let error = match first_event(provider, request).await {
            Ok(stream) => return Ok(stream),
            Err(error) => error,
        };
        if !error.is_retryable() {
            return Err(error);
        }
        if attempt >= policy.max_attempts {
            return Err(error.with_note(&format!("gave up after {attempt} attempts")));
        }
        if !may_retry() {
            return Err(error.with_note(
                "not retried: a file change or command was already attempted in this turn, so the prompt is not replayed",
            ));
        }
        let delay = match error.retry_after() {
            Some(asked) if asked > policy.max_retry_after => {
                return Err(error.with_note(&format!(
                    "the server asked to wait {} s, longer than oy waits",
                    asked.as_secs()
                )));
            }
            Some(asked) => asked,
            None => backoff(policy, attempt),
        };
        if waited + delay > policy.max_total_wait {
            return Err(error.with_note("gave up: retrying would wait too long"));
        }
        on_retry(&RetryNotice {
            attempt,
            delay,
            error,
        });
        tokio::time::sleep(delay).await;
        waited += delay;
        attempt += 1;
    }
}

/// One attempt, held until its first event: a failure before that is
/// retryable without anyone having seen output.
async fn first_event(
    provider: &dyn Provider,
    request: &Request,
) -> Result<EventStream, ProviderError> {
    let mut stream = provider.stream(request).await?;
    match stream.next().await {
        Some(Ok(event)) => {
            let first = futures_util::stream::iter([Ok(event)]);
            Ok(Box::pin(first.chain(stream)))
        }
        Some(Err(error)) => Err(error),
        None => Err(ProviderError::new(
            crate::ErrorKind::StreamCut,
            "the provider closed the stream before sending anything",
        )),
    }
}

/// Exponential backoff with "equal jitter": between half and all of
/// `base · 2^(attempt-1)`, capped at `max_delay`.
fn backoff(policy: &RetryPolicy, attempt: u32) -> Duration {
    let exponent = attempt.saturating_sub(1).min(16);
    let full = policy
        .base_delay
        .saturating_mul(1 << exponent)
        .min(policy.max_delay);
    let half = full / 2;
    let jitter = fastrand::u64(0..=u64::try_from(half.as_millis()).unwrap_or(u64::MAX));
    half + Duration::from_millis(jitter)
}
