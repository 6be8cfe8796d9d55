//! Reading each server's answer to a window probe. Every parser takes the
//! raw body and returns `None` for anything that is not the expected JSON
//! with a positive window: a probe that cannot tell is never an error.

use serde_json::Value;

use super::{ServerWindow, WindowSource};

/// A positive whole number of tokens (servers written in C++ or Python may
/// send `4096.0`).
fn tokens(value: Option<&Value>) -> Option<u64> {
    let value = value?;
    value
        .as_u64()
        .or_else(|| {
            let float = value.as_f64()?;
            (float.fract() == 0.0 && float > 0.0 && float < 1e15).then_some(float as u64)
        })
        .filter(|&tokens| tokens > 0)
}

fn object(body: &[u8]) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_slice(body).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// llama.cpp's `GET /props`: `default_generation_settings.n_ctx`, the
/// context of one slot. That object held the sampling settings flat in
/// older servers and nests them under `params` in newer ones; `n_ctx`
/// stays beside them in both. A top-level `n_ctx` is read when that one is
/// missing. A router with no model named answers `0`: cannot tell.
pub(super) fn llama_cpp_props(body: &[u8]) -> Option<ServerWindow> {
    let props = object(body)?;
    let n_ctx = tokens(
        props
            .get("default_generation_settings")
            .and_then(|settings| settings.get("n_ctx")),
    )
    .or_else(|| tokens(props.get("n_ctx")))?;
    Some(ServerWindow::new(n_ctx, WindowSource::LlamaCppProps))
}

/// What Ollama's `POST /api/show` tells about the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct OllamaShow {
    /// `num_ctx` from the `parameters` text, when the model sets it.
    num_ctx: Option<u64>,
    /// `<arch>.context_length` from `model_info`: what it was trained for.
    trained: Option<u64>,
    /// `model_info` names `general.architecture`, as Ollama's does (other
    /// servers answering `/api/show` for Ollama's clients do not).
    is_ollama: bool,
}

/// Ollama's `POST /api/show`: `{"parameters": "num_ctx    8192\nstop …",
/// "model_info": {"general.architecture": "llama",
/// "llama.context_length": 131072, …}, …}`.
pub(super) fn ollama_show(body: &[u8]) -> Option<OllamaShow> {
    let show = object(body)?;
    let num_ctx = show
        .get("parameters")
        .and_then(Value::as_str)
        .and_then(|text| {
            text.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some("num_ctx"))
                    .then(|| words.next()?.parse::<u64>().ok())
                    .flatten()
            })
        })
        .filter(|&tokens| tokens > 0);
    let info = show.get("model_info").and_then(Value::as_object);
    let arch = info
        .and_then(|info| info.get("general.architecture"))
        .and_then(Value::as_str);
    let trained = info.and_then(|info| match arch {
        Some(arch) => tokens(info.get(&format!("{arch}.context_length"))),
        None => {
            let mut lengths = info
                .iter()
                .filter(|(key, _)| key.ends_with(".context_length"))
                .map(|(_, value)| tokens(Some(value)));
            let only = lengths.next()??;
            lengths.next().is_none().then_some(only)
        }
    });
    Some(OllamaShow {
        num_ctx,
        trained,
        is_ollama: arch.is_some(),
    })
}

/// Ollama's `GET /api/ps`: the `context_length` of `model` when it is
/// loaded (`{"models": [{"name": "qwen3:8b", "model": "qwen3:8b",
/// "context_length": 8192, …}]}`; older servers omit the field).
pub(super) fn ollama_ps(body: &[u8], model: &str) -> Option<u64> {
    let ps = object(body)?;
    let wanted = ollama_name(model);
    ps.get("models")?.as_array()?.iter().find_map(|entry| {
        let named = ["name", "model"].iter().any(|key| {
            entry
                .get(key)
                .and_then(Value::as_str)
                .is_some_and(|name| ollama_name(name) == wanted)
        });
        named.then(|| tokens(entry.get("context_length"))).flatten()
    })
}

/// An Ollama model name as the server resolves it: the default registry and
/// namespace dropped, the `latest` tag added when none is given.
fn ollama_name(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_prefix("registry.ollama.ai/").unwrap_or(name);
    let name = name.strip_prefix("library/").unwrap_or(name);
    let last = name.rsplit('/').next().unwrap_or(name);
    if last.contains(':') {
        name.to_ascii_lowercase()
    } else {
        format!("{}:latest", name.to_ascii_lowercase())
    }
}

/// Ollama's `GET /api/version`: `{"version": "0.12.3"}` as
/// `(major, minor, patch)`. A build from source says `0.0.0`: unknown.
pub(super) fn ollama_version(body: &[u8]) -> Option<(u64, u64, u64)> {
    let text = object(body)?.get("version")?.as_str()?.to_owned();
    let core = text.trim().trim_start_matches('v');
    let mut parts = core
        .split(['.', '-', '+'])
        .map(|part| part.parse::<u64>().ok());
    let version = (parts.next()??, parts.next()??, parts.next()??);
    (version != (0, 0, 0)).then_some(version)
}

/// The window Ollama's OpenAI-compatible endpoint runs the model with: the
/// model's own `num_ctx` (capped at its trained context, as Ollama caps
/// it), else the context it is loaded with, else the server's smallest
/// default for its version (2048 before 0.6.7, 4096 since; unknown → 2048).
pub(super) fn ollama_window(
    show: &OllamaShow,
    loaded: Option<u64>,
    version: Option<(u64, u64, u64)>,
) -> Option<ServerWindow> {
    let capped = |tokens: u64| show.trained.map_or(tokens, |trained| tokens.min(trained));
    if let Some(num_ctx) = show.num_ctx {
        return Some(ServerWindow::new(
            capped(num_ctx),
            WindowSource::OllamaNumCtx,
        ));
    }
    if let Some(loaded) = loaded {
        return Some(ServerWindow::new(loaded, WindowSource::OllamaLoaded));
    }
    if !show.is_ollama {
        return None;
    }
    let default = match version {
        Some(version) if version >= (0, 6, 7) => 4096,
        _ => 2048,
    };
    Some(ServerWindow::new(
        capped(default),
        WindowSource::OllamaDefault,
    ))
}

/// LM Studio's `GET /api/v0/models/{model}`: `loaded_context_length` while
/// the model is loaded, else `max_context_length`.
pub(super) fn lm_studio_model(body: &[u8]) -> Option<ServerWindow> {
    let info = object(body)?;
    let state = info.get("state").and_then(Value::as_str);
    let loaded = tokens(info.get("loaded_context_length"));
    match (state, loaded) {
        (Some("loaded") | None, Some(tokens)) => {
            Some(ServerWindow::new(tokens, WindowSource::LmStudioLoaded))
        }
        _ => tokens(info.get("max_context_length"))
            .map(|tokens| ServerWindow::new(tokens, WindowSource::LmStudioMax)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bytes(value: &Value) -> Vec<u8> {
        serde_json::to_vec(value).unwrap()
    }

    #[test]
    fn llama_cpp_props_in_every_layout() {
        // Flat sampling settings beside n_ctx (2024 servers).
        let flat = json!({
            "assistant_name": "", "user_name": "",
            "default_generation_settings": {"n_ctx": 4096, "temperature": 0.8, "model": "m.gguf"},
            "total_slots": 1
        });
        // Nested under `params` (current servers).
        let nested = json!({
            "default_generation_settings": {"params": {"temperature": 0.8}, "n_ctx": 16384},
            "total_slots": 4, "model_path": "/models/m.gguf", "build_info": "b6000-abc"
        });
        let top = json!({"n_ctx": 2048.0});
        let window = |value: &Value| llama_cpp_props(&bytes(value)).map(|w| w.tokens);
        assert_eq!(window(&flat), Some(4096));
        assert_eq!(window(&nested), Some(16384));
        assert_eq!(window(&top), Some(2048));
        // A router asked without a model, and things that are not props.
        let router =
            json!({"role": "router", "default_generation_settings": {"params": {}, "n_ctx": 0}});
        assert_eq!(window(&router), None);
        assert_eq!(window(&json!({"n_ctx": -1})), None);
        assert_eq!(window(&json!([1, 2])), None);
        assert_eq!(llama_cpp_props(b"<html>props</html>"), None);
    }

    #[test]
    fn ollama_show_reads_num_ctx_and_the_trained_context() {
        let body = json!({
            "modelfile": "FROM /x\nPARAMETER num_ctx 8192",
            "parameters": "num_ctx                        8192\nstop                           \"<|eot_id|>\"",
            "model_info": {"general.architecture": "llama", "llama.context_length": 131072},
        });
        let show = ollama_show(&bytes(&body)).unwrap();
        assert_eq!(
            show,
            OllamaShow {
                num_ctx: Some(8192),
                trained: Some(131_072),
                is_ollama: true
            }
        );
        // llama.cpp answers /api/show for Ollama's clients: no architecture.
        let shim = json!({"parameters": "", "model_info": {"llama.context_length": 8192}});
        let show = ollama_show(&bytes(&shim)).unwrap();
        assert_eq!(
            (show.num_ctx, show.trained, show.is_ollama),
            (None, Some(8192), false)
        );
        // Two candidate lengths and no architecture: cannot tell which.
        let two = json!({"model_info": {"a.context_length": 1, "b.context_length": 2}});
        assert_eq!(ollama_show(&bytes(&two)).unwrap().trained, None);
        assert_eq!(ollama_show(b"not json"), None);
    }

    #[test]
    fn ollama_window_prefers_num_ctx_then_loaded_then_default() {
        let show = |num_ctx, trained| OllamaShow {
            num_ctx,
            trained,
            is_ollama: true,
        };
        let window = |show: &OllamaShow, loaded, version| {
            ollama_window(show, loaded, version).map(|w| (w.tokens, w.source))
        };
        let new = Some((0, 12, 3));
        assert_eq!(
            window(&show(Some(8192), Some(131_072)), Some(4096), new),
            Some((8192, WindowSource::OllamaNumCtx))
        );
        // Ollama caps num_ctx at the trained context.
        assert_eq!(
            window(&show(Some(65536), Some(32768)), None, new),
            Some((32768, WindowSource::OllamaNumCtx))
        );
        assert_eq!(
            window(&show(None, Some(131_072)), Some(32768), new),
            Some((32768, WindowSource::OllamaLoaded))
        );
        assert_eq!(
            window(&show(None, Some(131_072)), None, new),
            Some((4096, WindowSource::OllamaDefault))
        );
        assert_eq!(
            window(&show(None, Some(131_072)), None, Some((0, 6, 6))),
            Some((2048, WindowSource::OllamaDefault))
        );
        assert_eq!(
            window(&show(None, None), None, None),
            Some((2048, WindowSource::OllamaDefault))
        );
        assert_eq!(
            window(&show(None, Some(1024)), None, new),
            Some((1024, WindowSource::OllamaDefault))
        );
        let not_ollama = OllamaShow {
            num_ctx: None,
            trained: Some(8192),
            is_ollama: false,
        };
        assert_eq!(window(&not_ollama, None, new), None);
    }

    #[test]
    fn ollama_ps_matches_names_as_ollama_resolves_them() {
        let body = bytes(&json!({"models": [
            {"name": "qwen3:8b", "model": "qwen3:8b", "context_length": 8192},
            {"name": "llama3:latest", "model": "llama3:latest", "context_length": 4096},
            {"name": "old:latest", "model": "old:latest"},
        ]}));
        assert_eq!(ollama_ps(&body, "qwen3:8b"), Some(8192));
        assert_eq!(ollama_ps(&body, "llama3"), Some(4096));
        assert_eq!(ollama_ps(&body, "library/llama3:latest"), Some(4096));
        assert_eq!(ollama_ps(&body, "qwen3"), None);
        assert_eq!(ollama_ps(&body, "old"), None);
        assert_eq!(ollama_ps(b"{\"models\": null}", "llama3"), None);
    }

    #[test]
    fn ollama_version_parses_releases_only() {
        let version = |text: &str| ollama_version(&bytes(&json!({ "version": text })));
        assert_eq!(version("0.12.3"), Some((0, 12, 3)));
        assert_eq!(version("0.6.7-rc1"), Some((0, 6, 7)));
        assert_eq!(version("0.0.0"), None);
        assert_eq!(version("dev"), None);
        assert_eq!(ollama_version(b"[]"), None);
    }

    #[test]
    fn lm_studio_loaded_or_max() {
        let loaded = json!({"id": "qwen3-8b", "state": "loaded",
            "max_context_length": 32768, "loaded_context_length": 4096});
        let unloaded =
            json!({"id": "qwen3-8b", "state": "not-loaded", "max_context_length": 32768});
        let window = |value: &Value| lm_studio_model(&bytes(value)).map(|w| (w.tokens, w.source));
        assert_eq!(window(&loaded), Some((4096, WindowSource::LmStudioLoaded)));
        assert_eq!(window(&unloaded), Some((32768, WindowSource::LmStudioMax)));
        assert_eq!(window(&json!({"error": "model not found"})), None);
    }
}
