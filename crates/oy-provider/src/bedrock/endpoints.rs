//! Where the Bedrock APIs are, as messages name them: the runtime
//! (ConverseStream, Converse) and the control plane (ListFoundationModels)
//! are different services, and an error must say which one failed.

/// How messages name one of the two APIs: `the Bedrock runtime at URL`
/// (any `user:password@` hidden) or `the Bedrock runtime in REGION`.
pub(crate) fn describe(api: &str, url: Option<&str>, region: Option<&str>) -> String {
    match (url, region) {
        (Some(url), _) => format!("the Bedrock {api} at {}", without_userinfo(url)),
        (None, Some(region)) => format!("the Bedrock {api} in {region}"),
        (None, None) => format!("the Bedrock {api} (no region configured)"),
    }
}

fn without_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
