//! The context window an audit plans with, and where that number came
//! from: the plan says so, since a guessed window is the usual reason for
//! too many chunks or a refused file.

use std::fmt;

use oy_provider::{ServerWindow, WindowBound};

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
    /// The model server said so.
    Server {
        /// Where it said it (`llama.cpp /props`), and whether it is only a
        /// bound.
        said: String,
    },
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
            Self::Server { said } => write!(f, "from the server: {said}"),
            Self::Known { model } => write!(f, "known for {model}"),
            Self::Fallback => f.write_str("default"),
        }
    }
}

impl ContextWindow {
    /// The configured window, else the one the `server` reported (see
    /// [`ServerWindow::applied_to`]), else the one `known` for `model`,
    /// else `fallback`.
    pub fn choose(
        configured: Option<u64>,
        server: Option<ServerWindow>,
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
        let estimate = match model.and_then(|model| known(model).map(|tokens| (model, tokens))) {
            Some((model, tokens)) => Self {
                tokens,
                source: WindowSource::Known {
                    model: model.to_owned(),
                },
            },
            None => Self {
                tokens: fallback,
                source: WindowSource::Fallback,
            },
        };
        let Some(server) = server else {
            return estimate;
        };
        let tokens = server.applied_to(estimate.tokens);
        if tokens != server.tokens {
            // An upper bound above the estimate changes nothing.
            return estimate;
        }
        Self {
            tokens,
            source: WindowSource::Server {
                said: match server.bound() {
                    WindowBound::AtLeast => format!("{}, a lower bound", server.source),
                    WindowBound::AtMost => format!("{}, an upper bound", server.source),
                    _ => server.source.to_string(),
                },
            },
        }
    }
}
