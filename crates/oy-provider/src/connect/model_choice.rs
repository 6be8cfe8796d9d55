//! [`choose_model`]: the configured model, else the one the provider's
//! list settles.

use super::{Choice, ConnectError, ConnectSettings};
use crate::{LocalServerKind, ModelInfo, Provider};

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
/// Ollama's first when Ollama was detected; else
/// [`ConnectError::NoModel`]. `listed` is a listing the caller already
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
    if let Some(models) = models {
        let server = choice.local.map_or_else(
            || format!("provider `{}`", choice.name),
            |kind| kind.name().to_owned(),
        );
        match (choice.local, models.as_slice()) {
            (_, [only]) => {
                return Ok(ModelChoice {
                    id: only.id.clone(),
                    why: format!("the only model {server} lists"),
                });
            }
            (Some(LocalServerKind::Ollama), [first, ..]) => {
                return Ok(ModelChoice {
                    id: first.id.clone(),
                    why: "the first model Ollama lists".to_owned(),
                });
            }
            _ => {}
        }
    }
    Err(ConnectError::NoModel {
        provider: choice.name.clone(),
    })
}
