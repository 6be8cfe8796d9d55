//! Choosing and connecting a provider from plain values: the order
//! (named, `OPENAI_*`, AWS, a local server), the wire API by host, where
//! keys come from, the model choice, the environment's resolution, and the
//! typed errors with their hints. Local servers are mock servers on random
//! loopback ports; nothing probes the real ones.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::time::Duration;

use oy_provider::{
    AwsConfig, AwsSettings, Choice, ConnectError, ConnectSettings, LocalServerKind, ModelInfo,
    ProbeTargets, ProviderEnv, ProviderTable, Secret, Sourced, WireApi, build_provider,
    choose_model, choose_provider, connect,
};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::openai_spec::guarded_server;

fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Settings whose local probe finds nothing: a closed loopback port.
fn settings() -> ConnectSettings {
    let mut settings = ConnectSettings::default();
    settings.probe = ProbeTargets {
        host: IpAddr::V4(Ipv4Addr::LOCALHOST),
        ports: vec![(LocalServerKind::Ollama, closed_port())],
    };
    settings
}

fn env(vars: &[(&str, &str)]) -> ProviderEnv {
    let vars: BTreeMap<String, String> = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    ProviderEnv::from_vars(
        &BTreeMap::new(),
        |name| vars.get(name).map(OsString::from),
        |_| false,
    )
}

fn table(base_url: Option<&str>) -> ProviderTable {
    let mut table = ProviderTable::default();
    table.base_url = base_url.map(str::to_owned);
    table
}

fn models(ids: &[&str]) -> serde_json::Value {
    let data: Vec<_> = ids
        .iter()
        .map(|id| json!({"id": id, "object": "model", "owned_by": "test"}))
        .collect();
    json!({"object": "list", "data": data})
}

async fn chosen(settings: &ConnectSettings) -> Choice {
    choose_provider(settings).await.unwrap()
}

/// A loader for tests that choose no Bedrock provider.
async fn no_aws(_: AwsSettings) -> AwsConfig {
    panic!("AWS configuration loaded for a provider that is not Bedrock")
}

#[tokio::test]
async fn openai_base_url_wins_over_aws_credentials_and_speaks_chat() {
    let mut settings = settings();
    settings.env = env(&[
        ("OPENAI_BASE_URL", "https://gw.example/v1"),
        ("AWS_PROFILE", "dev"),
    ]);
    let choice = chosen(&settings).await;
    assert_eq!(choice.name, "openai");
    assert_eq!(choice.why, "OPENAI_BASE_URL is set");
    assert_eq!(choice.endpoint(), "https://gw.example/v1");
    assert_eq!(choice.wire_api(), Some(WireApi::Chat));
    // A gateway may need no key: its absence is not a problem here.
    assert_eq!(choice.credential(), "none (none needed for this endpoint)");
    assert_eq!(choice.listing_hint(), None);
}

#[tokio::test]
async fn an_openai_key_alone_means_openai_over_the_responses_api() {
    let mut settings = settings();
    settings.env = env(&[("OPENAI_API_KEY", "sk-12345")]);
    let choice = chosen(&settings).await;
    assert_eq!(choice.why, "OPENAI_API_KEY is set");
    assert_eq!(choice.endpoint(), "https://api.openai.com/v1");
    assert_eq!(choice.wire_api(), Some(WireApi::Responses));
    assert_eq!(choice.credential(), "OPENAI_API_KEY: set (8 chars)");
}

#[tokio::test]
async fn aws_credentials_choose_bedrock() {
    let mut settings = settings();
    settings.env = env(&[("AWS_ACCESS_KEY_ID", "AKIA")]);
    let choice = chosen(&settings).await;
    assert_eq!(choice.name, "bedrock");
    assert_eq!(choice.why, "AWS credentials found (AWS_ACCESS_KEY_ID)");
    assert_eq!(choice.endpoint(), "Bedrock in the AWS profile's region");
    assert_eq!(choice.wire_api(), None);
    assert_eq!(
        choice.credential(),
        "AWS credential chain (AWS_ACCESS_KEY_ID found)"
    );
    assert!(!choice.lacks_aws_credentials());
    let hint = choice.listing_hint().unwrap();
    assert!(
        hint.contains("control_endpoint_url in [providers.bedrock]"),
        "{hint}"
    );
}

#[tokio::test]
async fn a_named_provider_beats_the_environment_and_keeps_its_source() {
    let mut settings = settings();
    settings.env = env(&[("OPENAI_API_KEY", "sk-1")]);
    settings.provider = Some(Sourced::new("ollama", "--provider/OY_PROVIDER"));
    let choice = chosen(&settings).await;
    assert_eq!(choice.name, "ollama");
    assert_eq!(choice.why, "--provider/OY_PROVIDER");
    assert_eq!(choice.endpoint(), "http://127.0.0.1:11434/v1");
    assert_eq!(choice.local, Some(LocalServerKind::Ollama));
    // OPENAI_API_KEY goes to OpenAI only, never to a local server.
    assert_eq!(choice.credential(), "none (none needed for this endpoint)");
}

#[tokio::test]
async fn a_table_shadows_a_builtin_and_hides_userinfo_in_its_endpoint() {
    let mut settings = settings();
    let mut openai = table(Some("https://user:s3cr3t@proxy.example/v1"));
    openai.wire_api = Some(WireApi::Responses);
    openai.model = Some("gpt-x".to_owned());
    settings.providers.insert("openai".to_owned(), openai);
    settings.provider = Some(Sourced::new("openai", "config.toml"));
    let choice = chosen(&settings).await;
    assert_eq!(choice.endpoint(), "https://***@proxy.example/v1");
    assert_eq!(choice.wire_api(), Some(WireApi::Responses));
    assert_eq!(choice.table_model.as_deref(), Some("gpt-x"));
}

#[tokio::test]
async fn the_wire_api_override_beats_the_table_and_the_host() {
    let mut settings = settings();
    let mut gw = table(Some("https://api.openai.com/v1"));
    gw.wire_api = Some(WireApi::Responses);
    settings.providers.insert("gw".to_owned(), gw);
    settings.provider = Some(Sourced::new("gw", "--provider"));
    settings.wire_api = Some(WireApi::Chat);
    assert_eq!(chosen(&settings).await.wire_api(), Some(WireApi::Chat));
}

#[tokio::test]
async fn an_unknown_provider_names_the_tables_then_the_builtins() {
    let mut settings = settings();
    settings
        .providers
        .insert("gw".to_owned(), table(Some("https://gw.example/v1")));
    settings.provider = Some(Sourced::new("nosuch", "--provider"));
    let error = choose_provider(&settings).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown provider `nosuch`: use one of gw, openai, bedrock, ollama, llamacpp, lmstudio"
    );
    assert_eq!(
        error.hints(),
        ["add a [providers.nosuch] table to the config file"]
    );
}

#[tokio::test]
async fn an_openai_table_without_base_url_is_refused() {
    let mut settings = settings();
    settings.providers.insert("gw".to_owned(), table(None));
    settings.provider = Some(Sourced::new("gw", "--provider"));
    let error = choose_provider(&settings).await.unwrap_err();
    assert!(matches!(&error, ConnectError::NoBaseUrl { name } if name == "gw"));
    assert_eq!(error.to_string(), "provider `gw` has no base_url");
    assert_eq!(
        error.hints(),
        ["add base_url = \"https://…/v1\" to [providers.gw] in the config file"]
    );
}

#[tokio::test]
async fn a_table_key_missing_from_the_environment_stops_the_build() {
    let mut settings = settings();
    let mut gw = table(Some("https://gw.example/v1"));
    gw.env_key = Some("GW_KEY".to_owned());
    settings.providers.insert("gw".to_owned(), gw);
    settings.provider = Some(Sourced::new("gw", "--provider"));
    let choice = chosen(&settings).await;
    assert_eq!(choice.credential(), "GW_KEY: not set");
    let Err(error) = build_provider(&settings, &choice, no_aws).await else {
        panic!("built without its key");
    };
    assert_eq!(
        error.to_string(),
        "provider `gw` needs an API key in GW_KEY, which is not set"
    );
    assert_eq!(
        error.hints(),
        ["export GW_KEY=… (the key is never written to disk by oy)"]
    );

    settings
        .env
        .keys
        .insert("GW_KEY".to_owned(), Secret::new("k3y"));
    let choice = chosen(&settings).await;
    assert_eq!(choice.credential(), "GW_KEY: set (3 chars)");
    let (provider, endpoint) = build_provider(&settings, &choice, no_aws).await.unwrap();
    assert_eq!(
        (provider.name(), endpoint.as_str()),
        ("openai-chat", "https://gw.example/v1")
    );
}

#[tokio::test]
async fn nothing_configured_or_found_is_no_provider() {
    let error = choose_provider(&settings()).await.unwrap_err();
    assert!(matches!(error, ConnectError::NoProvider));
    assert_eq!(error.to_string(), "no model provider configured or found");
    assert_eq!(error.hints().len(), 3, "{:?}", error.hints());
}

#[tokio::test]
async fn a_found_ollama_supplies_its_first_model_and_names_the_others() {
    let ollama = guarded_server().await;
    Mock::given(method("GET"))
        .and(path("/api/tags"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "models": [{"name": "qwen2.5:7b"}, {"name": "llama3:8b"}]
        })))
        .mount(&ollama)
        .await;
    let lmstudio = guarded_server().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(models(&["m"])))
        .mount(&lmstudio)
        .await;
    let mut settings = settings();
    settings.probe.ports = vec![
        (LocalServerKind::Ollama, ollama.address().port()),
        (LocalServerKind::LmStudio, lmstudio.address().port()),
    ];
    settings.probe_timeout = Duration::from_secs(2);
    let connected = connect(&settings, no_aws).await.unwrap();
    assert_eq!(connected.model, "qwen2.5:7b");
    let url = format!("{}/v1", ollama.uri());
    assert_eq!(
        connected.description,
        format!(
            "openai-chat at {url} (ollama; found Ollama at {url} with 2 model(s), also found LM Studio); \
             model qwen2.5:7b (the first model Ollama lists)"
        )
    );
}

#[tokio::test]
async fn a_server_that_lists_one_model_supplies_it_and_two_settle_nothing() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/models"))
        .respond_with(ResponseTemplate::new(200).set_body_json(models(&["only"])))
        .mount(&server)
        .await;
    let mut settings = settings();
    settings.env.openai_base_url = Some(format!("{}/v1", server.uri()));
    let connected = connect(&settings, no_aws).await.unwrap();
    assert_eq!(connected.model, "only");
    assert!(
        connected.description.ends_with(
            "(openai; OPENAI_BASE_URL is set); model only (the only model provider `openai` lists)"
        ),
        "{}",
        connected.description
    );

    let choice = chosen(&settings).await;
    let (provider, _) = build_provider(&settings, &choice, no_aws).await.unwrap();
    let two = [info("a"), info("b")];
    let error = choose_model(&settings, &choice, provider.as_ref(), Some(&two))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "no model chosen for provider `openai`: it lists 2 models (a, b)"
    );
    assert!(error.hints().is_empty());
}

#[tokio::test]
async fn openai_itself_gets_the_documented_default_unless_its_list_lacks_it() {
    let mut settings = settings();
    settings.env.openai_api_key = Some(oy_provider::Secret::new("sk-test"));
    let choice = chosen(&settings).await;
    let (provider, _) = build_provider(&settings, &choice, no_aws).await.unwrap();
    // No request leaves the machine: every call passes its listing.
    let listed = [info("o3"), info(oy_provider::DEFAULT_OPENAI_MODEL)];
    let model = choose_model(&settings, &choice, provider.as_ref(), Some(&listed))
        .await
        .unwrap();
    assert_eq!(
        (model.id.as_str(), model.why.as_str()),
        ("gpt-4.1", "oy's default for OpenAI")
    );
    let unknown = choose_model(&settings, &choice, provider.as_ref(), Some(&[]))
        .await
        .unwrap();
    assert_eq!(unknown.id, "gpt-4.1", "no listing: the default is tried");
    let elsewhere = [info("a"), info("b"), info("c")];
    let error = choose_model(&settings, &choice, provider.as_ref(), Some(&elsewhere))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "no model chosen for provider `openai`: it lists 3 models (a, b, c)"
    );
}

#[tokio::test]
async fn a_compatible_server_with_many_models_has_no_default() {
    let mut settings = settings();
    settings.env.openai_base_url = Some("http://127.0.0.1:9/v1".to_owned());
    let choice = chosen(&settings).await;
    let (provider, _) = build_provider(&settings, &choice, no_aws).await.unwrap();
    let many: Vec<_> = (0..12).map(|n| info(&format!("m{n}"))).collect();
    let error = choose_model(&settings, &choice, provider.as_ref(), Some(&many))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "no model chosen for provider `openai`: it lists 12 models (m0, m1, m2, m3, m4, m5, m6, m7, …)"
    );
}

#[tokio::test]
async fn a_named_model_beats_the_table_and_the_listing() {
    let mut settings = settings();
    let mut gw = table(Some("http://127.0.0.1:9/v1"));
    gw.model = Some("table-model".to_owned());
    settings.providers.insert("gw".to_owned(), gw);
    settings.provider = Some(Sourced::new("gw", "--provider"));
    let choice = chosen(&settings).await;
    let (provider, _) = build_provider(&settings, &choice, no_aws).await.unwrap();
    let listed = [info("listed")];
    let model = choose_model(&settings, &choice, provider.as_ref(), Some(&listed))
        .await
        .unwrap();
    assert_eq!(
        (model.id.as_str(), model.why.as_str()),
        ("table-model", "providers.gw.model in the config")
    );
    settings.model = Some(Sourced::new("flag-model", "--model/OY_MODEL"));
    let model = choose_model(&settings, &choice, provider.as_ref(), Some(&listed))
        .await
        .unwrap();
    assert_eq!(
        (model.id.as_str(), model.why.as_str()),
        ("flag-model", "--model/OY_MODEL")
    );
}

#[cfg(feature = "bedrock")]
#[tokio::test]
async fn bedrock_asks_the_loader_for_the_tables_region_and_profile() {
    use aws_sdk_bedrockruntime::config::{
        BehaviorVersion, Credentials, Region, SharedCredentialsProvider,
    };
    use oy_provider::ProviderKind;
    use std::cell::Cell;

    let mut settings = settings();
    let mut aws = ProviderTable::default();
    aws.kind = ProviderKind::Bedrock;
    aws.region = Some("eu-west-1".to_owned());
    aws.profile = Some("work".to_owned());
    settings.providers.insert("aws".to_owned(), aws);
    settings.provider = Some(Sourced::new("aws", "--provider"));
    let choice = chosen(&settings).await;
    assert!(choice.lacks_aws_credentials());
    assert_eq!(choice.endpoint(), "Bedrock in eu-west-1");
    let asked = Cell::new(None);
    let loader = async |aws: AwsSettings| {
        asked.set(Some(aws));
        AwsConfig::from(
            oy_provider::SdkConfig::builder()
                .behavior_version(BehaviorVersion::latest())
                .region(Region::new("eu-west-1"))
                .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
                    "AKIDTEST",
                    "test-secret",
                    None,
                    None,
                    "test",
                )))
                .build(),
        )
    };
    let (provider, endpoint) = build_provider(&settings, &choice, loader).await.unwrap();
    assert_eq!(
        (provider.name(), endpoint.as_str()),
        ("bedrock", "Bedrock in eu-west-1")
    );
    let asked = asked.take().unwrap();
    assert_eq!(
        (asked.region.as_deref(), asked.profile.as_deref()),
        (Some("eu-west-1"), Some("work"))
    );
}

/// With no credentials anywhere, building Bedrock fails at once with
/// where the chain looked (the table's profile), before any request.
#[cfg(feature = "bedrock")]
#[tokio::test]
async fn bedrock_without_credentials_is_a_connect_error_naming_where_it_looked() {
    use aws_sdk_bedrockruntime::config::{BehaviorVersion, Region};
    use oy_provider::ProviderKind;

    let mut settings = settings();
    settings.env = env(&[("HOME", "/Users/u"), ("AWS_EC2_METADATA_DISABLED", "true")]);
    let mut aws = ProviderTable::default();
    aws.kind = ProviderKind::Bedrock;
    aws.profile = Some("work".to_owned());
    settings.providers.insert("aws".to_owned(), aws);
    settings.provider = Some(Sourced::new("aws", "--provider"));
    let choice = chosen(&settings).await;
    let loader = async |_: AwsSettings| {
        AwsConfig::from(
            oy_provider::SdkConfig::builder()
                .behavior_version(BehaviorVersion::latest())
                .region(Region::new("eu-west-1"))
                .build(),
        )
    };
    let Err(error) = build_provider(&settings, &choice, loader).await else {
        panic!("built without credentials");
    };
    let ConnectError::NoAwsCredentials { looked } = &error else {
        panic!("{error:?}");
    };
    assert!(looked.contains("profile `work`"), "{looked}");
    assert!(
        looked.contains("/Users/u/.aws/credentials (missing)"),
        "{looked}"
    );
    assert!(looked.contains("not EC2 instance metadata"), "{looked}");
    assert!(
        error
            .to_string()
            .starts_with("no AWS credentials found: looked in ")
    );
    assert!(!error.to_string().contains('\n'), "one line: {error}");
    assert_eq!(error.hints().len(), 2);
}

#[test]
fn the_environment_resolves_keys_proxies_and_aws_signs() {
    let mut providers = BTreeMap::new();
    let mut gw = ProviderTable::default();
    gw.env_key = Some("GW_KEY".to_owned());
    providers.insert("gw".to_owned(), gw);
    let vars: BTreeMap<&str, &str> = [
        ("GW_KEY", "k"),
        ("OPENAI_API_KEY", "  "),
        ("ALL_PROXY", "http://all:3128"),
        ("https_proxy", "http://tls:3128"),
        ("no_proxy", "corp.example"),
        ("HOME", "/Users/u"),
    ]
    .into_iter()
    .collect();
    let var = |name: &str| vars.get(name).map(OsString::from);
    let env = ProviderEnv::from_vars(&providers, var, |path: &Path| {
        path == Path::new("/Users/u/.aws/config")
    });
    assert_eq!(env.keys.get("GW_KEY").map(Secret::expose), Some("k"));
    // Blank is unset.
    assert_eq!(env.openai_api_key, None);
    assert_eq!(
        env.https_proxy.as_ref().map(Secret::expose),
        Some("http://tls:3128")
    );
    assert_eq!(
        env.http_proxy.as_ref().map(Secret::expose),
        Some("http://all:3128")
    );
    assert_eq!(env.no_proxy.as_deref(), Some("corp.example"));
    assert_eq!(env.aws_credentials.as_deref(), Some("/Users/u/.aws/config"));

    let env = ProviderEnv::from_vars(&providers, var, |_: &Path| true);
    assert_eq!(
        env.aws_credentials.as_deref(),
        Some("/Users/u/.aws/credentials")
    );
}

fn info(id: &str) -> ModelInfo {
    ModelInfo {
        id: id.to_owned(),
        owned_by: None,
        context_window: None,
    }
}

#[tokio::test]
async fn a_servers_only_model_is_not_chosen_when_its_id_could_forge_lines() {
    let mut settings = settings();
    settings.env.openai_base_url = Some("http://127.0.0.1:9/v1".to_owned());
    let choice = chosen(&settings).await;
    let (provider, _) = build_provider(&settings, &choice, no_aws).await.unwrap();
    for hostile in ["evil\nhint: run this", "a\u{202e}b", "x y", ""] {
        let listed = [info(hostile)];
        let error = choose_model(&settings, &choice, provider.as_ref(), Some(&listed)).await;
        assert!(error.is_err(), "{hostile:?} was chosen");
    }
}
