//! Why a plan cannot be reviewed: every reason, so that a dry run can
//! show them all at once and the real run refuses before sending anything.

use std::fmt;

use serde::Serialize;

use crate::collect::OversizedFile;

/// One reason the review cannot go on. The messages name concepts, not a
/// frontend's options; each variant's fields let a frontend add its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "stop", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Stop {
    /// Nothing reviewable was found.
    NothingToReview {
        /// Files skipped, over every reason.
        skipped: usize,
    },
    /// The model's window leaves too little room for any file once the
    /// prompt and the answer are reserved.
    BudgetTooSmall {
        /// The window.
        context_window: u64,
        /// Tokens reserved.
        reserve_tokens: u64,
        /// The smallest chunk budget accepted.
        min: u64,
    },
    /// Code or configuration files larger than a chunk may be: reviewing
    /// them would need truncation, which the audit never does.
    FilesTooLarge {
        /// Every such file, by path.
        files: Vec<OversizedFile>,
        /// What one chunk may hold, in tokens.
        budget: u64,
    },
    /// The repository needs more chunks than allowed.
    TooManyChunks {
        /// Chunks needed.
        needed: usize,
        /// The limit.
        max: usize,
    },
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NothingToReview { skipped } => write!(
                f,
                "no reviewable files in scope (0 files collected, {skipped} skipped); check the path, or what the skip counts say"
            ),
            Self::BudgetTooSmall {
                context_window,
                reserve_tokens,
                min,
            } => write!(
                f,
                "a {context_window}-token context window leaves under {min} tokens per chunk after reserving {reserve_tokens} for the prompt and the answer; use a model with a larger context window"
            ),
            Self::FilesTooLarge { files, budget } => {
                let (count, plural) = (files.len(), if files.len() == 1 { "" } else { "s" });
                write!(
                    f,
                    "{count} code or configuration file{plural} need{} more than the {budget} tokens a chunk holds (",
                    if count == 1 { "s" } else { "" }
                )?;
                for (n, file) in files.iter().enumerate() {
                    let separator = if n == 0 { "" } else { ", " };
                    write!(f, "{separator}{} ~{} tokens", file.path, file.tokens)?;
                }
                f.write_str("); exclude them, narrow the audit to a smaller scope, or use a model with a larger context window")
            }
            Self::TooManyChunks { needed, max } => write!(
                f,
                "the audit needs {needed} chunks, more than the limit of {max}; narrow it to a smaller scope or a focus, or use a model with a larger context window"
            ),
        }
    }
}
