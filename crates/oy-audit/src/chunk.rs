//! Chunking: files packed greedily, in a deterministic order (files with
//! security-index hits first), into chunks sized from the model's window.
//! A file larger than a chunk fails closed with advice; so does a plan
//! needing more chunks than allowed. Nothing is ever truncated. Every
//! reason is listed ([`Stop`]), with the chunks of what does fit, so a dry
//! run shows the whole plan even when the review would refuse it.
//!
//! Order: files with at least one security-index hit first, then the rest;
//! each group by path. Path order within a group (rather than "most hits
//! first") keeps neighbouring files together, which gives the reviewer
//! context, and does not let a noisy pattern reshuffle the plan.
//!
//! Packing is next-fit: a chunk is filled in that order until the next
//! file does not fit, then a new one starts. Chunks therefore follow the
//! review order exactly (the security-relevant files land in the first
//! chunks), and the plan is a pure function of its input. The price is at
//! most twice the chunks of an optimal packing, and much less when files
//! are small next to the budget, as source files are.

mod stop;

use std::collections::HashSet;

use serde::Serialize;

use crate::collect::{CollectedFile, Collection, OversizedFile};
use crate::error::AuditError;
use crate::index::SecurityHit;

pub use stop::Stop;

/// Sizes for planning.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct PlanOptions {
    /// The model's context window in tokens.
    pub context_window: u64,
    /// Tokens kept free for the instructions, the manifest and index
    /// excerpt, and the answer.
    pub reserve_tokens: u64,
    /// Most chunks a plan may have.
    pub max_chunks: usize,
    /// Most tokens one chunk holds, whatever the window: review quality
    /// drops on very long prompts, so a million-token window still gets
    /// chunks of a readable size.
    pub max_chunk_tokens: u64,
    /// Bytes per token for the estimate (conservative: 3.0; code runs 3.5–4).
    pub bytes_per_token: f64,
}

impl PlanOptions {
    /// Tokens one chunk may hold: the window less the reserve, at most
    /// [`PlanOptions::max_chunk_tokens`].
    pub fn chunk_budget(&self) -> u64 {
        self.context_window
            .saturating_sub(self.reserve_tokens)
            .min(self.max_chunk_tokens.max(MIN_CHUNK_BUDGET))
    }
}

impl Default for PlanOptions {
    fn default() -> Self {
        Self {
            context_window: 32_768,
            // Instructions, the manifest (≤ 100 entries) and index excerpt
            // (≤ 200 hits), and the answer.
            reserve_tokens: 12_288,
            max_chunks: 256,
            max_chunk_tokens: 120_000,
            bytes_per_token: 3.0,
        }
    }
}

/// One chunk: the files one map prompt reviews.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chunk {
    /// 0-based.
    pub index: usize,
    /// Indexes into `Collection::files`.
    pub files: Vec<usize>,
    /// Bytes of file text in the chunk.
    pub bytes: usize,
    /// Estimated tokens of that text.
    pub tokens: u64,
}

/// The audit plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The chunks, in review order.
    pub chunks: Vec<Chunk>,
    /// Tokens one chunk may hold.
    pub chunk_budget: u64,
    /// Estimated input tokens over all model calls.
    pub estimated_tokens: u64,
    /// Model calls: 1 for a single prompt, chunks + 1 (reduce) otherwise.
    pub model_calls: usize,
    /// Why the review cannot go on; empty when it can. The chunks above
    /// are still those of every file that fits, for a dry run to show.
    pub stops: Vec<Stop>,
}

impl Plan {
    /// True when everything fits one prompt (no reduce step).
    pub fn is_single(&self) -> bool {
        self.chunks.len() <= 1
    }

    /// The plan, when it can be reviewed; else every [`Stop`] as one
    /// error.
    pub fn ready(self) -> Result<Self, AuditError> {
        self.check()?;
        Ok(self)
    }

    /// `Ok` when the plan can be reviewed; else every [`Stop`].
    pub fn check(&self) -> Result<(), AuditError> {
        if self.stops.is_empty() {
            Ok(())
        } else {
            Err(AuditError::CannotReview {
                stops: self.stops.clone(),
            })
        }
    }
}

/// The smallest chunk budget worth planning with: below it a model would
/// see a file or two per call and the reduce step would dominate.
pub(crate) const MIN_CHUNK_BUDGET: u64 = 1024;

/// Bytes each file adds besides its text: the path and the framing the
/// review prompt puts around it.
pub(crate) const FILE_HEADER_BYTES: usize = 64;

/// The bytes-per-token ratio used when the configured one is unusable
/// (not finite, or not positive): one token per byte never under-estimates.
const FALLBACK_BYTES_PER_TOKEN: f64 = 1.0;

/// Estimated tokens of `file` in a prompt: its text, its path and the
/// per-file framing, rounded up.
pub(crate) fn file_tokens(file: &CollectedFile, bytes_per_token: f64) -> u64 {
    // The review numbers every line (`N| `): on short lines that prefix is
    // most of the text, and leaving it out let a request exceed the window.
    let lines = file.text.lines().count();
    let prefix = lines.saturating_mul(lines.max(1).to_string().len() + 2);
    let bytes = file
        .text
        .len()
        .saturating_add(prefix)
        .saturating_add(file.path.len())
        .saturating_add(FILE_HEADER_BYTES);
    tokens_for(bytes, bytes_per_token)
}

pub(crate) fn tokens_for(bytes: impl TryInto<usize>, bytes_per_token: f64) -> u64 {
    let bytes = bytes.try_into().unwrap_or(usize::MAX);
    let ratio = usable_ratio(bytes_per_token);
    // `as` saturates for floats, so a huge estimate stays huge rather than
    // wrapping; f64 is exact far beyond any file the collector keeps.
    (bytes as f64 / ratio).ceil() as u64
}

/// `bytes_per_token`, or [`FALLBACK_BYTES_PER_TOKEN`] when it is not a
/// finite positive number.
pub(crate) fn usable_ratio(bytes_per_token: f64) -> f64 {
    if bytes_per_token.is_finite() && bytes_per_token > 0.0 {
        bytes_per_token
    } else {
        FALLBACK_BYTES_PER_TOKEN
    }
}

/// Plans the chunks for `collection`: every file that fits, packed, and
/// every reason the review cannot go on ([`Plan::stops`]): nothing to
/// review; a chunk budget below [`MIN_CHUNK_BUDGET`] (then no chunks are
/// planned); code or configuration larger than the budget (the
/// collection's oversized files and any collected file over it); more
/// chunks than `max_chunks`.
pub fn plan(collection: &Collection, index: &[SecurityHit], options: &PlanOptions) -> Plan {
    let files = &collection.files;
    let budget = options.chunk_budget();
    let mut stops = Vec::new();
    if files.is_empty() && collection.oversized.is_empty() {
        stops.push(Stop::NothingToReview {
            skipped: collection.skipped.values().sum(),
        });
    }
    if budget < MIN_CHUNK_BUDGET {
        stops.push(Stop::BudgetTooSmall {
            context_window: options.context_window,
            reserve_tokens: options.reserve_tokens,
            min: MIN_CHUNK_BUDGET,
        });
        return Plan {
            chunks: Vec::new(),
            chunk_budget: budget,
            estimated_tokens: 0,
            model_calls: 0,
            stops,
        };
    }
    let tokens: Vec<u64> = files
        .iter()
        .map(|f| file_tokens(f, options.bytes_per_token))
        .collect();
    let mut oversized = collection.oversized.clone();
    oversized.extend(
        files
            .iter()
            .zip(&tokens)
            .filter(|(_, tokens)| **tokens > budget)
            .map(|(file, tokens)| OversizedFile {
                path: file.path.clone(),
                bytes: file.bytes,
                tokens: *tokens,
            }),
    );
    if !oversized.is_empty() {
        oversized.sort_by(|a, b| a.path.cmp(&b.path));
        stops.push(Stop::FilesTooLarge {
            files: oversized,
            budget,
        });
    }
    let order: Vec<usize> = review_order(files, index)
        .into_iter()
        .filter(|&i| tokens[i] <= budget)
        .collect();
    let chunks = pack(files, &tokens, &order, budget);
    if chunks.len() > options.max_chunks {
        stops.push(Stop::TooManyChunks {
            needed: chunks.len(),
            max: options.max_chunks,
        });
    }

    // Each call carries the instructions, the manifest and index excerpt
    // besides the files; the reserve keeps room for that and for the
    // answer, so half of it is counted as input. The reduce step reads
    // every map answer (at most the other half of the reserve each), and
    // one call can never send more than the window.
    let overhead = options.reserve_tokens / 2;
    let map_tokens: u64 = chunks
        .iter()
        .map(|c| c.tokens.saturating_add(overhead))
        .fold(0, u64::saturating_add);
    let reduce_tokens = if chunks.len() > 1 {
        let answers = (chunks.len() as u64).saturating_mul(options.reserve_tokens / 2);
        overhead.saturating_add(answers).min(options.context_window)
    } else {
        0
    };
    let model_calls = match chunks.len() {
        0 => 0,
        1 => 1,
        n => n + 1,
    };

    Plan {
        chunks,
        chunk_budget: budget,
        estimated_tokens: map_tokens.saturating_add(reduce_tokens),
        model_calls,
        stops,
    }
}

/// Indexes into `files`: those with security-index hits first, then the
/// rest, each group in path order (ties, which the collector never makes,
/// by index so the order stays total).
fn review_order(files: &[CollectedFile], index: &[SecurityHit]) -> Vec<usize> {
    let flagged: HashSet<&str> = index.iter().map(|h| h.path.as_str()).collect();
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (&files[a], &files[b]);
        let a_plain = !flagged.contains(fa.path.as_str());
        let b_plain = !flagged.contains(fb.path.as_str());
        a_plain
            .cmp(&b_plain)
            .then_with(|| fa.path.cmp(&fb.path))
            .then(a.cmp(&b))
    });
    order
}

/// Next-fit packing of `order` into chunks of at most `budget` tokens.
/// Every file in `order` fits a chunk on its own (the caller leaves out
/// those that do not).
fn pack(files: &[CollectedFile], tokens: &[u64], order: &[usize], budget: u64) -> Vec<Chunk> {
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut current = Chunk {
        index: 0,
        files: Vec::new(),
        bytes: 0,
        tokens: 0,
    };
    for &i in order {
        if !current.files.is_empty() && current.tokens.saturating_add(tokens[i]) > budget {
            let next = Chunk {
                index: current.index + 1,
                files: Vec::new(),
                bytes: 0,
                tokens: 0,
            };
            chunks.push(std::mem::replace(&mut current, next));
        }
        current.files.push(i);
        current.bytes = current.bytes.saturating_add(files[i].text.len());
        current.tokens = current.tokens.saturating_add(tokens[i]);
    }
    if !current.files.is_empty() {
        chunks.push(current);
    }
    chunks
}
