//! [`ConnectError`]: why no provider or no model could be chosen or built.
//! Each variant names the configuration concept at fault (a provider
//! table, an environment variable, the model choice) and
//! [`ConnectError::hints`] says what would fix it; the frontend adds how
//! its own options express the choice.

use crate::ProviderError;

/// A failure to choose or build a provider, or to choose a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// Nothing was named, and neither the environment nor a local server
    /// offers a provider. Naming a provider table is the other way.
    #[error("no model provider configured or found")]
    NoProvider,
    /// The named provider is neither a table nor a built-in.
    #[error("unknown provider `{name}`: use one of {}", known.join(", "))]
    UnknownProvider {
        /// The name asked for.
        name: String,
        /// The tables' names, then the built-ins'.
        known: Vec<String>,
    },
    /// An OpenAI-compatible table that says nowhere to send requests.
    #[error("provider `{name}` has no base_url")]
    NoBaseUrl {
        /// The table's name.
        name: String,
    },
    /// The key the provider expects is not in the environment.
    #[error("provider `{name}` needs an API key in {var}, which is not set")]
    MissingKey {
        /// The provider's name.
        name: String,
        /// The environment variable the key should come from.
        var: String,
    },
    /// Bedrock was chosen in a build without the `bedrock` feature.
    #[error("AWS Bedrock was chosen, but this build leaves it out")]
    BedrockNotBuilt,
    /// A wire API name that is neither `chat` nor `responses`.
    #[error("unknown wire API `{name}`: use chat or responses")]
    UnknownWireApi {
        /// The name given.
        name: String,
    },
    /// Bedrock was chosen and the AWS credential chain found no
    /// credentials anywhere it looked.
    #[error("no AWS credentials found: looked in {looked}")]
    NoAwsCredentials {
        /// Where the chain looked ([`crate::connect::AwsPlaces::describe`]).
        looked: String,
    },
    /// The AWS credential chain failed: a profile that names what cannot
    /// be had (an expired SSO login, a failing credential_process, an
    /// unknown profile), or it took too long.
    #[error("cannot load AWS credentials: {reason}")]
    AwsCredentials {
        /// The chain's error, one line.
        reason: String,
    },
    /// No model was configured and the provider's list settles none.
    #[error("no model chosen for provider `{provider}`{}", listing(*listed, suggestions))]
    NoModel {
        /// The provider's name.
        provider: String,
        /// How many models the provider lists (0: no listing could be had).
        listed: usize,
        /// The first listed ids, to pick from.
        suggestions: Vec<String>,
    },
    /// The backend refused its settings (a bad URL, a key over plain
    /// HTTP…).
    #[error(transparent)]
    Provider(#[from] ProviderError),
}

/// `: it lists 12 models (a, b, c, …)`, or nothing without a listing.
fn listing(listed: usize, suggestions: &[String]) -> String {
    if listed == 0 {
        return String::new();
    }
    let more = if listed > suggestions.len() {
        ", …"
    } else {
        ""
    };
    format!(
        ": it lists {listed} models ({}{more})",
        suggestions.join(", ")
    )
}

impl ConnectError {
    /// What to do about it, one line each, in terms of the environment and
    /// the config file; the frontend adds its own options (how a provider
    /// or a model is named on its command line).
    pub fn hints(&self) -> Vec<String> {
        match self {
            Self::NoProvider => vec![
                "set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server)"
                    .to_owned(),
                "or configure AWS credentials (AWS_PROFILE, ~/.aws/credentials) for Bedrock"
                    .to_owned(),
                "or start a local server: Ollama (port 11434), llama.cpp (8080), LM Studio (1234)"
                    .to_owned(),
            ],
            Self::UnknownProvider { name, .. } => {
                vec![format!("add a [providers.{name}] table to the config file")]
            }
            Self::NoBaseUrl { name } => vec![format!(
                "add base_url = \"https://…/v1\" to [providers.{name}] in the config file"
            )],
            Self::MissingKey { var, .. } => vec![format!(
                "export {var}=… (the key is never written to disk by oy)"
            )],
            Self::BedrockNotBuilt => {
                vec![
                    "use a build with the `bedrock` feature, or an OpenAI-compatible provider"
                        .to_owned(),
                ]
            }
            Self::NoAwsCredentials { .. } => vec![
                "export AWS_PROFILE=NAME for a profile in ~/.aws/config (run `aws sso login` first for SSO), \
                 or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
                    .to_owned(),
                "`aws configure` writes ~/.aws/credentials; `aws sts get-caller-identity` checks what AWS finds"
                    .to_owned(),
            ],
            Self::AwsCredentials { .. } => vec![
                "for an SSO profile, `aws sso login --profile NAME` renews the login".to_owned(),
                "`aws sts get-caller-identity` shows what the AWS tools find with the same settings"
                    .to_owned(),
            ],
            Self::UnknownWireApi { .. } | Self::NoModel { .. } | Self::Provider(_) => Vec::new(),
        }
    }
}
