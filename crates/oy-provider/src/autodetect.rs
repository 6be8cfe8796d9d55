//! Finding a model server on this machine: Ollama, llama.cpp's server and
//! LM Studio on their usual loopback ports, each asked for its model list
//! with a short timeout. No probe ever carries a credential or leaves the
//! configured host (127.0.0.1 unless a test injects another).

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use serde::Deserialize;

use crate::model::ModelInfo;
use crate::openai::parse_models;

/// Which kind of local server answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LocalServerKind {
    /// Ollama (port 11434).
    Ollama,
    /// llama.cpp's `llama-server` (port 8080).
    LlamaCpp,
    /// LM Studio (port 1234).
    LmStudio,
}

impl LocalServerKind {
    /// A name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ollama => "Ollama",
            Self::LlamaCpp => "llama.cpp",
            Self::LmStudio => "LM Studio",
        }
    }
}

/// A server that answered a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalServer {
    /// What it is.
    pub kind: LocalServerKind,
    /// Its OpenAI-compatible API root (`http://127.0.0.1:<port>/v1`).
    pub base_url: String,
    /// The models it offers (possibly none).
    pub models: Vec<ModelInfo>,
}

/// Where to look: a host and one port per kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeTargets {
    /// The host probed; loopback in real use.
    pub host: IpAddr,
    /// `(kind, port)` pairs, probed concurrently, reported in this order.
    pub ports: Vec<(LocalServerKind, u16)>,
}

impl Default for ProbeTargets {
    fn default() -> Self {
        Self {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            ports: vec![
                (LocalServerKind::Ollama, 11434),
                (LocalServerKind::LlamaCpp, 8080),
                (LocalServerKind::LmStudio, 1234),
            ],
        }
    }
}

/// Probes the usual local ports; see [`probe_servers`].
pub async fn probe_local_servers(timeout: Duration) -> Vec<LocalServer> {
    probe_servers(&ProbeTargets::default(), timeout).await
}

/// Probes every target concurrently, each within `timeout`, and returns
/// those that answered with a model list. Anything else on a port (closed,
/// another program, an error status, a body that is not a model list) is
/// simply not reported.
pub async fn probe_servers(targets: &ProbeTargets, timeout: Duration) -> Vec<LocalServer> {
    let Ok(client) = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(timeout)
        .timeout(timeout)
        .build()
    else {
        return Vec::new();
    };
    let probes = targets.ports.iter().map(|&(kind, port)| {
        let root = match targets.host {
            IpAddr::V4(ip) => format!("http://{ip}:{port}"),
            IpAddr::V6(ip) => format!("http://[{ip}]:{port}"),
        };
        let client = client.clone();
        async move { probe_one(&client, kind, root).await }
    });
    futures_util::future::join_all(probes)
        .await
        .into_iter()
        .flatten()
        .collect()
}

async fn probe_one(
    client: &reqwest::Client,
    kind: LocalServerKind,
    root: String,
) -> Option<LocalServer> {
    let base_url = format!("{root}/v1");
    if kind == LocalServerKind::Ollama
        && let Some(body) = fetch(client, &format!("{root}/api/tags")).await
        && let Some(models) = parse_ollama_tags(&body)
    {
        return Some(LocalServer {
            kind,
            base_url,
            models,
        });
    }
    let body = fetch(client, &format!("{base_url}/models")).await?;
    let models = parse_models(&body).ok()?;
    Some(LocalServer {
        kind,
        base_url,
        models,
    })
}

/// A small body, or `None` for any failure.
async fn fetch(client: &reqwest::Client, url: &str) -> Option<Vec<u8>> {
    /// A model list is small; anything bigger is not what we are after.
    const MAX_PROBE_BYTES: usize = 1024 * 1024;
    let mut response = client.get(url).send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.ok()? {
        if body.len() + chunk.len() > MAX_PROBE_BYTES {
            return None;
        }
        body.extend_from_slice(&chunk);
    }
    Some(body)
}

/// Ollama's `GET /api/tags`: `{"models": [{"name": "llama3:8b", …}]}`.
fn parse_ollama_tags(body: &[u8]) -> Option<Vec<ModelInfo>> {
    #[derive(Deserialize)]
    struct Tags {
        models: Vec<Tag>,
    }
    // Ollama sends both `name` and `model` (the same string); older
    // versions only `name`.
    #[derive(Deserialize)]
    struct Tag {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        model: Option<String>,
    }
    let tags: Tags = serde_json::from_slice(body).ok()?;
    Some(
        tags.models
            .into_iter()
            .filter_map(|tag| tag.name.or(tag.model))
            .map(|id| ModelInfo {
                id,
                owned_by: Some("ollama".to_owned()),
                context_window: None,
            })
            .collect(),
    )
}
