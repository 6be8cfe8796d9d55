//! The retry gate: transient failures are retried with jittered exponential
//! backoff, within bounded attempts and a bounded total wait, honouring
//! `Retry-After` — but never once any of the answer was shown (so nothing a
//! person or a program reads is ever duplicated), and never once the
//! caller says a side effect was attempted in this turn.
//!
//! [`Attempts`] is the state of one request across all its attempts: a
//! failure before the first event and a stream cut mid-answer count
//! against the same bound and are numbered in one sequence, and every
//! refusal to retry says why (`docs/events.md`, "Retries").

use std::time::Duration;

use futures_util::StreamExt;

use crate::error::{ErrorKind, ProviderError};
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
    /// Idle timeouts retried at most this many times: a server that went
    /// silent once may be flaky, one that goes silent again is stalled, and
    /// every idle timeout costs the whole idle period.
    pub max_idle_retries: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_total_wait: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(60),
            max_idle_retries: 1,
        }
    }
}

/// A retry about to happen, for the caller's `retry` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// The attempt that failed (1 = the first), counted across the whole
    /// request: failures before the first event and cut streams alike.
    pub attempt: u32,
    /// How long the gate waits before the next one.
    pub delay: Duration,
    /// Why.
    pub error: ProviderError,
}

/// Whether sending the same request again is allowed, as the caller sees
/// it at the moment of a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    /// Nothing stands in the way.
    Allowed,
    /// A file change or command was attempted in this turn: the model
    /// would see the prompt again with the world already changed.
    AfterSideEffect,
    /// Part of the answer already reached a person or a program (text on
    /// stdout, `text_delta` events); a retry would show it twice.
    AnswerShown,
}

/// One request's attempts: how many failed and how long was waited.
#[derive(Debug, Clone)]
pub struct Attempts {
    policy: RetryPolicy,
    failed: u32,
    idle_failures: u32,
    waited: Duration,
}

impl Attempts {
    /// A fresh request under `policy`.
    pub fn new(policy: RetryPolicy) -> Self {
        Self {
            policy,
            failed: 0,
            idle_failures: 0,
            waited: Duration::ZERO,
        }
    }

    /// Counts `error` as a failed attempt and decides: the retry to make
    /// (the caller reports it and waits `delay`), or the error with a note
    /// saying why it is not retried.
    pub fn after_failure(
        &mut self,
        error: ProviderError,
        replay: Replay,
    ) -> Result<RetryNotice, ProviderError> {
        self.failed += 1;
        let attempt = self.failed;
        if error.kind() == ErrorKind::IdleTimeout {
            self.idle_failures += 1;
        }
        if !error.is_retryable() {
            return Err(error);
        }
        match replay {
            Replay::Allowed => {}
            Replay::AfterSideEffect => {
                return Err(error.with_note(
                    "not retried: a file change or command was already attempted in this turn, so the prompt is not replayed",
                ));
            }
            Replay::AnswerShown => {
                return Err(error.with_note(
                    "not retried: part of the answer was already shown and a retry would repeat it; ask again to continue",
                ));
            }
        }
        if attempt >= self.policy.max_attempts {
            return Err(error.with_note(&format!("gave up after {attempt} attempts")));
        }
        if self.idle_failures > self.policy.max_idle_retries {
            return Err(error.with_note(&format!(
                "gave up: the provider went silent {} times in a row",
                self.idle_failures
            )));
        }
        let delay = match error.retry_after() {
            Some(asked) if asked > self.policy.max_retry_after => {
                return Err(error.with_note(&format!(
                    "not retried: the server asked to wait {} s, longer than oy waits",
                    asked.as_secs()
                )));
            }
            Some(asked) => asked,
            None => backoff(&self.policy, attempt),
        };
        if self.waited + delay > self.policy.max_total_wait {
            return Err(error.with_note("gave up: retrying would wait too long"));
        }
        self.waited += delay;
        Ok(RetryNotice {
            attempt,
            delay,
            error,
        })
    }

    /// Streams `request` from `provider`, retrying transient failures that
    /// happen before the first event. `may_retry` is asked before every
    /// retry (the agent answers from the side-effect ledger); `on_retry`
    /// hears about each retry before its wait.
    pub async fn stream(
        &mut self,
        provider: &dyn Provider,
        request: &Request,
        may_retry: &(dyn Fn() -> bool + Sync),
        on_retry: &(dyn Fn(&RetryNotice) + Sync),
    ) -> Result<EventStream, ProviderError> {
        loop {
            let error = match first_event(provider, request).await {
                Ok(stream) => return Ok(stream),
                Err(error) => error,
            };
            // Asked only for a failure worth retrying: the ledger check is
            // the caller's, and a permanent error needs no excuse.
            let replay = if !error.is_retryable() || may_retry() {
                Replay::Allowed
            } else {
                Replay::AfterSideEffect
            };
            let notice = self.after_failure(error, replay)?;
            on_retry(&notice);
            tokio::time::sleep(notice.delay).await;
        }
    }
}

/// Streams `request` from `provider` with a fresh [`Attempts`] under
/// `policy`: for callers that never retry after the stream started.
pub async fn stream_with_retries(
    provider: &dyn Provider,
    request: &Request,
    policy: &RetryPolicy,
    may_retry: &(dyn Fn() -> bool + Sync),
    on_retry: &(dyn Fn(&RetryNotice) + Sync),
) -> Result<EventStream, ProviderError> {
    Attempts::new(*policy)
        .stream(provider, request, may_retry, on_retry)
        .await
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
