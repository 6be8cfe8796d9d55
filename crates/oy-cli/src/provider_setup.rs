//! The provider adapter: connecting with the settings' `ConnectSettings`,
//! the AWS configuration loaded for Bedrock (aws-config,
//! the standard credential chain), and `ConnectError` as the command
//! line's messages, naming its flags. The choice itself is
//! `oy_provider::connect`'s.

use anyhow::Result;
use oy_provider::{AwsConfig, AwsSettings, ConnectError};

use crate::config::Config;
use crate::exit::UsageError;

pub(crate) use oy_provider::Connected;

/// Builds the provider the config names or the environment implies, and
/// picks its model.
pub(crate) async fn connect(config: &Config) -> Result<Connected> {
    let connected = oy_provider::connect(&config.settings.connect_settings(), load_aws).await;
    connected.map_err(cli_error)
}

/// The AWS configuration for Bedrock: the region and profile asked for
/// over the SDK's own resolution (`AWS_REGION`, `AWS_PROFILE`, the shared
/// files, the credential chain).
pub(crate) async fn load_aws(settings: AwsSettings) -> AwsConfig {
    let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
    if let Some(region) = settings.region {
        loader = loader.region(aws_config::Region::new(region));
    }
    if let Some(profile) = settings.profile {
        loader = loader.profile_name(profile);
    }
    loader.load().await.into()
}

/// `error` as the command line reports it: a usage error (exit 2) with its
/// hints and the flags that choose a provider or a model; a backend's own
/// refusal stays a failure.
pub(crate) fn cli_error(error: ConnectError) -> anyhow::Error {
    let mut text = error.to_string();
    let mut hints = error.hints();
    match error {
        ConnectError::Provider(error) => return error.into(),
        ConnectError::NoProvider => {
            hints.push(
                "or add [providers.NAME] to the config file and pass --provider NAME".to_owned(),
            );
            hints.push("run `oy doctor` to see what oy looked for".to_owned());
        }
        ConnectError::NoAwsCredentials { .. } | ConnectError::AwsCredentials { .. } => {
            hints.push("or choose another provider with --provider NAME".to_owned());
        }
        ConnectError::NoModel { .. } => {
            text.push_str(": pass --model ID or set OY_MODEL");
            hints.push(
                "`oy model` lists the provider's models; `oy model --set ID` saves one as the default"
                    .to_owned(),
            );
        }
        _ => {}
    }
    for hint in hints {
        text.push_str("\nhint: ");
        text.push_str(&hint);
    }
    UsageError::new(text).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(error: ConnectError) -> String {
        let error = cli_error(error);
        assert!(error.downcast_ref::<UsageError>().is_some(), "{error}");
        error.to_string()
    }

    #[test]
    fn connect_errors_read_as_before_with_the_flags_added() {
        assert_eq!(
            text(ConnectError::NoProvider),
            "no model provider configured or found\n\
             hint: set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server)\n\
             hint: or configure AWS credentials (AWS_PROFILE, ~/.aws/credentials) for Bedrock\n\
             hint: or start a local server: Ollama (port 11434), llama.cpp (8080), LM Studio (1234)\n\
             hint: or add [providers.NAME] to the config file and pass --provider NAME\n\
             hint: run `oy doctor` to see what oy looked for"
        );
        assert_eq!(
            text(ConnectError::NoModel {
                provider: "gw".to_owned(),
                listed: 0,
                suggestions: Vec::new(),
            }),
            "no model chosen for provider `gw`: pass --model ID or set OY_MODEL\n\
             hint: `oy model` lists the provider's models; `oy model --set ID` saves one as the default"
        );
        assert_eq!(
            text(ConnectError::MissingKey {
                name: "gw".to_owned(),
                var: "GW_KEY".to_owned()
            }),
            "provider `gw` needs an API key in GW_KEY, which is not set\n\
             hint: export GW_KEY=… (the key is never written to disk by oy)"
        );
    }

    #[test]
    fn missing_aws_credentials_are_one_line_and_hints() {
        let said = text(ConnectError::NoAwsCredentials {
            looked: "environment variables, profile `default`".to_owned(),
        });
        let mut lines = said.lines();
        assert_eq!(
            lines.next(),
            Some("no AWS credentials found: looked in environment variables, profile `default`")
        );
        let hints: Vec<&str> = lines.collect();
        assert!(
            hints.iter().all(|line| line.starts_with("hint: ")),
            "{said}"
        );
        assert!(hints.last().unwrap().contains("--provider NAME"), "{said}");
    }

    #[test]
    fn a_backend_refusal_stays_a_failure() {
        let refused = oy_provider::ProviderError::new(oy_provider::ErrorKind::Config, "bad URL");
        let error = cli_error(ConnectError::Provider(refused));
        assert!(error.downcast_ref::<UsageError>().is_none());
        assert_eq!(format!("{error:#}"), "bad URL");
    }
}
