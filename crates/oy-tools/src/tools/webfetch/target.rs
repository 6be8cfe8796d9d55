//! A URL `webfetch` may fetch: parsed with the WHATWG parser (so numeric
//! host forms such as `2130706433`, `0x7f.1` or `127.1` become the address
//! a browser would dial), http(s) only, no userinfo, no `localhost` name;
//! and the [`Guard`] that holds every address, literal or resolved, to the
//! public-only rule.

use std::fmt;
use std::net::{IpAddr, SocketAddr};

use url::{Host, Url};

use super::address::{NonPublic, classify, is_localhost_name};

/// Why a URL or an address is refused. Nothing has been connected to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not a URL at all.
    Unparsable { url: String, problem: String },
    /// A scheme other than http or https.
    Scheme { scheme: String },
    /// `user:password@` in the URL.
    Userinfo,
    /// `localhost` or a name below it.
    LocalhostName { host: String },
    /// The host is (or resolved to) an address that is not public.
    Address {
        host: String,
        addr: IpAddr,
        why: NonPublic,
    },
    /// A name that resolved to no address at all.
    NoAddress { host: String },
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unparsable { url, problem } => write!(f, "`{url}` is not a valid URL: {problem}"),
            Self::Scheme { scheme } => {
                write!(
                    f,
                    "the `{scheme}:` scheme is refused; only http and https are fetched"
                )
            }
            Self::Userinfo => f.write_str("URLs with a user name or password are refused"),
            Self::LocalhostName { host } => {
                write!(
                    f,
                    "`{host}` names the local machine; only public hosts are fetched"
                )
            }
            Self::Address { host, addr, why }
                if host.trim_matches(['[', ']']) == addr.to_string() =>
            {
                write!(f, "{addr} is {why}; only public addresses are fetched")
            }
            Self::Address { host, addr, why } => write!(
                f,
                "`{host}` resolves to {addr}, which is {why}; only public addresses are fetched"
            ),
            Self::NoAddress { host } => write!(f, "`{host}` resolved to no address"),
        }
    }
}

/// Where a [`Target`]'s connection goes before resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TargetHost {
    /// An address literal (already normalised by the URL parser).
    Ip(IpAddr),
    /// A DNS name, lowercase (IDNA-mapped by the URL parser).
    Name(String),
}

/// A parsed, statically checked URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The normalised URL (no fragment): what is requested.
    pub(crate) url: Url,
    /// The host to connect to.
    pub(crate) host: TargetHost,
    /// The port (explicit or the scheme's default).
    pub(crate) port: u16,
}

impl Target {
    /// Parses `text` and applies the static checks (scheme, userinfo,
    /// localhost names). Address checks are the [`Guard`]'s.
    pub(crate) fn parse(text: &str) -> Result<Self, Refused> {
        let url = Url::parse(text.trim()).map_err(|error| Refused::Unparsable {
            url: text.to_owned(),
            problem: error.to_string(),
        })?;
        Self::from_url(url)
    }

    /// The target of a redirect's `Location`, resolved against this URL and
    /// checked like a fresh one.
    pub(crate) fn redirect(&self, location: &str) -> Result<Self, Refused> {
        let url = self
            .url
            .join(location)
            .map_err(|error| Refused::Unparsable {
                url: location.to_owned(),
                problem: error.to_string(),
            })?;
        Self::from_url(url)
    }

    /// True when `other` has the same scheme, host and port (the user's
    /// `cookie` goes to this origin only).
    pub(crate) fn same_origin(&self, other: &Self) -> bool {
        self.url.origin() == other.url.origin()
    }

    /// The host as the URL serialises it (`[…]` around IPv6).
    pub(crate) fn host_text(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }

    fn from_url(mut url: Url) -> Result<Self, Refused> {
        let scheme = url.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(Refused::Scheme {
                scheme: scheme.to_owned(),
            });
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Refused::Userinfo);
        }
        url.set_fragment(None);
        let host = match url.host() {
            Some(Host::Ipv4(v4)) => TargetHost::Ip(IpAddr::V4(v4)),
            Some(Host::Ipv6(v6)) => TargetHost::Ip(IpAddr::V6(v6)),
            Some(Host::Domain(name)) if is_localhost_name(name) => {
                return Err(Refused::LocalhostName {
                    host: name.to_owned(),
                });
            }
            Some(Host::Domain(name)) => TargetHost::Name(name.to_owned()),
            // http(s) URLs always have a host; fail closed all the same.
            None => {
                return Err(Refused::Unparsable {
                    url: url.to_string(),
                    problem: "no host".to_owned(),
                });
            }
        };
        let port = url.port_or_known_default().unwrap_or(80);
        Ok(Self { url, host, port })
    }
}

/// Holds addresses to the public-only rule. Production uses
/// [`Guard::public_only`]; the only exception is the test hook's list of
/// exact socket addresses.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guard {
    test_allowed: Vec<SocketAddr>,
}

impl Guard {
    /// Public addresses only.
    pub(crate) fn public_only() -> Self {
        Self::default()
    }

    /// Also lets these exact socket addresses through (tests only).
    pub(crate) fn allowing_for_tests(test_allowed: Vec<SocketAddr>) -> Self {
        Self { test_allowed }
    }

    /// Checks one address for `host`.
    pub(crate) fn check(&self, host: &str, addr: SocketAddr) -> Result<(), Refused> {
        if self.test_allowed.contains(&addr) {
            return Ok(());
        }
        match classify(addr.ip()) {
            None => Ok(()),
            Some(why) => Err(Refused::Address {
                host: host.to_owned(),
                addr: addr.ip(),
                why,
            }),
        }
    }

    /// The static check: an address literal must itself pass.
    pub(crate) fn check_literal(&self, target: &Target) -> Result<(), Refused> {
        match target.host {
            TargetHost::Ip(ip) => self.check(target.host_text(), SocketAddr::new(ip, target.port)),
            TargetHost::Name(_) => Ok(()),
        }
    }

    /// The addresses to connect to for `target`: every one of `resolved`
    /// must pass, or the whole target is refused (a name that also points
    /// somewhere private is not fetched from its public address either).
    pub(crate) fn check_resolved(
        &self,
        target: &Target,
        resolved: &[IpAddr],
    ) -> Result<Vec<SocketAddr>, Refused> {
        if resolved.is_empty() {
            return Err(Refused::NoAddress {
                host: target.host_text().to_owned(),
            });
        }
        let addrs: Vec<SocketAddr> = resolved
            .iter()
            .map(|ip| SocketAddr::new(*ip, target.port))
            .collect();
        for addr in &addrs {
            self.check(target.host_text(), *addr)?;
        }
        Ok(addrs)
    }
}
