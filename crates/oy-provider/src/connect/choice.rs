//! [`choose_provider`]: which provider, where, and why — before anything is
//! built. A named provider (a table over a built-in of the same name), then
//! `OPENAI_BASE_URL`/`OPENAI_API_KEY`, then AWS credentials (Bedrock), then
//! a local server found on its usual port (docs/configuration.md). Nothing
//! is contacted except the local probes.

use std::collections::BTreeMap;

use super::proxy::{host_of, proxy_for};
use super::{ConnectError, ConnectSettings, ProviderKind, ProviderTable, WireApi};
use crate::{LocalServer, LocalServerKind, ModelInfo, OpenAiConfig, Secret, probe_servers};
use oy_secrets::redact_userinfo;

/// OpenAI's own API root, for the built-in `openai`.
const OPENAI_URL: &str = "https://api.openai.com/v1";

/// The built-in providers' names, after the tables' in messages.
const BUILTINS: [&str; 5] = ["openai", "bedrock", "ollama", "llamacpp", "lmstudio"];

/// Which backend, where, and why.
#[derive(Debug)]
#[non_exhaustive]
pub struct Choice {
    /// The provider's name (`openai`, `ollama`, a config table's name…).
    pub name: String,
    /// Why this one: the source that named it, `OPENAI_API_KEY is set`…
    pub why: String,
    /// How to reach it.
    pub backend: Backend,
    /// The provider table's default model.
    pub table_model: Option<String>,
    /// A local server's kind: its model may be picked from its list.
    pub local: Option<LocalServerKind>,
    /// The models a probe already listed.
    pub probed_models: Option<Vec<ModelInfo>>,
}

/// How to reach the chosen provider.
#[derive(Debug)]
#[non_exhaustive]
pub enum Backend {
    /// An OpenAI-compatible server.
    OpenAi {
        /// The settings the backend is built from.
        config: Box<OpenAiConfig>,
        /// The wire API: the override, else the table's, else by host.
        wire: WireApi,
        /// The variable the key should come from when it is not set.
        missing_key: Option<String>,
    },
    /// AWS Bedrock.
    Bedrock(BedrockChoice),
}

/// Where and as whom Bedrock is reached.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct BedrockChoice {
    /// The region asked for (else the AWS profile's).
    pub region: Option<String>,
    /// The AWS profile asked for.
    pub profile: Option<String>,
    /// The runtime's endpoint (prompts).
    pub endpoint_url: Option<String>,
    /// The control plane's endpoint (model listing).
    pub control_endpoint_url: Option<String>,
    /// What suggests credentials exist (`AWS_PROFILE`…), if anything.
    pub credentials: Option<String>,
}

impl Choice {
    /// Where requests go, without secrets.
    pub fn endpoint(&self) -> String {
        match &self.backend {
            Backend::OpenAi { config, .. } => redact_userinfo(&config.base_url).into_owned(),
            Backend::Bedrock(BedrockChoice {
                region,
                endpoint_url,
                ..
            }) => match (endpoint_url, region) {
                (Some(url), _) => redact_userinfo(url).into_owned(),
                (None, Some(region)) => format!("Bedrock in {region}"),
                (None, None) => "Bedrock in the AWS profile's region".to_owned(),
            },
        }
    }

    /// The OpenAI wire API, for an OpenAI-compatible backend.
    pub fn wire_api(&self) -> Option<WireApi> {
        match &self.backend {
            Backend::OpenAi { wire, .. } => Some(*wire),
            Backend::Bedrock(_) => None,
        }
    }

    /// `NAME: set (N chars)`, `NAME: not set`, or what stands for it.
    pub fn credential(&self) -> String {
        match &self.backend {
            Backend::OpenAi {
                config,
                missing_key: Some(name),
                ..
            } if config.api_key.is_none() => format!("{name}: not set"),
            Backend::OpenAi { config, .. } => match (&config.api_key, &config.api_key_name) {
                (Some(key), Some(name)) => {
                    format!("{name}: set ({} chars)", key.expose().chars().count())
                }
                _ => "none (none needed for this endpoint)".to_owned(),
            },
            Backend::Bedrock(BedrockChoice { credentials, .. }) => match credentials {
                Some(source) => format!("AWS credential chain ({source} found)"),
                None => "AWS credential chain (nothing found in the environment)".to_owned(),
            },
        }
    }

    /// True for Bedrock with no sign of AWS credentials in the environment:
    /// the SDK's chain may still find some, but calls will likely fail.
    pub fn lacks_aws_credentials(&self) -> bool {
        matches!(
            self.backend,
            Backend::Bedrock(BedrockChoice {
                credentials: None,
                ..
            })
        )
    }

    /// What to do when the model list cannot be had but prompts can get
    /// through: for Bedrock the list comes from its control plane, which a
    /// runtime endpoint does not serve.
    pub fn listing_hint(&self) -> Option<String> {
        match self.backend {
            Backend::Bedrock(_) => Some(format!(
                "Bedrock lists models through its control plane (service `bedrock`), not the runtime; \
                 set control_endpoint_url in [providers.{}] (kind = \"bedrock\") to where it is served",
                self.name
            )),
            Backend::OpenAi { .. } => None,
        }
    }
}

/// Chooses the provider: the one `settings` names, or the first the
/// environment offers, or a local server that answers a probe.
pub async fn choose_provider(settings: &ConnectSettings) -> Result<Choice, ConnectError> {
    if let Some(named) = &settings.provider {
        return self::named(settings, &named.value, named.source.clone());
    }
    let env = &settings.env;
    if env.openai_base_url.is_some() || env.openai_api_key.is_some() {
        let why = if env.openai_base_url.is_some() {
            "OPENAI_BASE_URL is set"
        } else {
            "OPENAI_API_KEY is set"
        };
        return named(settings, "openai", why.to_owned());
    }
    if let Some(source) = &env.aws_credentials {
        return named(
            settings,
            "bedrock",
            format!("AWS credentials found ({source})"),
        );
    }
    let servers = probe_servers(&settings.probe, settings.probe_timeout).await;
    match servers.first() {
        Some(server) => Ok(local_choice(settings, server, &servers)),
        None => Err(ConnectError::NoProvider),
    }
}

fn local_choice(settings: &ConnectSettings, server: &LocalServer, all: &[LocalServer]) -> Choice {
    let mut why = format!(
        "found {} at {} with {} model(s)",
        server.kind.name(),
        server.base_url,
        server.models.len()
    );
    if all.len() > 1 {
        let others: Vec<&str> = all[1..].iter().map(|other| other.kind.name()).collect();
        why.push_str(&format!(", also found {}", others.join(", ")));
    }
    Choice {
        name: builtin_local_name(server.kind).to_owned(),
        why,
        backend: openai_backend(
            settings,
            server.base_url.clone(),
            None,
            None,
            None,
            &BTreeMap::new(),
        ),
        table_model: None,
        local: Some(server.kind),
        probed_models: Some(server.models.clone()),
    }
}

fn builtin_local_name(kind: LocalServerKind) -> &'static str {
    match kind {
        LocalServerKind::Ollama => "ollama",
        LocalServerKind::LlamaCpp => "llamacpp",
        LocalServerKind::LmStudio => "lmstudio",
    }
}

/// The built-in local servers' kinds and API roots.
fn builtin_local(name: &str) -> Option<(LocalServerKind, &'static str)> {
    match name {
        "ollama" => Some((LocalServerKind::Ollama, "http://127.0.0.1:11434/v1")),
        "llamacpp" => Some((LocalServerKind::LlamaCpp, "http://127.0.0.1:8080/v1")),
        "lmstudio" => Some((LocalServerKind::LmStudio, "http://127.0.0.1:1234/v1")),
        _ => None,
    }
}

/// A provider by name: a config table (over a built-in of the same name),
/// or a built-in.
fn named(settings: &ConnectSettings, name: &str, why: String) -> Result<Choice, ConnectError> {
    let table = settings.providers.get(name);
    let builtin_local = builtin_local(name);
    if table.is_none() && !BUILTINS.contains(&name) {
        let known = settings.providers.keys().cloned();
        return Err(ConnectError::UnknownProvider {
            name: name.to_owned(),
            known: known.chain(BUILTINS.map(str::to_owned)).collect(),
        });
    }
    let default = ProviderTable::default();
    let table_ref = table.unwrap_or(&default);
    let kind = match table {
        Some(table) => table.kind,
        None if name == "bedrock" => ProviderKind::Bedrock,
        None => ProviderKind::Openai,
    };
    let env = &settings.env;
    let backend = match kind {
        ProviderKind::Bedrock => Backend::Bedrock(BedrockChoice {
            region: table_ref.region.clone(),
            profile: table_ref.profile.clone(),
            endpoint_url: table_ref.endpoint_url.clone(),
            control_endpoint_url: table_ref.control_endpoint_url.clone(),
            credentials: env.aws_credentials.clone(),
        }),
        ProviderKind::Openai => {
            let base_url = match (&table_ref.base_url, builtin_local, name) {
                (Some(url), _, _) => url.clone(),
                (None, Some((_, url)), _) => url.to_owned(),
                (None, None, "openai") => env
                    .openai_base_url
                    .clone()
                    .unwrap_or_else(|| OPENAI_URL.to_owned()),
                (None, None, _) => {
                    return Err(ConnectError::NoBaseUrl {
                        name: name.to_owned(),
                    });
                }
            };
            // The key: the table's env_key, else OPENAI_API_KEY for the
            // built-in `openai` only — a local server never gets it.
            let (key, key_name) = match (&table_ref.env_key, name) {
                (Some(var), _) => (env.keys.get(var).cloned(), Some(var.clone())),
                (None, "openai") => (
                    env.openai_api_key.clone(),
                    Some("OPENAI_API_KEY".to_owned()),
                ),
                (None, _) => (None, None),
            };
            openai_backend(
                settings,
                base_url,
                key,
                key_name,
                table_ref.wire_api,
                &table_ref.headers,
            )
        }
    };
    Ok(Choice {
        name: name.to_owned(),
        why,
        backend,
        table_model: table_ref.model.clone(),
        local: builtin_local.map(|(kind, _)| kind),
        probed_models: None,
    })
}

/// An OpenAI-compatible backend at `base_url`: Responses on OpenAI's own
/// host, Chat Completions elsewhere, unless told otherwise.
fn openai_backend(
    settings: &ConnectSettings,
    base_url: String,
    key: Option<Secret>,
    key_name: Option<String>,
    table_wire: Option<WireApi>,
    headers: &BTreeMap<String, String>,
) -> Backend {
    let is_openai = host_of(&base_url)
        .as_deref()
        .is_some_and(|host| host.eq_ignore_ascii_case("api.openai.com"));
    let wire = settings.wire_api.or(table_wire).unwrap_or(if is_openai {
        WireApi::Responses
    } else {
        WireApi::Chat
    });
    // A missing key matters only where one is expected: a named env_key, or
    // OpenAI's own endpoint.
    let missing_key = match (&key, &key_name) {
        (None, Some(name)) if name != "OPENAI_API_KEY" || is_openai => Some(name.clone()),
        _ => None,
    };
    let mut openai = OpenAiConfig::new(base_url.clone());
    openai.api_key = key;
    openai.api_key_name = key_name;
    openai.extra_headers = headers
        .iter()
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    if let Some(idle) = settings.idle_timeout {
        openai.idle_timeout = idle;
    }
    openai.proxy = proxy_for(&settings.env, &base_url);
    Backend::OpenAi {
        config: Box::new(openai),
        wire,
        missing_key,
    }
}
