//! The survey respondent risk score: transparent points per signal, summed and capped at
//! 100. 70 or more is FRAUD_BLOCKED; 40 to 69 still gets surveys but must pass a
//! verification step on the hosted entry page. Signals:
//!
//! | Signal | Points |
//! |---|---|
//! | address in a configured blocked range (`APP_SURVEY_BLOCKED_RANGES`) | 100 |
//! | address not publicly routable (loopback, private, link-local), outside development | 50 |
//! | more than 30 fetches by the respondent in the last hour | 40 |
//! | more than 5 different respondents from the address in the last hour | 40 |
//! | the `gps_id` used by more than 3 different respondents (a device farm) | 70 |
//! | the address is registered to another country than the locale's | 40 |
//!
//! The address country comes from the Regional Internet Registries' delegation data embedded
//! in the `iptocc` crate (offline, refreshed with each release of the crate): the country an
//! address block is registered to, which is where most consumer addresses are used. A
//! mismatch alone asks for verification (travellers, VPNs); with any other signal it blocks.

use std::net::IpAddr;

use super::respondents::History;
use crate::domain::Ctx;

pub const BLOCK_AT: i32 = 70;
pub const VERIFY_AT: i32 = 40;

/// A score and the signals that made it (stored and shown to operators).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Risk {
    pub score: i32,
    pub signals: Vec<&'static str>,
}

impl Risk {
    fn add(&mut self, points: i32, signal: &'static str) {
        self.score = (self.score + points).min(100);
        self.signals.push(signal);
    }

    pub fn blocked(&self) -> bool {
        self.score >= BLOCK_AT
    }

    pub fn needs_verification(&self) -> bool {
        (VERIFY_AT..BLOCK_AT).contains(&self.score)
    }
}

/// Whether the address is registered to a country other than `locale_country` (unknown and
/// private addresses are not a mismatch).
pub fn country_mismatch(ip: IpAddr, locale_country: &str) -> bool {
    iptocc::country_code(ip).is_some_and(|cc| !cc.eq_ignore_ascii_case(locale_country))
}

fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v) => {
            !(v.is_loopback()
                || v.is_private()
                || v.is_link_local()
                || v.is_unspecified()
                || v.is_broadcast())
        }
        IpAddr::V6(v) => {
            !(v.is_loopback()
                || v.is_unspecified()
                || (v.segments()[0] & 0xfe00) == 0xfc00
                || (v.segments()[0] & 0xffc0) == 0xfe80)
        }
    }
}

/// Scores a fetch before it is counted, from the respondent's earlier fetches as
/// `respondents` keeps them (no query).
pub fn score(ctx: &Ctx, ip: IpAddr, locale_country: &str, history: &History) -> Risk {
    let mut risk = Risk::default();
    if country_mismatch(ip, locale_country) {
        risk.add(40, "ip_country_mismatch");
    }
    if ctx
        .config
        .survey_blocked_ranges
        .iter()
        .any(|n| n.contains(&ip))
    {
        risk.add(100, "blocked_range");
    }
    if !public(ip) && ctx.config.environment != crate::domain::Environment::Development {
        risk.add(50, "non_public_address");
    }
    if history.fetches_last_hour > 30 {
        risk.add(40, "user_velocity");
    }
    if history.others_at_address > 5 {
        risk.add(40, "address_velocity");
    }
    if history.others_on_device >= 3 {
        risk.add(70, "shared_device");
    }
    risk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_country_against_the_locale() {
        let google: IpAddr = "8.8.8.8".parse().unwrap();
        assert!(!country_mismatch(google, "US"));
        assert!(country_mismatch(google, "DE"));
        let private: IpAddr = "10.1.2.3".parse().unwrap();
        assert!(
            !country_mismatch(private, "DE"),
            "unknown is not a mismatch"
        );
        let doc: IpAddr = "203.0.113.7".parse().unwrap();
        assert!(!country_mismatch(doc, "US"));
    }

    #[test]
    fn thresholds() {
        let mut r = Risk::default();
        r.add(40, "ip_country_mismatch");
        assert!(r.needs_verification() && !r.blocked());
        r.add(40, "user_velocity");
        assert!(r.blocked());
        r.add(100, "blocked_range");
        assert_eq!(r.score, 100);
    }
}
