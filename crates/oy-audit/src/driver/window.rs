//! The context window an audit plans with, and where that number came
//! from: the plan says so, since a guessed window is the usual reason for
//! too many chunks or a refused file.

use std::fmt;

/// The window, in tokens, and its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextWindow {
    /// Tokens.
    pub tokens: u64,
    /// Where the number came from.
    pub source: WindowSource,
}

/// Where a [`ContextWindow`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WindowSource {
    /// The person configured it.
    Configured,
    /// Known for this model.
    Known {
        /// The model id.
        model: String,
    },
    /// Neither: the fallback.
    Fallback,
}

impl fmt::Display for WindowSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Configured => f.write_str("configured"),
            Self::Known { model } => write!(f, "known for {model}"),
            Self::Fallback => f.write_str("default"),
        }
    }
}

impl ContextWindow {
    /// The configured window, else the one `known` for `model`, else
    /// `fallback`.
    pub fn choose(
        configured: Option<u64>,
        model: Option<&str>,
        known: impl Fn(&str) -> Option<u64>,
        fallback: u64,
    ) -> Self {
        if let Some(tokens) = configured {
            return Self {
                tokens,
                source: WindowSource::Configured,
            };
        }
        if let Some(model) = model
            && let Some(tokens) = known(model)
        {
            return Self {
                tokens,
                source: WindowSource::Known {
                    model: model.to_owned(),
                },
            };
        }
        Self {
            tokens: fallback,
            source: WindowSource::Fallback,
        }
    }
}
