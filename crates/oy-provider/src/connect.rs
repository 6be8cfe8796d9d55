//! Choosing, building and connecting a model provider from plain values:
//! the config file's provider tables, the environment values the frontend
//! resolved ([`ProviderEnv`]), and the provider, model and wire API the
//! user named, each with where it was named ([`ConnectSettings`]). Every
//! step records why, so a frontend can explain the choice
//! (docs/configuration.md has the order).
//!
//! [`connect`] does it all; [`choose_provider`], [`build_provider`] and
//! [`choose_model`] are its steps, for a frontend that reports on each
//! (a diagnostics command, a model listing).

mod build;
mod choice;
mod env;
mod error;
mod model_choice;
mod proxy;
mod table;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

pub use build::{AwsConfig, AwsSettings, build_provider};
pub use choice::{Backend, BedrockChoice, Choice, choose_provider};
pub use env::{AwsPlaces, ProviderEnv};
pub use error::ConnectError;
pub use model_choice::{DEFAULT_BEDROCK_MODEL, DEFAULT_OPENAI_MODEL, ModelChoice, choose_model};
pub use table::{ProviderKind, ProviderTable, WireApi};

use crate::{ProbeTargets, Provider};

/// Everything a provider choice depends on, resolved by the frontend.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectSettings {
    /// The config file's provider tables, by name.
    pub providers: BTreeMap<String, ProviderTable>,
    /// The provider named by the user, and where (shown as the reason).
    pub provider: Option<Sourced>,
    /// The model named by the user, and where.
    pub model: Option<Sourced>,
    /// The OpenAI wire API named by the user: over a table's and the
    /// endpoint's.
    pub wire_api: Option<WireApi>,
    /// A stream silent this long is cut (else each backend's default).
    pub idle_timeout: Option<Duration>,
    /// The environment's provider values.
    pub env: ProviderEnv,
    /// Where local servers are looked for when nothing else is found.
    pub probe: ProbeTargets,
    /// How long each local probe waits: loopback answers in milliseconds.
    pub probe_timeout: Duration,
    /// How long a model listing used to pick the model may take.
    pub list_timeout: Duration,
}

impl Default for ConnectSettings {
    /// No tables, nothing named, an empty environment, the usual local
    /// ports probed for 800 ms, a listing given 5 s.
    fn default() -> Self {
        Self {
            providers: BTreeMap::new(),
            provider: None,
            model: None,
            wire_api: None,
            idle_timeout: None,
            env: ProviderEnv::default(),
            probe: ProbeTargets::default(),
            probe_timeout: Duration::from_millis(800),
            list_timeout: Duration::from_secs(5),
        }
    }
}

/// A value and where it was set (`--model/OY_MODEL`, a config file's
/// path…), which becomes the reason given for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced {
    /// The value.
    pub value: String,
    /// Where it came from.
    pub source: String,
}

impl Sourced {
    /// `value`, set by `source`.
    pub fn new(value: impl Into<String>, source: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            source: source.into(),
        }
    }
}

/// A provider ready to use, and how it was chosen.
#[non_exhaustive]
pub struct Connected {
    /// The provider.
    pub provider: Arc<dyn Provider>,
    /// The model to use.
    pub model: String,
    /// One line: which provider, where, and why it and the model were
    /// chosen.
    pub description: String,
}

/// Chooses the provider, builds it and picks its model. `load_aws` is
/// called only when Bedrock is chosen.
pub async fn connect(
    settings: &ConnectSettings,
    load_aws: impl AsyncFnOnce(AwsSettings) -> AwsConfig,
) -> Result<Connected, ConnectError> {
    let choice = choose_provider(settings).await?;
    let (provider, endpoint) = build_provider(settings, &choice, load_aws).await?;
    let model = choose_model(settings, &choice, provider.as_ref(), None).await?;
    Ok(Connected {
        description: format!(
            "{} at {endpoint} ({}; {}); model {} ({})",
            provider.name(),
            choice.name,
            choice.why,
            model.id,
            model.why
        ),
        provider,
        model: model.id,
    })
}
