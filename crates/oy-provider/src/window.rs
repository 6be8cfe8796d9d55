//! The context window a model server actually runs a model with, asked of
//! the server itself: [`ServerWindow`] and where it came from
//! ([`WindowSource`], with how far to trust it, [`WindowBound`]).
//!
//! A model's trained context is often not what a request gets: llama.cpp
//! splits its `--ctx-size` across slots, Ollama runs a model with `num_ctx`
//! or its own default whatever the model was trained for, and LM Studio
//! with the context it was loaded with. So each OpenAI-compatible provider
//! asks, concurrently and each within the caller's timeout, at the server's
//! root (the base URL without its trailing `/v1`):
//!
//! - llama.cpp `GET /props?model=…&autoload=false` →
//!   `default_generation_settings.n_ctx`, the context of one slot;
//! - Ollama `POST /api/show` → `num_ctx` in the model's `parameters`, else
//!   `GET /api/ps` → the `context_length` the loaded model runs with, else
//!   its default for the version `GET /api/version` names (a lower bound);
//! - LM Studio `GET /api/v0/models/{model}` → `loaded_context_length`, else
//!   `max_context_length` (an upper bound: not loaded yet);
//! - the OpenAI-style model list (`context_length`, `context_window`,
//!   `max_model_len`) as the last resort.
//!
//! Every request goes to the configured host only, with the provider's own
//! headers; anything but a 2xx JSON answer of the expected shape means that
//! probe cannot tell, never an error. OpenAI's own API has none of these
//! endpoints and no window in its model list, so it is not asked at all.

mod parse;

use std::fmt;
use std::time::Duration;

use crate::openai::{OpenAiClient, parse_models};

/// A context window the server reported, and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerWindow {
    /// The window in tokens: prompt and answer together.
    pub tokens: u64,
    /// Which answer it came from.
    pub source: WindowSource,
}

impl ServerWindow {
    /// A window of `tokens` reported by `source`.
    pub fn new(tokens: u64, source: WindowSource) -> Self {
        Self { tokens, source }
    }

    /// How far [`Self::tokens`] can be trusted (the source's bound).
    pub fn bound(&self) -> WindowBound {
        self.source.bound()
    }

    /// The window to plan with, given the `estimate` oy would use without
    /// the server (a model table's or the fallback): the server's answer,
    /// except that an upper bound only caps the estimate — a model that
    /// is not loaded may be loaded with far less than its maximum.
    pub fn applied_to(&self, estimate: u64) -> u64 {
        match self.bound() {
            WindowBound::AtMost => self.tokens.min(estimate),
            WindowBound::Exact | WindowBound::AtLeast => self.tokens,
        }
    }
}

impl fmt::Display for ServerWindow {
    /// `16384 tokens (llama.cpp /props)`, with `at least`/`at most` before
    /// a bound that is not exact.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lead = match self.bound() {
            WindowBound::Exact => "",
            WindowBound::AtLeast => "at least ",
            WindowBound::AtMost => "at most ",
        };
        write!(f, "{lead}{} tokens ({})", self.tokens, self.source)
    }
}

/// Which answer a [`ServerWindow`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WindowSource {
    /// llama.cpp's `GET /props`: the context of one slot, which is what one
    /// request gets (the server's total divided by its parallel slots).
    LlamaCppProps,
    /// Ollama: `num_ctx` in the model's parameters (`POST /api/show`),
    /// which the OpenAI-compatible endpoint runs it with; capped, as Ollama
    /// caps it, at the context the model was trained for.
    OllamaNumCtx,
    /// Ollama: the context the loaded model runs with now (`GET /api/ps`).
    OllamaLoaded,
    /// Ollama: the model sets no `num_ctx` and is not loaded, so requests
    /// get the server's default — 2048 tokens before Ollama 0.6.7, 4096
    /// since, more when the server's environment or (since 0.15.5) its
    /// VRAM raises it. The smallest default the version can have: a lower
    /// bound.
    OllamaDefault,
    /// LM Studio: the context the loaded model runs with
    /// (`loaded_context_length` of `GET /api/v0/models/{model}`).
    LmStudioLoaded,
    /// LM Studio: the model is not loaded, so only the most it can take
    /// (`max_context_length`) is known; loading it on demand uses its load
    /// settings, which may give less. An upper bound.
    LmStudioMax,
    /// The model's entry in the server's model list (`context_length`,
    /// `context_window` or `max_model_len`: vLLM, OpenRouter…).
    ModelList,
}

impl WindowSource {
    /// How far a window from this source can be trusted.
    pub fn bound(self) -> WindowBound {
        match self {
            Self::OllamaDefault => WindowBound::AtLeast,
            Self::LmStudioMax => WindowBound::AtMost,
            Self::LlamaCppProps
            | Self::OllamaNumCtx
            | Self::OllamaLoaded
            | Self::LmStudioLoaded
            | Self::ModelList => WindowBound::Exact,
        }
    }
}

impl fmt::Display for WindowSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::LlamaCppProps => "llama.cpp /props",
            Self::OllamaNumCtx => "Ollama num_ctx of the model",
            Self::OllamaLoaded => "Ollama /api/ps, as loaded",
            Self::OllamaDefault => "Ollama default",
            Self::LmStudioLoaded => "LM Studio, as loaded",
            Self::LmStudioMax => "LM Studio max_context_length, model not loaded",
            Self::ModelList => "the server's model list",
        })
    }
}

/// How a reported window relates to the one requests will get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WindowBound {
    /// What requests get.
    Exact,
    /// Requests get at least this (a smallest default).
    AtLeast,
    /// Requests get at most this (a model's maximum, before it is loaded
    /// with its own settings): use it to cap another estimate.
    AtMost,
}

/// Asks the server behind `client` for `model`'s window (see the module
/// docs); each request waits at most `timeout`, all run at once.
pub(crate) async fn probe(
    client: &OpenAiClient,
    model: &str,
    timeout: Duration,
) -> Option<ServerWindow> {
    if client.is_openai() {
        return None;
    }
    let show_body = serde_json::to_vec(&serde_json::json!({ "model": model })).ok();
    // `autoload=false`: in router mode llama.cpp would otherwise load the
    // model just to answer (Ollama and a single-model llama.cpp ignore it).
    let no_load = [("model", model), ("autoload", "false")];
    let (props, show, ps, version, lm_studio, list) = tokio::join!(
        client.probe(client.origin_url(&["props"], &no_load), None, timeout),
        client.probe(
            client.origin_url(&["api", "show"], &no_load[1..]),
            show_body,
            timeout
        ),
        client.probe(client.origin_url(&["api", "ps"], &[]), None, timeout),
        client.probe(client.origin_url(&["api", "version"], &[]), None, timeout),
        client.probe(
            client.origin_url(&["api", "v0", "models", model], &[]),
            None,
            timeout
        ),
        list_probe(client, timeout),
    );
    props
        .and_then(|body| parse::llama_cpp_props(&body))
        .or_else(|| {
            let show = parse::ollama_show(&show?)?;
            parse::ollama_window(
                &show,
                ps.and_then(|body| parse::ollama_ps(&body, model)),
                version.and_then(|body| parse::ollama_version(&body)),
            )
        })
        .or_else(|| parse::lm_studio_model(&lm_studio?))
        .or_else(|| {
            let models = parse_models(&list?).ok()?;
            let tokens = models
                .into_iter()
                .find(|entry| entry.id == model)?
                .context_window
                .filter(|&tokens| tokens > 0)?;
            Some(ServerWindow::new(tokens, WindowSource::ModelList))
        })
}

/// `GET {base}/models`, where [`OpenAiClient::list_models`] asks too.
async fn list_probe(client: &OpenAiClient, timeout: Duration) -> Option<Vec<u8>> {
    let url = reqwest::Url::parse(&client.url("/models")).ok()?;
    client.probe(url, None, timeout).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_the_source_and_the_bound() {
        assert_eq!(
            ServerWindow::new(16384, WindowSource::LlamaCppProps).to_string(),
            "16384 tokens (llama.cpp /props)"
        );
        assert_eq!(
            ServerWindow::new(4096, WindowSource::OllamaDefault).to_string(),
            "at least 4096 tokens (Ollama default)"
        );
        assert_eq!(
            ServerWindow::new(131_072, WindowSource::LmStudioMax).to_string(),
            "at most 131072 tokens (LM Studio max_context_length, model not loaded)"
        );
        assert_eq!(
            ServerWindow::new(8192, WindowSource::ModelList).bound(),
            WindowBound::Exact
        );
    }
}
