//! The configuration a provider is chosen from: [`ProviderTable`] (one
//! `[providers.NAME]` table of the config file), its [`ProviderKind`], and
//! the OpenAI [`WireApi`]. They deserialize straight from the frontend's
//! config file; which keys exist is [`ProviderTable::KEYS`], so a frontend
//! can warn about unknown ones.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

use super::ConnectError;

/// Which backend a provider table describes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ProviderKind {
    /// An OpenAI-compatible server.
    #[default]
    Openai,
    /// AWS Bedrock.
    Bedrock,
}

/// The OpenAI wire API: which of OpenAI's two APIs an OpenAI-compatible
/// server is spoken to with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum WireApi {
    /// Chat Completions.
    Chat,
    /// The Responses API.
    Responses,
}

impl WireApi {
    /// The name in configuration: `chat` or `responses`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Responses => "responses",
        }
    }
}

impl FromStr for WireApi {
    type Err = ConnectError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "chat" => Ok(Self::Chat),
            "responses" => Ok(Self::Responses),
            other => Err(ConnectError::UnknownWireApi {
                name: other.to_owned(),
            }),
        }
    }
}

/// One named provider. `Debug` names the headers but never shows their
/// values: gateways put credentials there.
#[derive(Clone, Default, Deserialize)]
#[non_exhaustive]
pub struct ProviderTable {
    /// Which backend.
    #[serde(default)]
    pub kind: ProviderKind,
    /// An OpenAI-compatible server's API root (`https://…/v1`).
    pub base_url: Option<String>,
    /// The environment variable holding the key (its value arrives in
    /// [`crate::ProviderEnv::keys`]).
    pub env_key: Option<String>,
    /// The wire API, when the endpoint should not decide it.
    pub wire_api: Option<WireApi>,
    /// Extra request headers (a gateway's own key, a tenant id).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The model's context window, in tokens.
    pub context_window: Option<u64>,
    /// The default model.
    pub model: Option<String>,
    /// Bedrock's AWS region.
    pub region: Option<String>,
    /// Bedrock's AWS profile.
    pub profile: Option<String>,
    /// Bedrock's runtime (prompts): a VPC endpoint, a proxy.
    pub endpoint_url: Option<String>,
    /// Bedrock's control plane (model listing), when it is not where
    /// `endpoint_url` implies.
    pub control_endpoint_url: Option<String>,
}

impl ProviderTable {
    /// The keys a table may hold, as written in the config file.
    pub const KEYS: &[&str] = &[
        "kind",
        "base_url",
        "env_key",
        "wire_api",
        "headers",
        "context_window",
        "model",
        "region",
        "profile",
        "endpoint_url",
        "control_endpoint_url",
    ];
}

impl fmt::Debug for ProviderTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderTable")
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("env_key", &self.env_key)
            .field("wire_api", &self.wire_api)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("context_window", &self.context_window)
            .field("model", &self.model)
            .field("region", &self.region)
            .field("profile", &self.profile)
            .field("endpoint_url", &self.endpoint_url)
            .field("control_endpoint_url", &self.control_endpoint_url)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_a_known_key() {
        let table: ProviderTable = serde_json::from_value(serde_json::json!({
            "kind": "bedrock", "base_url": "u", "env_key": "K", "wire_api": "chat",
            "headers": {}, "context_window": 1, "model": "m", "region": "r",
            "profile": "p", "endpoint_url": "e", "control_endpoint_url": "c",
        }))
        .unwrap();
        assert_eq!(table.kind, ProviderKind::Bedrock);
        assert_eq!(ProviderTable::KEYS.len(), 11);
    }

    #[test]
    fn header_values_stay_out_of_debug() {
        let mut table = ProviderTable::default();
        table
            .headers
            .insert("x-api-key".to_owned(), "hunter2".to_owned());
        let debug = format!("{table:?}");
        assert!(
            debug.contains("x-api-key") && !debug.contains("hunter2"),
            "{debug}"
        );
    }

    #[test]
    fn wire_api_names_round_trip() {
        for wire in [WireApi::Chat, WireApi::Responses] {
            assert_eq!(wire.name().parse::<WireApi>().unwrap(), wire);
        }
        assert_eq!(
            "soap".parse::<WireApi>().unwrap_err().to_string(),
            "unknown wire API `soap`: use chat or responses"
        );
    }
}
