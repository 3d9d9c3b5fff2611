//! Delivery to end users: SDK sessions, offer lists, impressions and launches, reward status
//! and SDK support cases, the web pixel, the hosted wall and the static feed; the
//! publisher's offers report. (Advertisers' conversion reports are `domain::conversions`.) Every surface that shows offers asks [`offers`] so that the
//! SDK list, a launch and (later) the static feed agree on eligibility.

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

use crate::model::publisher::{SlotState, SlotType};
use chrono::Duration;

/// Lifetime of an SDK session token.
pub const SESSION_TTL: Duration = Duration::minutes(15);
/// Lifetime of an impression receipt (a launch needs an unexpired one).
pub const IMPRESSION_TTL: Duration = Duration::minutes(10);
/// Lifetime of a signed launch URL.
pub const LAUNCH_TTL: Duration = Duration::minutes(5);

/// Whether a slot can serve SDK sessions now.
pub fn deliverable_sdk_slot(s: &entity::ad_slot::Model) -> bool {
    s.archived_at.is_none()
        && matches!(
            SlotType::parse(&s.r#type),
            Some(SlotType::Offerwall | SlotType::OfferApi)
        )
        && matches!(s.state, SlotState::Ready | SlotState::Active)
}
