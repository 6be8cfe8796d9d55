//! The classifier over every special range, on both sides of each boundary.

use std::net::IpAddr;

use super::{Range, classify, is_localhost_name};

fn range_of(addr: &str) -> Option<Range> {
    let ip: IpAddr = addr
        .parse()
        .unwrap_or_else(|_| panic!("bad test address {addr}"));
    classify(ip).map(|non_public| non_public.range)
}

fn check(cases: &[(&str, Option<Range>)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(addr, want)| range_of(addr) != *want)
        .map(|(addr, want)| format!("{addr}: want {want:?}, got {:?}", range_of(addr)))
        .collect();
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
}

#[test]
fn classifies_ipv4_ranges_on_both_sides_of_each_boundary() {
    use Range::*;
    check(&[
        ("0.0.0.0", Some(Unspecified)),
        ("0.0.0.1", Some(ThisNetwork)),
        ("0.255.255.255", Some(ThisNetwork)),
        ("1.0.0.0", None),
        ("9.255.255.255", None),
        ("10.0.0.0", Some(Private)),
        ("10.255.255.255", Some(Private)),
        ("11.0.0.0", None),
        ("100.63.255.255", None),
        ("100.64.0.0", Some(SharedCgnat)),
        ("100.127.255.255", Some(SharedCgnat)),
        ("100.128.0.0", None),
        ("126.255.255.255", None),
        ("127.0.0.0", Some(Loopback)),
        ("127.0.0.1", Some(Loopback)),
        ("127.255.255.255", Some(Loopback)),
        ("128.0.0.0", None),
        ("169.253.255.255", None),
        ("169.254.0.0", Some(LinkLocal)),
        ("169.254.255.255", Some(LinkLocal)),
        ("169.255.0.0", None),
        ("172.15.255.255", None),
        ("172.16.0.0", Some(Private)),
        ("172.31.255.255", Some(Private)),
        ("172.32.0.0", None),
        ("191.255.255.255", None),
        ("192.0.0.0", Some(ProtocolAssignments)),
        ("192.0.0.255", Some(ProtocolAssignments)),
        ("192.0.1.255", None),
        ("192.0.2.0", Some(Documentation)),
        ("192.0.2.255", Some(Documentation)),
        ("192.0.3.0", None),
        ("192.88.98.255", None),
        ("192.88.99.0", Some(SixToFourRelay)),
        ("192.88.99.255", Some(SixToFourRelay)),
        ("192.88.100.0", None),
        ("192.167.255.255", None),
        ("192.168.0.0", Some(Private)),
        ("192.168.255.255", Some(Private)),
        ("192.169.0.0", None),
        ("198.17.255.255", None),
        ("198.18.0.0", Some(Benchmarking)),
        ("198.19.255.255", Some(Benchmarking)),
        ("198.20.0.0", None),
        ("198.51.99.255", None),
        ("198.51.100.0", Some(Documentation)),
        ("198.51.100.255", Some(Documentation)),
        ("198.51.101.0", None),
        ("203.0.112.255", None),
        ("203.0.113.0", Some(Documentation)),
        ("203.0.113.255", Some(Documentation)),
        ("203.0.114.0", None),
        ("223.255.255.255", None),
        ("224.0.0.0", Some(Multicast)),
        ("239.255.255.255", Some(Multicast)),
        ("240.0.0.0", Some(Reserved)),
        ("255.255.255.254", Some(Reserved)),
        ("255.255.255.255", Some(Broadcast)),
        ("8.8.8.8", None),
        ("93.184.215.14", None),
    ]);
}

#[test]
fn classifies_metadata_addresses_and_their_neighbours() {
    use Range::*;
    check(&[
        ("169.254.169.254", Some(Metadata)),
        ("169.254.169.253", Some(LinkLocal)),
        ("100.100.100.200", Some(Metadata)),
        ("100.100.100.201", Some(SharedCgnat)),
        ("168.63.129.16", Some(Metadata)),
        ("168.63.129.15", None),
        ("168.63.129.17", None),
        ("fd00:ec2::254", Some(Metadata)),
        ("fd00:ec2::253", Some(UniqueLocal)),
        ("::ffff:169.254.169.254", Some(Metadata)),
        ("::ffff:168.63.129.16", Some(Metadata)),
    ]);
}

#[test]
fn classifies_ipv6_ranges_on_both_sides_of_each_boundary() {
    use Range::*;
    check(&[
        ("::", Some(Unspecified)),
        ("::1", Some(Loopback)),
        ("::2", Some(ThisNetwork)),
        (
            "63:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(NotGlobalUnicast),
        ),
        ("64:ff9b::", Some(Nat64)),
        ("64:ff9b::ffff:ffff", Some(Nat64)),
        ("64:ff9b::1:0:0", Some(NotGlobalUnicast)),
        ("64:ff9b:1::", Some(Nat64)),
        ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", Some(Nat64)),
        ("64:ff9b:2::", Some(NotGlobalUnicast)),
        ("100::", Some(Discard)),
        ("100::ffff:ffff:ffff:ffff", Some(Discard)),
        ("100:0:0:1::", Some(NotGlobalUnicast)),
        (
            "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(NotGlobalUnicast),
        ),
        ("2000::", None),
        ("2001::", Some(Teredo)),
        ("2001:0:ffff:ffff:ffff:ffff:ffff:ffff", Some(Teredo)),
        ("2001:1::1", None),
        ("2001:2::", Some(Benchmarking)),
        ("2001:2:0:ffff:ffff:ffff:ffff:ffff", Some(Benchmarking)),
        ("2001:2:1::", None),
        ("2001:f:ffff:ffff:ffff:ffff:ffff:ffff", None),
        ("2001:10::", Some(Orchid)),
        ("2001:2f:ffff:ffff:ffff:ffff:ffff:ffff", Some(Orchid)),
        ("2001:30::", None),
        ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", None),
        ("2001:db8::", Some(Documentation)),
        (
            "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Documentation),
        ),
        ("2001:db9::", None),
        ("2001:4860:4860::8888", None),
        ("2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
        ("2002::", Some(SixToFour)),
        ("2002:7f00:1::", Some(SixToFour)),
        ("2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some(SixToFour)),
        ("2003::", None),
        ("2606:4700::1111", None),
        ("3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
        ("3fff::", Some(Documentation)),
        (
            "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(Documentation),
        ),
        ("3fff:1000::", None),
        ("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", None),
        ("4000::", Some(NotGlobalUnicast)),
        (
            "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(NotGlobalUnicast),
        ),
        ("fc00::", Some(UniqueLocal)),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some(UniqueLocal)),
        ("fe00::", Some(NotGlobalUnicast)),
        (
            "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            Some(NotGlobalUnicast),
        ),
        ("fe80::", Some(LinkLocal)),
        ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some(LinkLocal)),
        ("fec0::", Some(SiteLocal)),
        ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some(SiteLocal)),
        ("ff00::", Some(Multicast)),
        ("ff02::1", Some(Multicast)),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", Some(Multicast)),
    ]);
}

#[test]
fn checks_the_ipv4_address_embedded_in_mapped_translated_and_compatible_forms() {
    use Range::*;
    check(&[
        ("::ffff:127.0.0.1", Some(Loopback)),
        ("::ffff:7f00:1", Some(Loopback)),
        ("::ffff:10.1.2.3", Some(Private)),
        ("::ffff:0.0.0.0", Some(Unspecified)),
        ("::ffff:255.255.255.255", Some(Broadcast)),
        ("::ffff:8.8.8.8", None),
        ("::ffff:0:127.0.0.1", Some(Loopback)),
        ("::ffff:0:192.168.1.1", Some(Private)),
        ("::ffff:0:8.8.8.8", None),
        ("::127.0.0.1", Some(Loopback)),
        ("::10.0.0.1", Some(Private)),
        ("::8.8.8.8", None),
        // Neighbours of the embedded forms are not unwrapped.
        ("::1:ffff:7f00:1", Some(NotGlobalUnicast)),
        ("0:0:0:1:0:ffff:7f00:1", Some(NotGlobalUnicast)),
    ]);
    let ip: IpAddr = "::ffff:127.0.0.1"
        .parse()
        .unwrap_or_else(|_| unreachable!());
    let described = classify(ip).map(|n| n.to_string()).unwrap_or_default();
    assert!(described.contains("127.0.0.1"), "{described}");
    assert!(described.contains("loopback"), "{described}");
}

#[test]
fn recognises_localhost_names() {
    for name in [
        "localhost",
        "localhost.",
        "localhost..",
        "LOCALHOST",
        "foo.localhost",
        "a.b.localhost.",
    ] {
        assert!(is_localhost_name(name), "{name}");
    }
    for name in [
        "localhost.com",
        "notlocalhost",
        "localhostx",
        "example.org",
        "local",
    ] {
        assert!(!is_localhost_name(name), "{name}");
    }
}
