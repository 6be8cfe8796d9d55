//! One fetch: resolve, check, connect to exactly the checked addresses,
//! follow redirects by hand (each target checked again), read a capped
//! body, all within one deadline.
//!
//! The HTTP client is `ureq` (synchronous, rustls with webpki roots). Each
//! hop gets a fresh agent whose resolver is [`Pinned`]: it returns the
//! addresses this module already checked and nothing else, so there is no
//! second DNS lookup to race; the agent has no proxy (whatever the
//! environment says), follows no redirects and keeps no pooled connections.

use std::io::{self, Read};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ureq::Agent;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};
use url::Url;

use super::resolve::{LookupError, Resolve, lookup};
use super::target::{Guard, Refused, Target, TargetHost};

/// Redirects followed before giving up.
pub(crate) const MAX_REDIRECTS: usize = 5;

/// What a fetch may use and how far it may go.
pub(crate) struct Client<'a> {
    /// Turns names into addresses.
    pub(crate) resolver: &'a Arc<dyn Resolve>,
    /// Decides which addresses may be connected to.
    pub(crate) guard: &'a Guard,
    /// The whole fetch, redirects and body included.
    pub(crate) timeout: Duration,
    /// Most body bytes read (after decompression).
    pub(crate) max_body_bytes: usize,
}

/// The caller's optional headers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Headers {
    /// `User-Agent` (else oy's own).
    pub(crate) user_agent: Option<String>,
    /// `Cookie`, sent to the first URL's origin only.
    pub(crate) cookie: Option<String>,
}

/// A response that arrived.
#[derive(Debug)]
pub(crate) struct Fetched {
    /// The URL that answered (after redirects).
    pub(crate) url: Url,
    /// Its HTTP status.
    pub(crate) status: u16,
    /// Its `Content-Type`, if any.
    pub(crate) content_type: Option<String>,
    /// A `Content-Encoding` that was not decoded (anything but gzip).
    pub(crate) undecoded_encoding: Option<String>,
    /// The body, decompressed, at most `max_body_bytes`.
    pub(crate) body: Vec<u8>,
    /// True when the body went on past the cap.
    pub(crate) body_cut: bool,
}

/// Why no response arrived.
#[derive(Debug)]
pub(crate) enum FetchError {
    /// A URL or address was refused (before connecting to it).
    Refused(Refused),
    /// A redirect's target was refused (before connecting to it).
    RedirectRefused(Refused),
    /// The name could not be resolved.
    Lookup { host: String, error: io::Error },
    /// The deadline passed.
    TimedOut { after: Duration },
    /// More than [`MAX_REDIRECTS`] redirects.
    TooManyRedirects { last: String },
    /// Connecting, TLS, or the HTTP exchange failed.
    Transport { url: String, message: String },
}

impl From<Refused> for FetchError {
    fn from(refused: Refused) -> Self {
        Self::Refused(refused)
    }
}

impl Client<'_> {
    /// Fetches `target` (already statically checked), following redirects.
    pub(crate) fn fetch(&self, first: Target, headers: &Headers) -> Result<Fetched, FetchError> {
        let started = Instant::now();
        let deadline = started + self.timeout;
        let timed_out = || FetchError::TimedOut {
            after: self.timeout,
        };
        let mut target = first.clone();
        let mut redirected = false;
        for _hop in 0..=MAX_REDIRECTS {
            let refused = |error| match error {
                FetchError::Refused(refused) if redirected => FetchError::RedirectRefused(refused),
                other => other,
            };
            self.guard
                .check_literal(&target)
                .map_err(|error| refused(error.into()))?;
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(timed_out());
            }
            let addrs = self.addresses(&target, remaining).map_err(refused)?;
            let remaining = deadline.saturating_duration_since(Instant::now());
            let cookie = headers
                .cookie
                .as_deref()
                .filter(|_| target.same_origin(&first));
            let response = send(&target, addrs, remaining, headers, cookie)
                .map_err(|error| transport_error(&target, error, self.timeout))?;
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
            };
            if let (301 | 302 | 303 | 307 | 308, Some(location)) = (status, header("location")) {
                target = target
                    .redirect(&location)
                    .map_err(FetchError::RedirectRefused)?;
                redirected = true;
                continue;
            }
            let content_type = header("content-type");
            let undecoded_encoding = header("content-encoding").filter(|encoding| {
                let encoding = encoding.trim().to_ascii_lowercase();
                !matches!(encoding.as_str(), "" | "identity" | "gzip" | "x-gzip")
            });
            let (body, body_cut) =
                read_capped(response.into_body(), self.max_body_bytes).map_err(|error| {
                    match timeout_in(&error) {
                        true => timed_out(),
                        false => FetchError::Transport {
                            url: target.url.to_string(),
                            message: format!("reading the body failed: {error}"),
                        },
                    }
                })?;
            return Ok(Fetched {
                url: target.url,
                status,
                content_type,
                undecoded_encoding,
                body,
                body_cut,
            });
        }
        Err(FetchError::TooManyRedirects {
            last: target.url.to_string(),
        })
    }

    /// The checked addresses for `target`: its literal, or every address
    /// its name resolves to (all of them must be public).
    fn addresses(
        &self,
        target: &Target,
        remaining: Duration,
    ) -> Result<Vec<SocketAddr>, FetchError> {
        let resolved = match &target.host {
            TargetHost::Ip(ip) => vec![*ip],
            TargetHost::Name(name) => {
                lookup(self.resolver, name, remaining).map_err(|error| match error {
                    LookupError::TimedOut => FetchError::TimedOut {
                        after: self.timeout,
                    },
                    LookupError::Failed(error) => FetchError::Lookup {
                        host: name.clone(),
                        error,
                    },
                })?
            }
        };
        Ok(self.guard.check_resolved(target, &resolved)?)
    }
}

/// The agent settings every hop uses; `timeout` is what is left.
pub(crate) fn agent_config(timeout: Duration, user_agent: &str) -> Config {
    Agent::config_builder()
        // Proxy variables from the environment never apply.
        .proxy(None)
        .max_redirects(0)
        .http_status_as_error(false)
        .max_idle_connections(0)
        .max_idle_connections_per_host(0)
        .timeout_global(Some(timeout))
        .user_agent(user_agent)
        .build()
}

/// oy's `User-Agent` when the caller gives none.
pub(crate) const DEFAULT_USER_AGENT: &str = concat!("oy/", env!("CARGO_PKG_VERSION"));

fn send(
    target: &Target,
    addrs: Vec<SocketAddr>,
    timeout: Duration,
    headers: &Headers,
    cookie: Option<&str>,
) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    let user_agent = headers.user_agent.as_deref().unwrap_or(DEFAULT_USER_AGENT);
    let pinned = Pinned {
        host: target.host_text().to_owned(),
        port: target.port,
        addrs,
    };
    let agent = Agent::with_parts(
        agent_config(timeout, user_agent),
        DefaultConnector::new(),
        pinned,
    );
    let mut request = agent.get(target.url.as_str());
    if let Some(cookie) = cookie {
        request = request.header("Cookie", cookie);
    }
    request.call()
}

/// Reads at most `max` bytes of the (decompressed) body; a decompression
/// bomb stops at the cap like any other long body.
fn read_capped(body: ureq::Body, max: usize) -> io::Result<(Vec<u8>, bool)> {
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    let mut bytes = Vec::new();
    body.into_reader().take(limit).read_to_end(&mut bytes)?;
    let cut = bytes.len() > max;
    bytes.truncate(max);
    Ok((bytes, cut))
}

fn timeout_in(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::TimedOut
        || error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>())
            .is_some_and(|inner| matches!(inner, ureq::Error::Timeout(_)))
}

fn transport_error(target: &Target, error: ureq::Error, after: Duration) -> FetchError {
    match error {
        ureq::Error::Timeout(_) => FetchError::TimedOut { after },
        ureq::Error::Io(io) if timeout_in(&io) => FetchError::TimedOut { after },
        other => FetchError::Transport {
            url: target.url.to_string(),
            message: other.to_string(),
        },
    }
}

/// A resolver that answers with addresses checked beforehand, for the one
/// host and port it was made for, and refuses anything else.
#[derive(Debug)]
struct Pinned {
    host: String,
    port: u16,
    addrs: Vec<SocketAddr>,
}

impl Resolver for Pinned {
    fn resolve(
        &self,
        uri: &Uri,
        _config: &Config,
        _timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let bare = |host: &str| host.trim_matches(['[', ']']).to_ascii_lowercase();
        let host_matches = uri
            .host()
            .is_some_and(|host| bare(host) == bare(&self.host));
        let port = uri.port_u16().or(match uri.scheme_str() {
            Some("https") => Some(443),
            Some("http") => Some(80),
            _ => None,
        });
        if !host_matches || port != Some(self.port) {
            return Err(ureq::Error::HostNotFound);
        }
        let mut out = self.empty();
        for addr in &self.addrs {
            if out.try_push(*addr).is_err() {
                break;
            }
        }
        if out.is_empty() {
            return Err(ureq::Error::HostNotFound);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_config_ignores_environment_proxies_and_redirects() {
        let config = agent_config(Duration::from_secs(1), DEFAULT_USER_AGENT);
        assert!(config.proxy().is_none());
        assert_eq!(config.max_redirects(), 0);
        assert!(!config.http_status_as_error());
        assert_eq!(config.max_idle_connections(), 0);
    }

    #[test]
    fn pinned_resolver_answers_only_for_its_host_and_port() {
        let addr: SocketAddr = "93.184.215.14:443"
            .parse()
            .unwrap_or_else(|_| unreachable!());
        let pinned = Pinned {
            host: "example.org".to_owned(),
            port: 443,
            addrs: vec![addr],
        };
        let config = agent_config(Duration::from_secs(1), DEFAULT_USER_AGENT);
        let resolve = |uri: &str| {
            let uri: Uri = uri.parse().unwrap_or_else(|_| unreachable!());
            pinned
                .resolve(
                    &uri,
                    &config,
                    NextTimeout {
                        after: ureq::unversioned::transport::time::Duration::NotHappening,
                        reason: ureq::Timeout::Global,
                        per_read: None,
                        per_write: None,
                    },
                )
                .map(|addrs| addrs.iter().copied().collect::<Vec<_>>())
        };
        assert_eq!(resolve("https://EXAMPLE.org/x").ok(), Some(vec![addr]));
        assert!(resolve("https://other.org/").is_err());
        assert!(resolve("http://example.org/").is_err());
        assert!(resolve("https://example.org:8443/").is_err());
    }
}
