//! [`choose_model`]: the configured model, else the one the provider's
//! list settles, else the provider's documented default.

use super::proxy::host_of;
use super::{Backend, Choice, ConnectError, ConnectSettings};
use crate::{LocalServerKind, ModelInfo, Provider};

/// The model used on OpenAI's own endpoint when nothing names one
/// (docs/configuration.md "Choosing the model").
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";

/// The model used on Bedrock when nothing names one.
pub const DEFAULT_BEDROCK_MODEL: &str = "anthropic.claude-3-5-sonnet-20240620-v1:0";

/// How many listed ids a [`ConnectError::NoModel`] carries as suggestions.
const SUGGESTED: usize = 8;

/// The model to use, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelChoice {
    /// The model id.
    pub id: String,
    /// Why this one: the source that named it, `the only model … lists`…
    pub why: String,
}

/// The model: the configured one, else the provider table's, else the
/// only model the server lists (any server: one named by
/// `OPENAI_BASE_URL` or a table as much as an autodetected one), else
/// Ollama's first when Ollama was detected, else the provider's default
/// (OpenAI's own endpoint, Bedrock) unless a listing shows it is not
/// offered; else [`ConnectError::NoModel`] with the listed ids. `listed` is a listing the caller already
/// has, so the server is not asked twice; without one the provider is
/// asked, within [`ConnectSettings::list_timeout`].
pub async fn choose_model(
    settings: &ConnectSettings,
    choice: &Choice,
    provider: &dyn Provider,
    listed: Option<&[ModelInfo]>,
) -> Result<ModelChoice, ConnectError> {
    if let Some(model) = &settings.model {
        return Ok(ModelChoice {
            id: model.value.clone(),
            why: model.source.clone(),
        });
    }
    if let Some(model) = &choice.table_model {
        return Ok(ModelChoice {
            id: model.clone(),
            why: format!("providers.{}.model in the config", choice.name),
        });
    }
    let models = match (&choice.probed_models, listed) {
        (Some(models), _) => Some(models.clone()),
        (None, Some(listed)) => Some(listed.to_vec()),
        (None, None) => tokio::time::timeout(settings.list_timeout, provider.list_models())
            .await
            .ok()
            .and_then(Result::ok),
    };
    if let Some(models) = &models {
        let server = choice.local.map_or_else(
            || format!("provider `{}`", choice.name),
            |kind| kind.name().to_owned(),
        );
        match (choice.local, models.as_slice()) {
            (_, [only]) if plausible_id(&only.id) => {
                return Ok(ModelChoice {
                    id: only.id.clone(),
                    why: format!("the only model {server} lists"),
                });
            }
            (Some(LocalServerKind::Ollama), [first, ..]) if plausible_id(&first.id) => {
                return Ok(ModelChoice {
                    id: first.id.clone(),
                    why: "the first model Ollama lists".to_owned(),
                });
            }
            _ => {}
        }
    }
    let listed = models.unwrap_or_default();
    if let Some((default, name)) = provider_default(choice)
        && (listed.is_empty() || listed.iter().any(|model| model.id == default))
    {
        return Ok(ModelChoice {
            id: default.to_owned(),
            why: format!("oy's default for {name}"),
        });
    }
    Err(ConnectError::NoModel {
        provider: choice.name.clone(),
        listed: listed.len(),
        suggestions: listed
            .into_iter()
            .take(SUGGESTED)
            .map(|model| model.id)
            .collect(),
    })
}

/// An id a server's list may choose on its own: short, and made only of
/// the characters model ids use (letters, digits, `-_.:/@+`), so it cannot
/// forge lines or hide text wherever it is shown (a hostile server's only
/// model is its own choice, not the user's).
fn plausible_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 256
        && id
            .chars()
            .all(|c| c.is_alphanumeric() || "-_.:/@+".contains(c))
}

/// The documented default of a provider that has one, and its name.
fn provider_default(choice: &Choice) -> Option<(&'static str, &'static str)> {
    match &choice.backend {
        Backend::Bedrock(_) => Some((DEFAULT_BEDROCK_MODEL, "Bedrock")),
        Backend::OpenAi { config, .. }
            if host_of(&config.base_url)
                .is_some_and(|host| host.eq_ignore_ascii_case("api.openai.com")) =>
        {
            Some((DEFAULT_OPENAI_MODEL, "OpenAI"))
        }
        Backend::OpenAi { .. } => None,
    }
}
