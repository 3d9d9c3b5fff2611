//! Hosting and cloud address ranges (the DATACENTER signal): a click from a data centre is
//! a server, a VPN or a proxy, not a person's phone. The list is shipped with the service
//! (`app/data/datacenter-ranges.txt`, compiled in, regenerated offline by
//! `scripts/refresh-datacenter-ranges.py` from a package of the public registries) and an
//! operator may add ranges of their own from a file in the same format
//! (`APP_FRAUD_DATACENTER_FILE`: one `cidr<TAB>provider` per line, `#` comments), read at
//! start. Lookups are a binary search over sorted, merged ranges.

use std::net::IpAddr;

/// The list shipped with the service.
const SHIPPED: &str = include_str!("../../../data/datacenter-ranges.txt");

/// Address ranges with their provider names.
#[derive(Debug, Default)]
pub struct Ranges {
    v4: Vec<(u32, u32, u16)>,
    v6: Vec<(u128, u128, u16)>,
    providers: Vec<String>,
}

impl Ranges {
    /// The shipped list plus the lines of `extra` (an operator's file).
    pub fn shipped_with(extra: Option<&str>) -> Self {
        let mut r = Ranges::default();
        r.add_text(SHIPPED);
        if let Some(extra) = extra {
            r.add_text(extra);
        }
        r.finish();
        r
    }

    /// Ranges from text in the file format only (tests).
    pub fn from_text(text: &str) -> Self {
        let mut r = Ranges::default();
        r.add_text(text);
        r.finish();
        r
    }

    fn provider_index(&mut self, name: &str) -> u16 {
        match self.providers.iter().position(|p| p == name) {
            Some(i) => u16::try_from(i).unwrap_or(u16::MAX),
            None => {
                self.providers.push(name.to_owned());
                u16::try_from(self.providers.len() - 1).unwrap_or(u16::MAX)
            }
        }
    }

    fn add_text(&mut self, text: &str) {
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (Some(cidr), provider) = (parts.next(), parts.next().unwrap_or("hosting")) else {
                continue;
            };
            let Ok(net) = cidr.parse::<ipnet::IpNet>() else {
                continue;
            };
            let p = self.provider_index(provider);
            match net.trunc() {
                ipnet::IpNet::V4(n) => {
                    self.v4
                        .push((u32::from(n.network()), u32::from(n.broadcast()), p))
                }
                ipnet::IpNet::V6(n) => {
                    self.v6
                        .push((u128::from(n.network()), u128::from(n.broadcast()), p))
                }
            }
        }
    }

    /// Sorts and merges overlapping ranges (the first provider named wins), so a lookup is
    /// one binary search.
    fn finish(&mut self) {
        fn merge<T: Ord + Copy>(v: &mut Vec<(T, T, u16)>) {
            v.sort_unstable();
            let mut out: Vec<(T, T, u16)> = Vec::with_capacity(v.len());
            for r in v.drain(..) {
                match out.last_mut() {
                    Some(last) if r.0 <= last.1 => {
                        if r.1 > last.1 {
                            last.1 = r.1;
                        }
                    }
                    _ => out.push(r),
                }
            }
            *v = out;
        }
        merge(&mut self.v4);
        merge(&mut self.v6);
    }

    /// The provider whose range holds `ip`, if any.
    pub fn provider(&self, ip: IpAddr) -> Option<&str> {
        fn find<T: Ord + Copy>(v: &[(T, T, u16)], x: T) -> Option<u16> {
            let i = v.partition_point(|r| r.0 <= x);
            let r = v.get(i.checked_sub(1)?)?;
            (x <= r.1).then_some(r.2)
        }
        let i = match ip {
            IpAddr::V4(v4) => find(&self.v4, u32::from(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => find(&self.v4, u32::from(v4)),
                None => find(&self.v6, u128::from(v6)),
            },
        }?;
        self.providers.get(usize::from(i)).map(String::as_str)
    }

    /// Ranges held (both families), for the operator's log line at start.
    pub fn len(&self) -> usize {
        self.v4.len() + self.v6.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_provider_of_an_address() {
        let r = Ranges::from_text(
            "# test\n198.51.100.0/24\tacme\n198.51.100.128/25\tother\n2001:db8::/32 v6host\nbad line\n",
        );
        assert_eq!(r.provider("198.51.100.7".parse().unwrap()), Some("acme"));
        assert_eq!(r.provider("198.51.100.200".parse().unwrap()), Some("acme"));
        assert_eq!(r.provider("198.51.101.1".parse().unwrap()), None);
        assert_eq!(r.provider("2001:db8::1".parse().unwrap()), Some("v6host"));
        assert_eq!(
            r.provider("::ffff:198.51.100.9".parse().unwrap()),
            Some("acme")
        );
        assert_eq!(r.provider("10.0.0.1".parse().unwrap()), None);
    }

    #[test]
    fn the_shipped_list_loads() {
        let r = Ranges::shipped_with(None);
        assert!(r.len() > 10, "{} ranges", r.len());
        for local in [
            "127.0.0.1",
            "10.0.0.1",
            "192.168.1.1",
            "198.51.100.7",
            "203.0.113.7",
        ] {
            assert_eq!(r.provider(local.parse().unwrap()), None, "{local}");
        }
    }
}
