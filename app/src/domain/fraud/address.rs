//! The address a click came from, as the fraud signals read it. Only public addresses say
//! something about a user: loopback, private, link-local and other special addresses name
//! the network path (every user behind a misconfigured proxy would share one), so they
//! never count towards the shared-address signals.

use std::net::IpAddr;

/// A public click address and its network (`a.b.c.0/24` for IPv4, the `/48` for IPv6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClickAddress {
    pub ip: IpAddr,
    pub network: String,
}

impl ClickAddress {
    /// The address behind `raw` when it is public (`None` for anything else).
    pub fn parse(raw: &str) -> Option<Self> {
        let ip: IpAddr = raw.trim().parse().ok()?;
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        is_public(ip).then(|| ClickAddress {
            ip,
            network: network_of(ip),
        })
    }
}

/// Whether an address can identify a user's connection.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                // Shared address space of carrier-grade NAT (the inside of a carrier).
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || o[0] == 0
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                // Unique local (fc00::/7) and link-local (fe80::/10).
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80)
        }
    }
}

/// The network an address belongs to for the shared-range signal.
pub fn network_of(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            format!("{}.{}.{}.0/24", o[0], o[1], o[2])
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}::/48", s[0], s[1], s[2])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_count() {
        assert!(ClickAddress::parse("127.0.0.1").is_none());
        assert!(ClickAddress::parse("10.1.2.3").is_none());
        assert!(ClickAddress::parse("192.168.0.9").is_none());
        assert!(ClickAddress::parse("100.64.1.1").is_none());
        assert!(ClickAddress::parse("::1").is_none());
        assert!(ClickAddress::parse("fd00::1").is_none());
        assert!(ClickAddress::parse("not an address").is_none());
        let a = ClickAddress::parse("203.0.113.7").expect("public");
        assert_eq!(a.network, "203.0.113.0/24");
        let b = ClickAddress::parse("::ffff:203.0.113.9").expect("mapped");
        assert_eq!(b.network, a.network);
        let c = ClickAddress::parse("2001:db8:1234:5678::1").expect("v6");
        assert_eq!(c.network, "2001:db8:1234::/48");
    }
}
