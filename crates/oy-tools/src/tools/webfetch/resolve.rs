//! Name resolution for `webfetch`: the injectable [`Resolve`] trait, the
//! system resolver, and a lookup bounded by the fetch's deadline.

use std::io;
use std::net::{IpAddr, ToSocketAddrs};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

/// Turns a host name into addresses. `webfetch` checks every address it
/// returns and connects only to those, so a resolver decides nothing about
/// what is allowed. Tests inject one that maps names to chosen addresses.
pub trait Resolve: Send + Sync {
    /// Every address `host` (a DNS name, never an address literal) has.
    fn resolve(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The operating system's resolver (`getaddrinfo`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        Ok((host, 0_u16)
            .to_socket_addrs()?
            .map(|addr| addr.ip())
            .collect())
    }
}

/// Why a lookup gave no addresses.
#[derive(Debug)]
pub(crate) enum LookupError {
    /// The resolver did not answer in time.
    TimedOut,
    /// The resolver failed (unknown name, no network, …).
    Failed(io::Error),
}

/// Runs `resolver` for `host` on its own thread and waits at most
/// `timeout`; a resolver that hangs is left to finish on its own.
pub(crate) fn lookup(
    resolver: &Arc<dyn Resolve>,
    host: &str,
    timeout: Duration,
) -> Result<Vec<IpAddr>, LookupError> {
    let (send, receive) = mpsc::channel();
    let resolver = Arc::clone(resolver);
    let name = host.to_owned();
    std::thread::Builder::new()
        .name("oy-webfetch-dns".to_owned())
        .spawn(move || {
            // The receiver may be gone after a timeout; nothing to do then.
            let _ = send.send(resolver.resolve(&name));
        })
        .map_err(LookupError::Failed)?;
    match receive.recv_timeout(timeout) {
        Ok(Ok(addrs)) => Ok(addrs),
        Ok(Err(error)) => Err(LookupError::Failed(error)),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(LookupError::TimedOut),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(LookupError::Failed(io::Error::other(
            "the resolver stopped without an answer",
        ))),
    }
}
