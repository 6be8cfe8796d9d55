//! Choosing and building the model provider from the resolved config:
//! `--provider`/config, then `OPENAI_BASE_URL`/`OPENAI_API_KEY`, then AWS
//! credentials (Bedrock), then a local server found on its usual port
//! (docs/configuration.md). Every step records why, so `oy doctor` and the session
//! header can explain the choice.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use oy_provider::{
    BedrockEndpoints, BedrockProvider, LocalServer, LocalServerKind, ModelInfo, OpenAiChatProvider,
    OpenAiConfig, OpenAiResponsesProvider, Provider, Secret,
};

use crate::config::Config;
use crate::config_file::{ProviderKind, ProviderTable, WireApi};
use crate::exit::UsageError;

const OPENAI_URL: &str = "https://api.openai.com/v1";
/// How long the local probes wait: loopback answers in milliseconds.
const PROBE_TIMEOUT: Duration = Duration::from_millis(800);
/// How long a model listing used to pick a local model may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// A provider ready to use, and how it was chosen (for `oy doctor`, the
/// session header and the transparency of `--json`).
pub(crate) struct Connected {
    /// The provider.
    pub(crate) provider: Arc<dyn Provider>,
    /// The model to use.
    pub(crate) model: String,
    /// One line: which provider, where, and why it was chosen.
    pub(crate) description: String,
}

/// Which backend, where, and why — before anything is built.
#[derive(Debug)]
pub(crate) struct Choice {
    /// The provider's name (`openai`, `ollama`, a config table's name…).
    pub(crate) name: String,
    /// Why this one: `--provider/OY_PROVIDER`, `OPENAI_API_KEY is set`…
    pub(crate) why: String,
    pub(crate) backend: Backend,
    /// The provider table's default model.
    pub(crate) table_model: Option<String>,
    /// A local server's kind: its model may be picked from its list.
    pub(crate) local: Option<LocalServerKind>,
    /// The models a probe already listed.
    pub(crate) probed_models: Option<Vec<ModelInfo>>,
}

/// How to reach the chosen provider.
#[derive(Debug)]
pub(crate) enum Backend {
    OpenAi {
        config: Box<OpenAiConfig>,
        wire: WireApi,
        /// The variable the key should come from when it is not set.
        missing_key: Option<String>,
    },
    Bedrock {
        region: Option<String>,
        profile: Option<String>,
        /// The runtime's endpoint (prompts).
        endpoint_url: Option<String>,
        /// The control plane's endpoint (model listing).
        control_endpoint_url: Option<String>,
        /// What suggests credentials exist (`AWS_PROFILE`…), if anything.
        credentials: Option<String>,
    },
}

impl Choice {
    /// Where requests go, without secrets.
    pub(crate) fn endpoint(&self) -> String {
        match &self.backend {
            Backend::OpenAi { config, .. } => without_userinfo(&config.base_url),
            Backend::Bedrock {
                region,
                endpoint_url,
                ..
            } => match (endpoint_url, region) {
                (Some(url), _) => without_userinfo(url),
                (None, Some(region)) => format!("Bedrock in {region}"),
                (None, None) => "Bedrock in the AWS profile's region".to_owned(),
            },
        }
    }

    /// `NAME: set (N chars)`, `NAME: not set`, or what stands for it.
    pub(crate) fn credential(&self) -> String {
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
            Backend::Bedrock { credentials, .. } => match credentials {
                Some(source) => format!("AWS credential chain ({source} found)"),
                None => "AWS credential chain (nothing found in the environment)".to_owned(),
            },
        }
    }
}

/// Builds the provider the config names or the environment implies, and
/// picks its model.
pub(crate) async fn connect(config: &Config) -> Result<Connected> {
    let choice = choose(config).await?;
    let (provider, endpoint) = build(config, &choice).await?;
    let (model, model_why) = choose_model(config, &choice, provider.as_ref(), None).await?;
    Ok(Connected {
        description: format!(
            "{} at {endpoint} ({}; {}); model {model} ({model_why})",
            provider.name(),
            choice.name,
            choice.why
        ),
        provider,
        model,
    })
}

/// Chooses the provider: a named one, the config's default, or the first
/// the environment offers. Nothing is contacted except local probes.
pub(crate) async fn choose(config: &Config) -> Result<Choice> {
    if let Some(name) = &config.provider {
        let why = config
            .provider_source
            .clone()
            .unwrap_or_else(|| "--provider".to_owned());
        return named(config, name, why);
    }
    let env = &config.provider_env;
    if env.openai_base_url.is_some() || env.openai_api_key.is_some() {
        let why = if env.openai_base_url.is_some() {
            "OPENAI_BASE_URL is set"
        } else {
            "OPENAI_API_KEY is set"
        };
        return named(config, "openai", why.to_owned());
    }
    if let Some(source) = &env.aws_credentials {
        return named(
            config,
            "bedrock",
            format!("AWS credentials found ({source})"),
        );
    }
    let servers = oy_provider::probe_local_servers(PROBE_TIMEOUT).await;
    if let Some(server) = servers.first() {
        return Ok(local_choice(config, server, &servers));
    }
    Err(UsageError::new(
        "no model provider configured or found\n\
         hint: set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server)\n\
         hint: or configure AWS credentials (AWS_PROFILE, ~/.aws/credentials) for Bedrock\n\
         hint: or start a local server: Ollama (port 11434), llama.cpp (8080), LM Studio (1234)\n\
         hint: or add [providers.NAME] to the config file and pass --provider NAME",
    )
    .into())
}

fn local_choice(config: &Config, server: &LocalServer, all: &[LocalServer]) -> Choice {
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
            config,
            server.base_url.clone(),
            None,
            None,
            None,
            &Default::default(),
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
        _ => "lmstudio",
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
fn named(config: &Config, name: &str, why: String) -> Result<Choice> {
    let table = config.providers.get(name);
    let builtin_local = builtin_local(name);
    let is_builtin = matches!(name, "openai" | "bedrock") || builtin_local.is_some();
    if table.is_none() && !is_builtin {
        let mut known: Vec<&str> = config.providers.keys().map(String::as_str).collect();
        known.extend(["openai", "bedrock", "ollama", "llamacpp", "lmstudio"]);
        return Err(UsageError::new(format!(
            "unknown provider `{name}`: use one of {}\nhint: add a [providers.{name}] table to the config file",
            known.join(", ")
        ))
        .into());
    }
    let default = ProviderTable::default();
    let table_ref = table.unwrap_or(&default);
    let kind = match table {
        Some(table) => table.kind,
        None if name == "bedrock" => ProviderKind::Bedrock,
        None => ProviderKind::Openai,
    };
    let backend = match kind {
        ProviderKind::Bedrock => Backend::Bedrock {
            region: table_ref.region.clone(),
            profile: table_ref.profile.clone(),
            endpoint_url: table_ref.endpoint_url.clone(),
            control_endpoint_url: table_ref.control_endpoint_url.clone(),
            credentials: config.provider_env.aws_credentials.clone(),
        },
        ProviderKind::Openai => {
            let env = &config.provider_env;
            let base_url = match (&table_ref.base_url, builtin_local, name) {
                (Some(url), _, _) => url.clone(),
                (None, Some((_, url)), _) => url.to_owned(),
                (None, None, "openai") => env
                    .openai_base_url
                    .clone()
                    .unwrap_or_else(|| OPENAI_URL.to_owned()),
                (None, None, _) => {
                    return Err(UsageError::new(format!(
                        "provider `{name}` has no base_url\nhint: add base_url = \"https://…/v1\" to [providers.{name}] in the config file"
                    ))
                    .into());
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
                config,
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

fn openai_backend(
    config: &Config,
    base_url: String,
    key: Option<Secret>,
    key_name: Option<String>,
    table_wire: Option<WireApi>,
    headers: &std::collections::BTreeMap<String, String>,
) -> Backend {
    let host = host_of(&base_url);
    let is_openai = host
        .as_deref()
        .is_some_and(|host| host.eq_ignore_ascii_case("api.openai.com"));
    let wire = config.wire_api.or(table_wire).unwrap_or(if is_openai {
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
    if let Some(idle) = config.idle_timeout {
        openai.idle_timeout = idle;
    }
    openai.proxy = proxy_for(config, &base_url);
    Backend::OpenAi {
        config: Box::new(openai),
        wire,
        missing_key,
    }
}

/// The proxy for `base_url` from the environment: never for loopback, not
/// for hosts `NO_PROXY` names.
fn proxy_for(config: &Config, base_url: &str) -> Option<String> {
    let env = &config.provider_env;
    let host = host_of(base_url)?;
    let trimmed = host.trim_start_matches('[').trim_end_matches(']');
    if trimmed.eq_ignore_ascii_case("localhost")
        || trimmed.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    {
        return None;
    }
    if let Some(no_proxy) = &env.no_proxy
        && no_proxy.split(',').map(str::trim).any(|entry| {
            let entry = entry.trim_start_matches('.').trim_start_matches("*.");
            entry == "*"
                || (!entry.is_empty()
                    && (trimmed.eq_ignore_ascii_case(entry)
                        || trimmed
                            .to_ascii_lowercase()
                            .ends_with(&format!(".{}", entry.to_ascii_lowercase()))))
        })
    {
        return None;
    }
    let proxy = if base_url.starts_with("http://") {
        &env.http_proxy
    } else {
        &env.https_proxy
    };
    proxy.as_ref().map(|proxy| proxy.expose().to_owned())
}

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if authority.starts_with('[') {
        authority
            .split_once(']')
            .map(|(host, _)| format!("{host}]"))?
    } else {
        authority.split(':').next()?.to_owned()
    };
    (!host.is_empty()).then_some(host)
}

/// Builds the chosen provider; returns it and where it sends requests.
pub(crate) async fn build(config: &Config, choice: &Choice) -> Result<(Arc<dyn Provider>, String)> {
    match &choice.backend {
        Backend::OpenAi {
            config: openai,
            wire,
            missing_key,
        } => {
            if let Some(name) = missing_key {
                return Err(UsageError::new(format!(
                    "provider `{}` needs an API key in {name}, which is not set\nhint: export {name}=… (the key is never written to disk by oy)",
                    choice.name
                ))
                .into());
            }
            let endpoint = openai.base_url.clone();
            let provider: Arc<dyn Provider> = match wire {
                WireApi::Responses => Arc::new(OpenAiResponsesProvider::new((**openai).clone())?),
                WireApi::Chat => Arc::new(OpenAiChatProvider::new((**openai).clone())?),
            };
            Ok((provider, endpoint))
        }
        Backend::Bedrock {
            region,
            profile,
            endpoint_url,
            control_endpoint_url,
            ..
        } => {
            let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
            if let Some(region) = region {
                loader = loader.region(aws_config::Region::new(region.clone()));
            }
            if let Some(profile) = profile {
                loader = loader.profile_name(profile);
            }
            // The endpoints go to the provider, not the loader: an
            // endpoint in the SDK config applies to every service, and the
            // runtime's would then receive the control plane's calls.
            let sdk = loader.load().await;
            let endpoint = match (endpoint_url, sdk.region()) {
                (Some(url), _) => url.clone(),
                (None, Some(region)) => format!("Bedrock in {region}"),
                (None, None) => "Bedrock (no region configured)".to_owned(),
            };
            let endpoints = BedrockEndpoints {
                runtime: endpoint_url.clone(),
                control: control_endpoint_url.clone(),
            };
            let mut provider = BedrockProvider::from_sdk_config(&sdk, &endpoints);
            if let Some(idle) = config.idle_timeout {
                provider = provider.with_idle_timeout(idle);
            }
            Ok((Arc::new(provider), endpoint))
        }
    }
}

/// What to do when the model list cannot be had but prompts can get
/// through: for Bedrock the list comes from its control plane, which a
/// runtime endpoint does not serve.
pub(crate) fn listing_hint(choice: &Choice) -> Option<String> {
    match choice.backend {
        Backend::Bedrock { .. } => Some(format!(
            "Bedrock lists models through its control plane (service `bedrock`), not the runtime; \
             set control_endpoint_url in [providers.{}] (kind = \"bedrock\") to where it is served",
            choice.name
        )),
        Backend::OpenAi { .. } => None,
    }
}

/// The model: the configured one, else the only model the server lists
/// (any server: a local one named by `OPENAI_BASE_URL` or a table as much
/// as an autodetected one), else Ollama's first when Ollama was detected;
/// else a usage error saying how to choose one. `listed` is a listing the
/// caller already has, so the server is not asked twice.
pub(crate) async fn choose_model(
    config: &Config,
    choice: &Choice,
    provider: &dyn Provider,
    listed: Option<&[ModelInfo]>,
) -> Result<(String, String)> {
    if let Some(model) = &config.model {
        let why = config
            .model_source
            .clone()
            .unwrap_or_else(|| "configured".to_owned());
        return Ok((model.clone(), why));
    }
    if let Some(model) = &choice.table_model {
        return Ok((
            model.clone(),
            format!("providers.{}.model in the config", choice.name),
        ));
    }
    let models = match (&choice.probed_models, listed) {
        (Some(models), _) => Some(models.clone()),
        (None, Some(listed)) => Some(listed.to_vec()),
        (None, None) => tokio::time::timeout(LIST_TIMEOUT, provider.list_models())
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
            (_, [only]) => return Ok((only.id.clone(), format!("the only model {server} lists"))),
            (Some(LocalServerKind::Ollama), [first, ..]) => {
                return Ok((first.id.clone(), "the first model Ollama lists".to_owned()));
            }
            _ => {}
        }
    }
    Err(UsageError::new(format!(
        "no model chosen for provider `{}`: pass --model ID or set OY_MODEL\n\
         hint: `oy model` lists the provider's models; `oy model --set ID` saves one as the default",
        choice.name
    ))
    .into())
}

#[cfg(test)]
mod tests {
    use super::host_of;

    #[test]
    fn host_of_strips_userinfo_port_and_path() {
        assert_eq!(
            host_of("https://u:p@example.com:8443/v1").as_deref(),
            Some("example.com")
        );
        assert_eq!(host_of("http://[::1]:8080/v1").as_deref(), Some("[::1]"));
        assert_eq!(host_of("http://127.0.0.1/v1").as_deref(), Some("127.0.0.1"));
        assert_eq!(host_of("not a url"), None);
    }
}

/// `url` with any `user:password@` replaced by `***@`, for display: a
/// base URL may carry credentials, and doctor output gets pasted into
/// issues.
pub(crate) fn without_userinfo(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_owned();
    };
    let authority_start = scheme_end + 3;
    let authority_end = url[authority_start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |end| authority_start + end);
    match url[authority_start..authority_end].rfind('@') {
        Some(at) => format!(
            "{}***@{}",
            &url[..authority_start],
            &url[authority_start + at + 1..]
        ),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod userinfo_tests {
    use super::without_userinfo;

    #[test]
    fn credentials_in_a_url_are_hidden() {
        assert_eq!(
            without_userinfo("https://user:s3cr3t@gw.example/v1"),
            "https://***@gw.example/v1"
        );
        assert_eq!(
            without_userinfo("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(without_userinfo("https://a@b@host"), "https://***@host");
        assert_eq!(without_userinfo("not a url"), "not a url");
    }
}
