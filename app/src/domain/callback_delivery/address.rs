//! Which addresses a reward callback may be sent to. Publishers choose the receiver URL, so
//! without these checks the service could be made to POST into its own network (SSRF). The
//! check runs when the URL is configured and again at send time on the addresses the
//! connection will actually use (the worker's resolver returns only checked addresses, so a
//! DNS answer cannot change between the check and the connect). It fails closed: a lookup
//! error, a timeout or an empty answer refuses.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

/// How long a receiver's name may take to resolve.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether an IPv4 address is not publicly routable (loopback, private, link-local, shared,
/// benchmarking, documentation, multicast, reserved, broadcast, "this network").
pub fn is_private_v4(v4: Ipv4Addr) -> bool {
    let o = v4.octets();
    v4.is_private()
        || v4.is_loopback()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_documentation()
        || v4.is_multicast()
        || o[0] == 0
        || o[0] >= 240
        || (o[0] == 100 && (64..128).contains(&o[1]))
        || (o[0] == 198 && (o[1] == 18 || o[1] == 19))
        || (o[0] == 192 && o[1] == 0 && o[2] == 0)
        || (o[0] == 192 && o[1] == 88 && o[2] == 99)
}

/// Whether an IPv6 address is not publicly routable, or embeds an IPv4 address that is not
/// (IPv4-mapped, IPv4-compatible, NAT64 and 6to4), or is a tunnel whose far end cannot be
/// checked (Teredo).
pub fn is_private_v6(v6: Ipv6Addr) -> bool {
    let s = v6.segments();
    let embedded =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if let Some(v4) = v6.to_ipv4_mapped() {
        return is_private_v4(v4);
    }
    // IPv4-compatible ::a.b.c.d (deprecated; never a real destination).
    if s[..6].iter().all(|x| *x == 0) {
        return true;
    }
    // NAT64 well-known prefix 64:ff9b::/96: the IPv4 address in the last 32 bits decides.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6].iter().all(|x| *x == 0) {
        return is_private_v4(embedded(s[6], s[7]));
    }
    // 6to4 2002::/16: the IPv4 address in bits 16..48 decides.
    if s[0] == 0x2002 {
        return is_private_v4(embedded(s[1], s[2]));
    }
    v6.is_loopback()
        || v6.is_unspecified()
        || v6.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (s[0] & 0xffc0) == 0xfec0 // site-local fec0::/10
        || (s[0] == 0x2001 && s[1] == 0) // Teredo 2001::/32
        || (s[0] == 0x2001 && s[1] == 0xdb8) // documentation 2001:db8::/32
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1) // local-use NAT64 64:ff9b:1::/48
        || (s[0] == 0x100 && s[1..4].iter().all(|x| *x == 0)) // discard-only 100::/64
}

/// Whether an address is loopback, private, link-local or otherwise not public.
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => is_private_v6(v6),
    }
}

/// Why a receiver address was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddressRefused {
    /// The name did not resolve (error, timeout or no address).
    Unresolved(String),
    /// Every address it resolved to is private or loopback.
    Private,
}

impl std::fmt::Display for AddressRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddressRefused::Unresolved(why) => {
                write!(f, "the receiver's host did not resolve: {why}")
            }
            AddressRefused::Private => {
                f.write_str("the receiver resolves to a loopback or private network address")
            }
        }
    }
}

/// Host names that are local by convention and never resolved.
pub fn is_local_name(host: &str) -> bool {
    let d = host.trim_end_matches('.').to_ascii_lowercase();
    d == "localhost"
        || [".localhost", ".local", ".internal", ".home.arpa"]
            .iter()
            .any(|s| d.ends_with(s))
        || !d.contains('.')
}

/// Resolves `host` and returns the addresses a callback may connect to. With
/// `allow_private` every address is allowed; otherwise any private address in the answer
/// refuses the whole name (a name that mixes public and private answers is a rebinding
/// attempt or a misconfiguration either way).
pub async fn resolve_checked(
    host: &str,
    port: u16,
    allow_private: bool,
) -> Result<Vec<SocketAddr>, AddressRefused> {
    if let Ok(ip) = host.trim_matches(['[', ']']).parse::<IpAddr>() {
        return if allow_private || !is_private(ip) {
            Ok(vec![SocketAddr::new(ip, port)])
        } else {
            Err(AddressRefused::Private)
        };
    }
    if !allow_private && is_local_name(host) {
        return Err(AddressRefused::Private);
    }
    let addrs: Vec<SocketAddr> =
        match tokio::time::timeout(LOOKUP_TIMEOUT, tokio::net::lookup_host((host, port))).await {
            Ok(Ok(a)) => a.collect(),
            Ok(Err(e)) => return Err(AddressRefused::Unresolved(e.to_string())),
            Err(_) => return Err(AddressRefused::Unresolved("lookup timed out".to_owned())),
        };
    if addrs.is_empty() {
        return Err(AddressRefused::Unresolved("no address".to_owned()));
    }
    if !allow_private && addrs.iter().any(|a| is_private(a.ip())) {
        return Err(AddressRefused::Private);
    }
    Ok(addrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn private(s: &str) -> bool {
        is_private(s.parse().unwrap_or(IpAddr::from([8, 8, 8, 8])))
    }

    #[test]
    fn ipv4_ranges_that_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.1",
            "172.16.5.4",
            "169.254.1.1",
            "100.64.0.1",
            "0.0.0.0",
            "0.1.2.3",
            "198.18.0.1",
            "192.0.0.8",
            "192.0.2.1",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(private(ip), "{ip}");
        }
        for ip in ["8.8.8.8", "203.0.114.1", "1.1.1.1", "223.255.255.254"] {
            assert!(!private(ip), "{ip}");
        }
    }

    #[test]
    fn ipv6_ranges_that_are_not_public() {
        for ip in [
            "::1",
            "::",
            "fd00::1",
            "fc00::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
            "::7f00:1",            // IPv4-compatible ::127.0.0.1
            "::808:808",           // IPv4-compatible, even of a public address
            "64:ff9b::7f00:1",     // NAT64 of 127.0.0.1
            "64:ff9b::a00:1",      // NAT64 of 10.0.0.1
            "64:ff9b:1::1",        // local-use NAT64
            "2002:c0a8:101::1",    // 6to4 of 192.168.1.1
            "2002:7f00:1::1",      // 6to4 of 127.0.0.1
            "2001:0:4136:e378::1", // Teredo
            "2001:db8::1",
            "100::1",
        ] {
            assert!(private(ip), "{ip}");
        }
        for ip in [
            "2606:4700::1111",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "::ffff:8.8.8.8",
        ] {
            assert!(!private(ip), "{ip}");
        }
    }

    #[test]
    fn local_names_are_refused_without_lookup() {
        for h in [
            "localhost",
            "api.localhost",
            "printer.local",
            "db.internal",
            "nas.home.arpa",
            "intranet",
        ] {
            assert!(is_local_name(h), "{h}");
        }
        assert!(!is_local_name("hooks.example.com"));
    }

    #[tokio::test]
    async fn resolution_fails_closed() {
        assert_eq!(
            resolve_checked("127.0.0.1", 443, false).await,
            Err(AddressRefused::Private)
        );
        assert!(resolve_checked("127.0.0.1", 443, true).await.is_ok());
        assert!(matches!(
            resolve_checked("no-such-host.invalid", 443, false).await,
            Err(AddressRefused::Unresolved(_))
        ));
        assert_eq!(
            resolve_checked("[::1]", 443, false).await,
            Err(AddressRefused::Private)
        );
    }
}
