//! The review: one prompt per chunk (no tools offered), several at a time,
//! each answering findings as JSON; a reduce step that merges,
//! de-duplicates and ranks them; and evidence verification against the
//! collected text (a finding citing a file or line that does not exist is
//! flagged unverified, or dropped).

mod answer;
mod evidence;
mod prompt;

use std::collections::BTreeSet;

use futures_util::StreamExt;
use oy_provider::{
    Attempts, Event, Provider, ProviderError, Replay, Request, RetryNotice, RetryPolicy,
};
use serde::{Deserialize, Serialize};

use crate::chunk::Plan;
use crate::collect::Collection;
use crate::error::AuditError;
use crate::index::{Manifest, SecurityHit};

pub use evidence::verify;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Exploitable, high impact.
    Critical,
    /// Serious.
    High,
    /// Worth fixing soon.
    Medium,
    /// Minor.
    Low,
    /// Informational.
    Info,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Severity.
    pub severity: Severity,
    /// One line.
    pub title: String,
    /// Root-relative path of the evidence.
    pub file: String,
    /// 1-based line of the evidence, when given.
    #[serde(default)]
    pub line: Option<usize>,
    /// The quoted code or text the finding rests on.
    #[serde(default)]
    pub evidence: String,
    /// Why it is a problem.
    #[serde(default)]
    pub explanation: String,
    /// How to fix it.
    #[serde(default)]
    pub fix: String,
    /// True when `file` (and `line`, and the evidence text when given)
    /// were found in the collected text.
    #[serde(default)]
    pub verified: bool,
}

/// Knobs of the review.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReviewOptions {
    /// The model id.
    pub model: String,
    /// Map prompts in flight at once.
    pub concurrency: usize,
    /// What to focus on (`oy audit "focus on auth"`).
    pub focus: Option<String>,
    /// Retry bounds per request (no side effects: always allowed).
    pub retry: RetryPolicy,
    /// Findings carried forward from an existing report.
    pub previous: Vec<Finding>,
}

impl ReviewOptions {
    /// Defaults for `model`: 3 at a time, no focus.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            concurrency: 3,
            focus: None,
            retry: RetryPolicy::default(),
            previous: Vec::new(),
        }
    }
}

/// Progress for a frontend's bar.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReviewProgress {
    /// A chunk's review started.
    ChunkStarted {
        /// Which.
        index: usize,
    },
    /// A chunk's review ended.
    ChunkDone {
        /// Which.
        index: usize,
        /// Findings in it.
        findings: usize,
    },
    /// A request is retried.
    Retry {
        /// Why.
        error: String,
    },
    /// The reduce step started.
    Reducing,
    /// The reduce step's answer could not be used (or its request failed),
    /// so the map findings were merged deterministically instead.
    ReduceFallback {
        /// Why.
        reason: String,
    },
}

/// The review's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Review {
    /// Findings, ranked (severity, then path and line), de-duplicated.
    pub findings: Vec<Finding>,
    /// Findings dropped because their evidence did not exist.
    pub dropped_unverifiable: usize,
    /// Model calls made.
    pub model_calls: usize,
    /// Request bytes sent to the provider.
    pub bytes_sent: usize,
    /// Files whose text was sent.
    pub files_sent: usize,
}

/// Reviews `plan` with `provider`, no tools offered.
///
/// One map request per chunk, at most `options.concurrency` in flight;
/// when there is more than one chunk, one reduce request merges their
/// findings with `options.previous`. Every request goes through the retry
/// gate with retries always allowed (the review has no side effects).
///
/// Accounting: `model_calls` counts answers received (map, re-ask and
/// reduce requests; attempts that failed and were retried are not
/// counted); `bytes_sent` sums the serialized size of each distinct
/// request once (a retried attempt carries the same bytes again and is not
/// counted twice); `files_sent` counts distinct files over all chunks.
///
/// A plan with [`Plan::stops`] is refused before anything is sent: its
/// chunks leave out what did not fit.
pub async fn review(
    provider: &dyn Provider,
    collection: &Collection,
    manifest: &Manifest,
    index: &[SecurityHit],
    plan: &Plan,
    options: &ReviewOptions,
    progress: &(dyn Fn(ReviewProgress) + Sync),
) -> Result<Review, AuditError> {
    plan.check()?;
    let total = plan.chunks.len();
    // An earlier report's `verified` flags are stale: they are decided
    // again below, against today's text.
    let previous: Vec<Finding> = options
        .previous
        .iter()
        .cloned()
        .map(|mut finding| {
            finding.verified = false;
            finding
        })
        .collect();
    let summary = prompt::manifest_summary(manifest);
    let requests: Vec<Request> = plan
        .chunks
        .iter()
        .map(|chunk| prompt::map_request(collection, &summary, index, chunk, total, options))
        .collect();
    let files_sent = plan
        .chunks
        .iter()
        .flat_map(|chunk| chunk.files.iter().copied())
        .filter(|&file| file < collection.files.len())
        .collect::<BTreeSet<usize>>()
        .len();

    let mut tally = Tally::default();
    let mut per_chunk: Vec<(usize, Vec<Finding>)> = Vec::with_capacity(total);
    // `buffer_unordered` keeps at most `concurrency` map requests in
    // flight; results are put back in chunk order below so the outcome does
    // not depend on which answer arrived first. The futures are collected
    // first (they are lazy) so the stream holds no closure, which keeps the
    // review's future `Send`.
    let calls: Vec<_> = requests
        .iter()
        .enumerate()
        .map(|(position, request)| map_chunk(provider, request, position, total, options, progress))
        .collect();
    let mut answers =
        futures_util::stream::iter(calls).buffer_unordered(options.concurrency.max(1));
    while let Some(answer) = answers.next().await {
        let (position, findings, chunk_tally) = answer?;
        tally.add(chunk_tally);
        per_chunk.push((position, findings));
    }
    drop(answers);
    per_chunk.sort_by_key(|(position, _)| *position);
    let mapped: Vec<Finding> = per_chunk
        .into_iter()
        .flat_map(|(_, findings)| findings)
        .collect();

    let merged = if total > 1 {
        progress(ReviewProgress::Reducing);
        let request = prompt::reduce_request(&mapped, &previous, options);
        tally.bytes += request_bytes(&request);
        match ask(
            provider,
            &request,
            &options.retry,
            "the reduce step",
            progress,
        )
        .await
        {
            Ok(text) => {
                tally.calls += 1;
                match answer::parse_findings(&text) {
                    Ok(findings) => findings,
                    Err(why) => {
                        progress(ReviewProgress::ReduceFallback {
                            reason: format!("the reduce answer was not usable ({why})"),
                        });
                        answer::merge(mapped, previous)
                    }
                }
            }
            // The map answers are already paid for: a failed reduce falls
            // back to the deterministic merge instead of losing them.
            Err(error) => {
                progress(ReviewProgress::ReduceFallback {
                    reason: format!("the reduce request failed ({error})"),
                });
                answer::merge(mapped, previous)
            }
        }
    } else {
        answer::merge(mapped, previous)
    };

    let (mut findings, dropped_unverifiable) = verify(merged, collection);
    // The reduce step may repeat itself; dedupe after it as well.
    findings = answer::merge(findings, Vec::new());
    answer::rank(&mut findings);
    Ok(Review {
        findings,
        dropped_unverifiable,
        model_calls: tally.calls,
        bytes_sent: tally.bytes,
        files_sent,
    })
}

/// Calls and bytes of one part of the review.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    calls: usize,
    bytes: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.calls += other.calls;
        self.bytes += other.bytes;
    }
}

/// One chunk's map request, re-asked once when its answer is not the JSON
/// object asked for (models sometimes wrap or cut it); a second unusable
/// answer fails the audit naming the chunk.
async fn map_chunk(
    provider: &dyn Provider,
    request: &Request,
    position: usize,
    total: usize,
    options: &ReviewOptions,
    progress: &(dyn Fn(ReviewProgress) + Sync),
) -> Result<(usize, Vec<Finding>, Tally), AuditError> {
    progress(ReviewProgress::ChunkStarted { index: position });
    let label = format!("chunk {} of {total}", position + 1);
    let mut tally = Tally {
        calls: 0,
        bytes: request_bytes(request),
    };
    let text = ask(provider, request, &options.retry, &label, progress).await?;
    tally.calls += 1;
    let findings = match answer::parse_findings(&text) {
        Ok(findings) => findings,
        Err(_) => {
            let again = prompt::reask_request(request, &text);
            tally.bytes += request_bytes(&again);
            let text = ask(provider, &again, &options.retry, &label, progress).await?;
            tally.calls += 1;
            answer::parse_findings(&text).map_err(|why| {
                AuditError::BadAnswer(format!(
                    "{label}: {why}, twice; try again, or use a model that follows JSON instructions"
                ))
            })?
        }
    };
    progress(ReviewProgress::ChunkDone {
        index: position,
        findings: findings.len(),
    });
    Ok((position, findings, tally))
}

/// Sends `request` and returns the answer's text. Failures before the
/// first event and a stream cut mid-answer are retried within one bound
/// and numbered in one sequence: nothing was shown to anyone and the
/// review has no side effects.
async fn ask(
    provider: &dyn Provider,
    request: &Request,
    policy: &RetryPolicy,
    label: &str,
    progress: &(dyn Fn(ReviewProgress) + Sync),
) -> Result<String, ProviderError> {
    let on_retry = |notice: &RetryNotice| {
        progress(ReviewProgress::Retry {
            error: format!(
                "{label}: {} (attempt {}); retrying in {:.1} s",
                notice.error,
                notice.attempt,
                notice.delay.as_secs_f64()
            ),
        });
    };
    let mut attempts = Attempts::new(*policy);
    loop {
        let mut stream = attempts
            .stream(provider, request, &|| true, &on_retry)
            .await?;
        let mut text = String::new();
        let mut failure = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(Event::TextDelta { text: delta }) => text.push_str(&delta),
                Ok(_) => {}
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        let Some(error) = failure else {
            return Ok(text);
        };
        let mut notice = attempts.after_failure(error, Replay::Allowed)?;
        notice.error = notice.error.with_note("the partial answer is discarded");
        on_retry(&notice);
        tokio::time::sleep(notice.delay).await;
    }
}

/// The size of `request` as serialized: what the transparency line counts.
fn request_bytes(request: &Request) -> usize {
    serde_json::to_string(request).map_or(0, |json| json.len())
}
