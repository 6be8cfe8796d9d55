//! Which addresses `webfetch` may connect to: a pure classifier that names
//! the special-purpose range an IP address falls in, fail-closed for IPv6
//! (only global unicast `2000::/3` outside the special ranges is public).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Range {
    /// `0.0.0.0/8` ("this network"; `0.0.0.0` reaches the local host).
    ThisNetwork,
    /// `0.0.0.0` or `::`.
    Unspecified,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `10/8`, `172.16/12`, `192.168/16`.
    Private,
    /// `100.64.0.0/10`.
    SharedCgnat,
    /// `169.254/16`, `fe80::/10`.
    LinkLocal,
    /// `192.0.0.0/24` (IETF protocol assignments).
    ProtocolAssignments,
    /// `192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// `192.88.99.0/24` (the deprecated 6to4 relay anycast).
    SixToFourRelay,
    /// `198.18/15`, `2001:2::/48`.
    Benchmarking,
    /// `224/4`, `ff00::/8`.
    Multicast,
    /// `240/4` (reserved; less the broadcast address).
    Reserved,
    /// `255.255.255.255`.
    Broadcast,
    /// A cloud metadata service (`169.254.169.254`, `fd00:ec2::254`,
    /// `100.100.100.200`, `168.63.129.16`).
    Metadata,
    /// `fc00::/7`.
    UniqueLocal,
    /// `fec0::/10` (deprecated site-local).
    SiteLocal,
    /// `64:ff9b::/96`, `64:ff9b:1::/48`: translated to IPv4 by a gateway.
    Nat64,
    /// `2002::/16`: IPv4 inside IPv6.
    SixToFour,
    /// `2001::/32`: IPv4 inside IPv6.
    Teredo,
    /// `100::/64` (discard-only).
    Discard,
    /// `2001:10::/28`, `2001:20::/28` (ORCHID identifiers, not routable).
    Orchid,
    /// Outside `2000::/3` (IPv6 global unicast) and not otherwise named.
    NotGlobalUnicast,
}

impl Range {
    fn describe(self) -> &'static str {
        match self {
            Self::ThisNetwork => "a \"this network\" address (0.0.0.0/8)",
            Self::Unspecified => "the unspecified address",
            Self::Loopback => "a loopback address",
            Self::Private => "a private-network address",
            Self::SharedCgnat => "a carrier-grade NAT address (100.64.0.0/10)",
            Self::LinkLocal => "a link-local address",
            Self::ProtocolAssignments => "an IETF protocol-assignment address (192.0.0.0/24)",
            Self::Documentation => "a documentation address",
            Self::SixToFourRelay => "a 6to4 relay address (192.88.99.0/24)",
            Self::Benchmarking => "a benchmarking address",
            Self::Multicast => "a multicast address",
            Self::Reserved => "a reserved address (240.0.0.0/4)",
            Self::Broadcast => "the broadcast address",
            Self::Metadata => "a cloud metadata service address",
            Self::UniqueLocal => "a unique-local address (fc00::/7)",
            Self::SiteLocal => "a site-local address (fec0::/10)",
            Self::Nat64 => "a NAT64 address (64:ff9b::/96, 64:ff9b:1::/48)",
            Self::SixToFour => "a 6to4 address (2002::/16)",
            Self::Teredo => "a Teredo address (2001::/32)",
            Self::Discard => "a discard-only address (100::/64)",
            Self::Orchid => "an ORCHID identifier (not routable)",
            Self::NotGlobalUnicast => "not an IPv6 global unicast address",
        }
    }
}

/// A non-public address and the range it falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NonPublic {
    /// The range.
    pub(crate) range: Range,
    /// Set when the range is that of an IPv4 address embedded in an
    /// IPv4-mapped, -translated or -compatible IPv6 address.
    pub(crate) embedded: Option<Ipv4Addr>,
}

impl fmt::Display for NonPublic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.embedded {
            Some(v4) => write!(
                f,
                "an IPv6 form of {v4}, which is {}",
                self.range.describe()
            ),
            None => f.write_str(self.range.describe()),
        }
    }
}

/// `None` when `ip` is a public address `webfetch` may connect to.
pub(crate) fn classify(ip: IpAddr) -> Option<NonPublic> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4).map(|range| NonPublic {
            range,
            embedded: None,
        }),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// True when `host` (a name, lowercase, as the URL parser leaves it) is
/// `localhost` or below it, with or without trailing dots.
pub(crate) fn is_localhost_name(host: &str) -> bool {
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - prefix).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn classify_v4(ip: Ipv4Addr) -> Option<Range> {
    const METADATA: [[u8; 4]; 3] = [
        [169, 254, 169, 254],
        [100, 100, 100, 200],
        [168, 63, 129, 16],
    ];
    if METADATA.contains(&ip.octets()) {
        return Some(Range::Metadata);
    }
    let table: [([u8; 4], u32, Range); 17] = [
        ([0, 0, 0, 0], 32, Range::Unspecified),
        ([0, 0, 0, 0], 8, Range::ThisNetwork),
        ([10, 0, 0, 0], 8, Range::Private),
        ([100, 64, 0, 0], 10, Range::SharedCgnat),
        ([127, 0, 0, 0], 8, Range::Loopback),
        ([169, 254, 0, 0], 16, Range::LinkLocal),
        ([172, 16, 0, 0], 12, Range::Private),
        ([192, 0, 0, 0], 24, Range::ProtocolAssignments),
        ([192, 0, 2, 0], 24, Range::Documentation),
        ([192, 88, 99, 0], 24, Range::SixToFourRelay),
        ([192, 168, 0, 0], 16, Range::Private),
        ([198, 18, 0, 0], 15, Range::Benchmarking),
        ([198, 51, 100, 0], 24, Range::Documentation),
        ([203, 0, 113, 0], 24, Range::Documentation),
        ([224, 0, 0, 0], 4, Range::Multicast),
        ([255, 255, 255, 255], 32, Range::Broadcast),
        ([240, 0, 0, 0], 4, Range::Reserved),
    ];
    table
        .iter()
        .find(|(net, prefix, _)| in_v4(ip, *net, *prefix))
        .map(|(_, _, range)| *range)
}

fn in_v6(ip: Ipv6Addr, net: [u16; 8], prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    u128::from(ip) & mask == u128::from(Ipv6Addr::from(net)) & mask
}

fn classify_v6(ip: Ipv6Addr) -> Option<NonPublic> {
    let plain = |range| {
        Some(NonPublic {
            range,
            embedded: None,
        })
    };
    if ip.is_unspecified() {
        return plain(Range::Unspecified);
    }
    if ip.is_loopback() {
        return plain(Range::Loopback);
    }
    // IPv4 inside IPv6 that the host itself unwraps: mapped (::ffff:0:0/96),
    // SIIT-translated (::ffff:0:0:0/96) and the deprecated compatible form
    // (::/96). The embedded IPv4 address decides.
    let [a, b, c, d, e, f, _, _] = ip.segments();
    let embedded_form = (a, b, c, d) == (0, 0, 0, 0)
        && ((e, f) == (0, 0xffff) || (e, f) == (0xffff, 0) || (e, f) == (0, 0));
    if embedded_form {
        let [.., w, x, y, z] = ip.octets();
        let v4 = Ipv4Addr::new(w, x, y, z);
        return classify_v4(v4).map(|range| NonPublic {
            range,
            embedded: Some(v4),
        });
    }
    if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        return plain(Range::Metadata);
    }
    let table: [([u16; 8], u32, Range); 14] = [
        ([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96, Range::Nat64),
        ([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48, Range::Nat64),
        ([0x100, 0, 0, 0, 0, 0, 0, 0], 64, Range::Discard),
        ([0x2001, 0, 0, 0, 0, 0, 0, 0], 32, Range::Teredo),
        ([0x2001, 2, 0, 0, 0, 0, 0, 0], 48, Range::Benchmarking),
        ([0x2001, 0x10, 0, 0, 0, 0, 0, 0], 28, Range::Orchid),
        ([0x2001, 0x20, 0, 0, 0, 0, 0, 0], 28, Range::Orchid),
        ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32, Range::Documentation),
        ([0x2002, 0, 0, 0, 0, 0, 0, 0], 16, Range::SixToFour),
        ([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20, Range::Documentation),
        ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, Range::UniqueLocal),
        ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, Range::LinkLocal),
        ([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, Range::SiteLocal),
        ([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, Range::Multicast),
    ];
    if let Some((_, _, range)) = table
        .iter()
        .find(|(net, prefix, _)| in_v6(ip, *net, *prefix))
    {
        return plain(*range);
    }
    // Fail closed: whatever else lies outside global unicast is not public.
    if !in_v6(ip, [0x2000, 0, 0, 0, 0, 0, 0, 0], 3) {
        return plain(Range::NotGlobalUnicast);
    }
    None
}

#[cfg(test)]
mod tests;
