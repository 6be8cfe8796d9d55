//! `oy model`: list the provider's models (the default marked `*`), and
//! `--set ID` to save the default model in the global config file. On a
//! terminal the list is numbered and a number (or an id) typed at the
//! prompt is saved the same way.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use oy_boundary::{BoundaryError, Workspace};
use oy_provider::ModelInfo;
use serde_json::json;

use crate::cli::ModelArgs;
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::json_text::json_text;
use crate::provider_setup::{self, cli_error};
use crate::render::{terminal_line, terminal_safe};

/// How long the provider gets to list its models.
const LIST_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) fn run(config: &Config, args: &ModelArgs) -> Result<Exit> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(list(config));
    match &args.set {
        // Saving needs no provider: an unreachable list only means the id
        // cannot be checked.
        Some(id) => set(config, id, result.and_then(|(listed, _)| listed)),
        None => {
            let (listed, current) = result?;
            let listed = listed?;
            // A pick list only where a person sees it and can answer.
            let pick =
                !args.json && config.settings.policy.interactive && std::io::stdout().is_terminal();
            let shown = show(args, listed, current.as_deref(), pick)?;
            if pick && !shown.is_empty() {
                return pick_default(config, &shown, current.as_deref());
            }
            Ok(Exit::Ok)
        }
    }
}

/// The provider's models (or why they could not be listed), and the
/// current default model if one is chosen.
async fn list(config: &Config) -> Result<(Result<Vec<ModelInfo>>, Option<String>)> {
    let settings = config.settings.connect_settings();
    let choice = oy_provider::choose_provider(&settings)
        .await
        .map_err(cli_error)?;
    let (provider, endpoint) =
        oy_provider::build_provider(&settings, &choice, provider_setup::load_aws)
            .await
            .map_err(cli_error)?;
    let listed = match tokio::time::timeout(LIST_TIMEOUT, provider.list_models()).await {
        Ok(Ok(mut models)) => {
            models.sort_by(|a, b| a.id.cmp(&b.id));
            Ok(models)
        }
        // Bedrock lists models elsewhere than `endpoint` (its control
        // plane); its error names where it asked.
        Ok(Err(error)) => Err(match choice.listing_hint() {
            Some(hint) => anyhow::anyhow!(
                "{} did not list its models: {error}\nhint: {hint}",
                choice.name
            ),
            None => anyhow::Error::new(error).context(format!(
                "{} at {endpoint} did not list its models",
                choice.name
            )),
        }),
        Err(_) => Err(anyhow::anyhow!(
            "{} at {endpoint} did not list its models within {} s",
            choice.name,
            LIST_TIMEOUT.as_secs()
        )),
    };
    let current = oy_provider::choose_model(
        &settings,
        &choice,
        provider.as_ref(),
        Some(listed.as_ref().map_or(&[][..], Vec::as_slice)),
    )
    .await
    .ok()
    .map(|chosen| chosen.id);
    Ok((listed, current))
}

/// Prints the models that pass the filter (numbered when `numbered`) and
/// returns them.
fn show(
    args: &ModelArgs,
    models: Vec<ModelInfo>,
    current: Option<&str>,
    numbered: bool,
) -> Result<Vec<ModelInfo>> {
    let filter = args.filter.as_deref().unwrap_or("").to_lowercase();
    let models: Vec<ModelInfo> = models
        .into_iter()
        .filter(|model| model.id.to_lowercase().contains(&filter))
        .collect();
    let mut stdout = crate::stdout::lock();
    if args.json {
        let items: Vec<_> = models
            .iter()
            .map(|model| {
                json!({
                    "id": model.id,
                    "owned_by": model.owned_by,
                    "context_window": model.context_window,
                    "default": Some(model.id.as_str()) == current,
                })
            })
            .collect();
        writeln!(stdout, "{}", json_text(&items, true)?)?;
        return Ok(Vec::new());
    }
    if models.is_empty() {
        note(&match &args.filter {
            Some(filter) => format!("no model id contains `{filter}`"),
            None => "the provider lists no models".to_owned(),
        });
        return Ok(models);
    }
    // Model ids come from the server: one line each, nothing a terminal acts on.
    let ids: Vec<String> = models
        .iter()
        .map(|model| terminal_line(&model.id))
        .collect();
    let width = ids.iter().map(|id| id.chars().count()).max().unwrap_or(0);
    let digits = models.len().to_string().len();
    for (index, (model, id)) in models.iter().zip(&ids).enumerate() {
        let mark = if Some(model.id.as_str()) == current {
            '*'
        } else {
            ' '
        };
        let number = if numbered {
            format!("{:>digits$} ", index + 1)
        } else {
            String::new()
        };
        match model.context_window {
            Some(window) => writeln!(stdout, "{number}{mark} {id:<width$}  {window} tokens")?,
            None => writeln!(stdout, "{number}{mark} {id}")?,
        }
    }
    if current.is_none() && !numbered {
        note("no default model yet: `oy model --set ID` saves one");
    }
    Ok(models)
}

/// Asks for a number or an id from `models` and saves it as the default;
/// an empty answer (or end of input) keeps the current one.
fn pick_default(config: &Config, models: &[ModelInfo], current: Option<&str>) -> Result<Exit> {
    let keep = current.map_or_else(
        || "Enter saves nothing".to_owned(),
        |id| format!("Enter keeps {}", terminal_line(id)),
    );
    let mut stderr = std::io::stderr().lock();
    write!(stderr, "default model: number or id ({keep}): ")?;
    stderr.flush()?;
    drop(stderr);
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("cannot read the answer")?;
    let answer = answer.trim();
    if answer.is_empty() {
        return Ok(Exit::Ok);
    }
    match picked(models, answer) {
        Some(id) => set(config, id, Ok(models.to_vec())),
        None => Err(UsageError::new(format!(
            "`{}` is neither a number from 1 to {} nor a listed model id",
            terminal_line(answer),
            models.len()
        ))
        .into()),
    }
}

/// The model `answer` names: a 1-based number in the list or an exact id.
fn picked<'a>(models: &'a [ModelInfo], answer: &str) -> Option<&'a str> {
    if let Ok(number) = answer.parse::<usize>() {
        return number
            .checked_sub(1)
            .and_then(|index| models.get(index))
            .map(|model| model.id.as_str());
    }
    models
        .iter()
        .find(|model| model.id == answer)
        .map(|model| model.id.as_str())
}

fn set(config: &Config, id: &str, listed: Result<Vec<ModelInfo>>) -> Result<Exit> {
    let id = id.trim();
    if id.is_empty() {
        return Err(UsageError::new("--set needs a model id").into());
    }
    match listed {
        Ok(models) if !models.is_empty() && !models.iter().any(|model| model.id == id) => {
            let ids: Vec<&str> = models.iter().map(|model| model.id.as_str()).collect();
            let close = crate::lone_word::closest(id, &ids);
            let mut message = format!("the provider does not list a model `{id}`");
            if !close.is_empty() {
                message.push_str(&format!("\nhint: did you mean {}?", close.join(", ")));
            }
            message.push_str("\nhint: `oy model` lists the models the provider offers");
            return Err(UsageError::new(message).into());
        }
        Ok(_) => {}
        Err(error) => note(&format!(
            "warning: could not check `{id}` against the provider's list ({error:#}); saving it anyway"
        )),
    }
    let dir = config.settings.dirs.config_dir.as_deref().ok_or_else(|| {
        UsageError::new("no config directory: set HOME or XDG_CONFIG_HOME to save a default model")
    })?;
    let path = save_model(dir, id)?;
    note(&format!("saved model = \"{id}\" in {}", path.display()));
    Ok(Exit::Ok)
}

/// Writes `model = "ID"` into `DIR/config.toml`, 0600 and atomically,
/// keeping every other key (and, where it can, the comments and layout).
fn save_model(dir: &Path, id: &str) -> Result<std::path::PathBuf> {
    crate::private_dir::private_dir(dir, None)?;
    let store = Workspace::open(dir).with_context(|| format!("cannot open {}", dir.display()))?;
    let path = store.path("config.toml")?;
    let host = dir.join("config.toml");
    let text = match store.read_text(&path, oy_config::MAX_CONFIG_BYTES) {
        Ok(text) => text,
        Err(BoundaryError::NotFound { .. }) => String::new(),
        Err(error) => return Err(error).with_context(|| format!("cannot read {}", host.display())),
    };
    let updated = oy_config::with_model(&text, id).with_context(|| {
        format!(
            "cannot update {}: it does not parse as TOML",
            host.display()
        )
    })?;
    store.write_private(&path, updated.as_bytes())?;
    Ok(host)
}

/// A diagnostic on stderr. Messages carry model ids, the filter, server
/// errors and the config path, so they pass through [`terminal_safe`].
#[expect(clippy::print_stderr, reason = "diagnostics go to stderr")]
fn note(message: &str) {
    eprintln!("oy: {}", terminal_safe(message));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str) -> ModelInfo {
        ModelInfo {
            id: id.to_owned(),
            owned_by: None,
            context_window: None,
        }
    }

    #[test]
    fn a_pick_is_a_listed_number_or_an_exact_id() {
        let models = [model("alpha"), model("beta"), model("7")];
        assert_eq!(picked(&models, "1"), Some("alpha"));
        assert_eq!(picked(&models, "3"), Some("7"));
        assert_eq!(picked(&models, "beta"), Some("beta"));
        assert_eq!(picked(&models, "0"), None);
        assert_eq!(picked(&models, "4"), None);
        assert_eq!(picked(&models, "bet"), None);
    }
}
