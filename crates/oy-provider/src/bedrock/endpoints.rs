//! [`BedrockEndpoints`]: where the runtime API (ConverseStream, Converse;
//! service `bedrock-runtime`) and the control-plane API
//! (ListFoundationModels; service `bedrock`) are reached. They are
//! different services on different hosts, so an override meant for one is
//! never sent the other's calls: a runtime VPC endpoint or proxy answers
//! the control plane's paths with 404.

use oy_secrets::redact_userinfo;

/// The host label that names the runtime service in AWS endpoint names
/// (`bedrock-runtime.us-east-1.amazonaws.com`,
/// `vpce-….bedrock-runtime.us-east-1.vpce.amazonaws.com`); the control
/// plane's names carry `bedrock` in its place.
const RUNTIME_LABEL: &str = "bedrock-runtime";
const CONTROL_LABEL: &str = "bedrock";

/// Where the two Bedrock APIs are reached when not at the SDK's own
/// endpoints (the regional ones, or `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` /
/// `AWS_ENDPOINT_URL_BEDROCK` as the SDK configuration resolves them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BedrockEndpoints {
    /// The runtime API: prompts. A VPC interface endpoint, a proxy, or a
    /// test server. Requests are still signed for the region.
    pub runtime: Option<String>,
    /// The control-plane API: model listing. Unset, it follows from
    /// `runtime` as [`BedrockEndpoints::control_url`] says.
    pub control: Option<String>,
}

impl BedrockEndpoints {
    /// The control-plane endpoint to use: `control` when set; else
    /// `runtime` with its `bedrock-runtime` host label replaced by
    /// `bedrock`; else `None`, which leaves it to the SDK (the regional
    /// endpoint). A runtime endpoint without that label (a proxy, a test
    /// server) is never used for the control plane.
    pub fn control_url(&self) -> Option<String> {
        self.control
            .clone()
            .or_else(|| self.runtime.as_deref().and_then(derive_control))
    }
}

/// `url` with a `bedrock-runtime` host label replaced by `bedrock`,
/// everything else (scheme, user info, port, path) kept; `None` when the
/// host has no such label or is a VPC endpoint.
fn derive_control(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((userinfo, host_port)) => (Some(userinfo), host_port),
        None => (None, authority),
    };
    // An IP literal has no labels to replace.
    if host_port.starts_with('[') {
        return None;
    }
    // A VPC interface endpoint's name carries its own id, different for
    // the control plane's endpoint: swapping the label would name a host
    // that does not exist.
    if host_port
        .split('.')
        .any(|label| label.eq_ignore_ascii_case("vpce") || label.starts_with("vpce-"))
    {
        return None;
    }
    let (host, port) = match host_port.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (host_port, None),
    };
    let mut found = false;
    let labels: Vec<&str> = host
        .split('.')
        .map(|label| {
            if label.eq_ignore_ascii_case(RUNTIME_LABEL) {
                found = true;
                CONTROL_LABEL
            } else {
                label
            }
        })
        .collect();
    if !found {
        return None;
    }
    let mut derived = format!("{scheme}://");
    if let Some(userinfo) = userinfo {
        derived.push_str(userinfo);
        derived.push('@');
    }
    derived.push_str(&labels.join("."));
    if let Some(port) = port {
        derived.push(':');
        derived.push_str(port);
    }
    derived.push_str(tail);
    Some(derived)
}

/// How messages name one of the two APIs: `the Bedrock runtime at URL`
/// (any `user:password@` hidden) or `the Bedrock runtime in REGION`.
pub(crate) fn describe(api: &str, url: Option<&str>, region: Option<&str>) -> String {
    match (url, region) {
        (Some(url), _) => format!("the Bedrock {api} at {}", redact_userinfo(url)),
        (None, Some(region)) => format!("the Bedrock {api} in {region}"),
        (None, None) => format!("the Bedrock {api} (no region configured)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(runtime: &str) -> Option<String> {
        BedrockEndpoints {
            runtime: Some(runtime.to_owned()),
            control: None,
        }
        .control_url()
    }

    #[test]
    fn derives_the_control_plane_of_a_regional_runtime_host() {
        assert_eq!(
            control("https://bedrock-runtime.us-east-1.amazonaws.com").as_deref(),
            Some("https://bedrock.us-east-1.amazonaws.com")
        );
        assert_eq!(
            control("https://u:p@Bedrock-Runtime.eu-west-1.amazonaws.com:8443/x?y").as_deref(),
            Some("https://u:p@bedrock.eu-west-1.amazonaws.com:8443/x?y")
        );
    }

    #[test]
    fn a_runtime_endpoint_without_the_label_is_not_used_for_the_control_plane() {
        assert_eq!(control("http://127.0.0.1:4566"), None);
        assert_eq!(control("http://[::1]:4566"), None);
        assert_eq!(control("https://llm-proxy.example/bedrock-runtime/"), None);
        assert_eq!(
            control("https://bedrock-runtime-fips.us-east-1.amazonaws.com"),
            None
        );
        assert_eq!(control("not a url"), None);
        // A VPC endpoint's id differs per service: nothing is guessed.
        assert_eq!(
            control("https://vpce-123.bedrock-runtime.us-east-1.vpce.amazonaws.com"),
            None
        );
    }

    #[test]
    fn an_explicit_control_endpoint_wins() {
        let endpoints = BedrockEndpoints {
            runtime: Some("https://bedrock-runtime.us-east-1.amazonaws.com".into()),
            control: Some("http://127.0.0.1:9".into()),
        };
        assert_eq!(
            endpoints.control_url().as_deref(),
            Some("http://127.0.0.1:9")
        );
        let only_control = BedrockEndpoints {
            runtime: None,
            control: Some("http://127.0.0.1:9".into()),
        };
        assert_eq!(
            only_control.control_url().as_deref(),
            Some("http://127.0.0.1:9")
        );
    }

    #[test]
    fn descriptions_hide_user_info() {
        assert_eq!(
            describe("runtime", Some("https://a:b@h.example/v"), None),
            "the Bedrock runtime at https://***@h.example/v"
        );
        assert_eq!(
            describe("control plane", None, Some("us-east-1")),
            "the Bedrock control plane in us-east-1"
        );
    }
}
