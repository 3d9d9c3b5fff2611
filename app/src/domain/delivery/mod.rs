//! Delivery to end users: SDK sessions, offer lists, impressions and launches, reward status
//! and SDK support cases, the web pixel, the hosted wall and the static feed; the
//! publisher's offers report. (Advertisers' conversion reports are `domain::conversions`.) Every surface that shows offers asks [`offers`] so that the
//! SDK list, a launch and (later) the static feed agree on eligibility.

pub mod actor;
pub mod history;
pub mod hosted_wall;
pub mod impressions;
pub mod launches;
pub mod offer_list;
pub mod offer_texts;
pub mod offers;
pub mod report;
pub mod reward_status;
pub mod sessions;
pub mod static_feed;
pub mod support_cases;
pub mod web_pixel;

use crate::model::money::Micros;
use crate::model::publisher::{SlotState, SlotType};
use chrono::Duration;

/// Lifetime of an SDK session token.
pub const SESSION_TTL: Duration = Duration::minutes(15);
/// Lifetime of an impression receipt (a launch needs an unexpired one).
pub const IMPRESSION_TTL: Duration = Duration::minutes(10);
/// Lifetime of a signed launch URL.
pub const LAUNCH_TTL: Duration = Duration::minutes(5);
/// How long after a launch a conversion is attributed to it, in hours (30 days).
pub const ATTRIBUTION_WINDOW_HOURS: i64 = 720;
/// The publisher's share of an advertiser payout, in basis points. The rest is the
/// platform's margin. Rewards shown to users are converted from this share.
pub const PUBLISHER_SHARE_BPS: i64 = 7_000;

/// The publisher's earnings for an advertiser payout (exact; rounded down to the micro).
pub fn publisher_share(payout_micros: Micros) -> Micros {
    let v = i128::from(payout_micros.get()) * i128::from(PUBLISHER_SHARE_BPS) / 10_000;
    Micros(i64::try_from(v).unwrap_or(0))
}

/// Whether a slot can serve SDK sessions now.
pub fn deliverable_sdk_slot(s: &entity::ad_slot::Model) -> bool {
    s.archived_at.is_none()
        && matches!(
            SlotType::parse(&s.r#type),
            Some(SlotType::Offerwall | SlotType::OfferApi)
        )
        && matches!(
            SlotState::parse(&s.state),
            Some(SlotState::Ready | SlotState::Active)
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publisher_share_is_seventy_percent_rounded_down() {
        assert_eq!(publisher_share(Micros(1_500_000)), Micros(1_050_000));
        assert_eq!(publisher_share(Micros(1)), Micros(0));
        assert_eq!(
            publisher_share(Micros(i64::MAX)),
            Micros(6_456_360_425_798_343_064)
        );
    }
}
