//! Which proxy an OpenAI-compatible endpoint is reached through: the
//! environment's, never for loopback, not for hosts `NO_PROXY` names; and
//! [`host_of`], the host a URL names (also what picks the wire API).

use std::net::IpAddr;

use super::ProviderEnv;

/// The proxy for `base_url`: none for loopback or a host `NO_PROXY`
/// names; else `HTTP_PROXY`'s for `http://`, `HTTPS_PROXY`'s otherwise.
pub(super) fn proxy_for(env: &ProviderEnv, base_url: &str) -> Option<String> {
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

/// The host of `url`, without user info, port or path; an IPv6 literal
/// keeps its brackets. `None` when `url` names no host.
pub(super) fn host_of(url: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Secret;

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

    fn env(no_proxy: Option<&str>) -> ProviderEnv {
        ProviderEnv {
            https_proxy: Some(Secret::new("http://proxy.example:3128")),
            http_proxy: Some(Secret::new("http://plain-proxy.example:3128")),
            no_proxy: no_proxy.map(str::to_owned),
            ..ProviderEnv::default()
        }
    }

    #[test]
    fn loopback_never_goes_through_a_proxy() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://[::1]:1234/v1",
        ] {
            assert_eq!(proxy_for(&env(None), url), None, "{url}");
        }
    }

    #[test]
    fn the_scheme_picks_the_proxy() {
        assert_eq!(
            proxy_for(&env(None), "https://api.example/v1").as_deref(),
            Some("http://proxy.example:3128")
        );
        assert_eq!(
            proxy_for(&env(None), "http://gw.example/v1").as_deref(),
            Some("http://plain-proxy.example:3128")
        );
    }

    #[test]
    fn no_proxy_matches_hosts_and_their_subdomains() {
        let env = env(Some("other.example, .corp.example,*.lan"));
        assert_eq!(proxy_for(&env, "https://corp.example/v1"), None);
        assert_eq!(proxy_for(&env, "https://GW.Corp.Example/v1"), None);
        assert_eq!(proxy_for(&env, "https://box.lan/v1"), None);
        assert!(proxy_for(&env, "https://notcorp.example/v1").is_some());
        assert_eq!(
            proxy_for(&self::env(Some("*")), "https://a.example/v1"),
            None
        );
    }
}
