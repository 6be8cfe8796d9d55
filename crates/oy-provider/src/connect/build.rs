//! [`build_provider`]: the chosen provider made ready to use. For Bedrock
//! the frontend loads the AWS configuration (the credential chain, the
//! region) when asked with the [`AwsSettings`] the choice names, so
//! nothing AWS is loaded for any other provider; the credentials are then
//! resolved once, and none found is a [`ConnectError::NoAwsCredentials`].

use std::sync::Arc;
#[cfg(feature = "bedrock")]
use std::time::Duration;

use super::{Backend, BedrockChoice, Choice, ConnectError, ConnectSettings, WireApi};
use crate::{OpenAiChatProvider, OpenAiResponsesProvider, Provider};

/// What the frontend's AWS loader is asked for: the region and profile a
/// Bedrock provider table names (else the AWS defaults).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AwsSettings {
    /// The region, over the profile's.
    pub region: Option<String>,
    /// The AWS profile.
    pub profile: Option<String>,
}

/// The AWS configuration the frontend loaded for Bedrock (from an
/// [`crate::SdkConfig`] with the `bedrock` feature). The default holds
/// none: Bedrock calls then fail for want of a region and credentials.
#[derive(Debug, Clone, Default)]
pub struct AwsConfig {
    #[cfg(feature = "bedrock")]
    sdk: Option<crate::SdkConfig>,
}

#[cfg(feature = "bedrock")]
impl From<crate::SdkConfig> for AwsConfig {
    fn from(sdk: crate::SdkConfig) -> Self {
        Self { sdk: Some(sdk) }
    }
}

/// Builds the chosen provider; returns it and where it sends requests.
/// `load_aws` is called only for Bedrock. A key the choice expects but
/// the environment lacks is a [`ConnectError::MissingKey`].
pub async fn build_provider(
    settings: &ConnectSettings,
    choice: &Choice,
    load_aws: impl AsyncFnOnce(AwsSettings) -> AwsConfig,
) -> Result<(Arc<dyn Provider>, String), ConnectError> {
    match &choice.backend {
        Backend::OpenAi {
            config: openai,
            wire,
            missing_key,
        } => {
            if let Some(var) = missing_key {
                return Err(ConnectError::MissingKey {
                    name: choice.name.clone(),
                    var: var.clone(),
                });
            }
            let endpoint = openai.base_url.clone();
            let provider: Arc<dyn Provider> = match wire {
                WireApi::Responses => Arc::new(OpenAiResponsesProvider::new((**openai).clone())?),
                WireApi::Chat => Arc::new(OpenAiChatProvider::new((**openai).clone())?),
            };
            Ok((provider, endpoint))
        }
        Backend::Bedrock(bedrock) => bedrock_provider(settings, bedrock, load_aws).await,
    }
}

/// How long the AWS credential chain may take when Bedrock is built (the
/// instance metadata service is the slow part off EC2).
#[cfg(feature = "bedrock")]
const AWS_CREDENTIALS_TIMEOUT: Duration = Duration::from_secs(5);

#[cfg(feature = "bedrock")]
async fn bedrock_provider(
    settings: &ConnectSettings,
    bedrock: &BedrockChoice,
    load_aws: impl AsyncFnOnce(AwsSettings) -> AwsConfig,
) -> Result<(Arc<dyn Provider>, String), ConnectError> {
    use crate::{BedrockEndpoints, BedrockProvider, SdkConfig};
    use aws_sdk_bedrockruntime::config::BehaviorVersion;

    let aws = load_aws(AwsSettings {
        region: bedrock.region.clone(),
        profile: bedrock.profile.clone(),
    })
    .await;
    let sdk = aws.sdk.unwrap_or_else(|| {
        SdkConfig::builder()
            .behavior_version(BehaviorVersion::latest())
            .build()
    });
    // Resolved now, once: no credentials is a configuration error said in
    // one line, not a first prompt failing (and retried) with the SDK's
    // report of its whole chain.
    let sdk = crate::bedrock::resolve_credentials(sdk, AWS_CREDENTIALS_TIMEOUT)
        .await
        .map_err(|problem| match problem {
            crate::bedrock::CredentialProblem::NotFound => ConnectError::NoAwsCredentials {
                looked: settings.env.aws_places.describe(bedrock.profile.as_deref()),
            },
            crate::bedrock::CredentialProblem::Failed(reason) => {
                ConnectError::AwsCredentials { reason }
            }
        })?;
    let endpoint = match (&bedrock.endpoint_url, sdk.region()) {
        // Shown in the session header: never with a login in it.
        (Some(url), _) => oy_secrets::redact_userinfo(url).into_owned(),
        (None, Some(region)) => format!("Bedrock in {region}"),
        (None, None) => "Bedrock (no region configured)".to_owned(),
    };
    // The endpoints go to the provider, not the SDK config: an endpoint
    // there applies to every service, and the runtime's would then receive
    // the control plane's calls.
    let endpoints = BedrockEndpoints {
        runtime: bedrock.endpoint_url.clone(),
        control: bedrock.control_endpoint_url.clone(),
    };
    let mut provider = BedrockProvider::from_sdk_config(&sdk, &endpoints);
    if let Some(idle) = settings.idle_timeout {
        provider = provider.with_idle_timeout(idle);
    }
    Ok((Arc::new(provider), endpoint))
}

#[cfg(not(feature = "bedrock"))]
async fn bedrock_provider(
    _settings: &ConnectSettings,
    _bedrock: &BedrockChoice,
    _load_aws: impl AsyncFnOnce(AwsSettings) -> AwsConfig,
) -> Result<(Arc<dyn Provider>, String), ConnectError> {
    Err(ConnectError::BedrockNotBuilt)
}
