//! Which dashboard writes a member's team role reaches (issue 54, part 3): the server-function
//! half of the role table in `docs/accounts.md` (the API's half is the route's area,
//! `server::route_facts`). [`check`] runs in `web::writer` for every form post, by the server
//! function's endpoint: one named below needs its area; one not named is open to owners and
//! admins only, so a new server function is denied to the narrower roles until it is named.
//! Reads are open to every role; the account's own cards (`web::own_writer`: password, second
//! factor, sessions, its own API keys) to every person, their rules in the domain.

#[cfg(feature = "ssr")]
use crate::domain::Principal;
#[cfg(feature = "ssr")]
use crate::error::AppError;
use crate::model::api_key::KeyArea;

/// The endpoints of the server functions of `writer` that roles other than owner and admin
/// may reach, with their area (`KeyArea`, as the API routes of the same writes).
pub const FN_AREAS: &[(&str, KeyArea)] = &[
    // Publisher placements, slots, their keys, blocking.
    ("publisher_create_placement", KeyArea::Placements),
    ("publisher_update_placement", KeyArea::Placements),
    ("publisher_delete_placement", KeyArea::Placements),
    ("publisher_request_review", KeyArea::Placements),
    ("publisher_issue_app_key", KeyArea::Placements),
    ("publisher_create_slot", KeyArea::Placements),
    ("publisher_update_slot", KeyArea::Placements),
    ("publisher_archive_slot", KeyArea::Placements),
    ("publisher_slot_state", KeyArea::Placements),
    ("publisher_slot_wall", KeyArea::Placements),
    ("publisher_static_key", KeyArea::Placements),
    ("publisher_wall_preview", KeyArea::Placements),
    ("publisher_add_blacklist", KeyArea::Placements),
    ("publisher_remove_blacklist", KeyArea::Placements),
    ("publisher_ban_user", KeyArea::Placements),
    ("publisher_update_ban", KeyArea::Placements),
    // Publisher reward callbacks and signed user identity.
    ("publisher_configure_callback", KeyArea::Callbacks),
    ("publisher_promote_callback", KeyArea::Callbacks),
    ("publisher_rotate_callback", KeyArea::Callbacks),
    ("publisher_test_callback", KeyArea::Callbacks),
    ("publisher_callback_remove", KeyArea::Callbacks),
    ("publisher_delivery_replay", KeyArea::Callbacks),
    ("publisher_receiver_resume", KeyArea::Callbacks),
    ("publisher_user_identity_required", KeyArea::Callbacks),
    ("publisher_user_identity_secret", KeyArea::Callbacks),
    ("publisher_support_update", KeyArea::Support),
    // Publisher money.
    ("request_payout", KeyArea::Earnings),
    ("cancel_payout", KeyArea::Earnings),
    ("save_payout_profile", KeyArea::Earnings),
    // Advertiser tracking.
    ("campaigns_issue_credential", KeyArea::Tracking),
    ("campaigns_ip_allowlist", KeyArea::Tracking),
    ("campaigns_s2s_test", KeyArea::Tracking),
    ("campaigns_web_pixel", KeyArea::Tracking),
    ("survey_issue_key", KeyArea::Tracking),
    // Advertiser conversions.
    ("reconciliation_create", KeyArea::Conversions),
    ("reconciliation_apply", KeyArea::Conversions),
    // Advertiser wallet.
    ("billing_save_profile", KeyArea::Billing),
    ("billing_request_wire", KeyArea::Billing),
    ("billing_open_order", KeyArea::Billing),
    ("billing_capture", KeyArea::Billing),
];

/// The area a server function's endpoint writes in, if it is named.
pub fn area_of(endpoint: &str) -> Option<KeyArea> {
    FN_AREAS
        .iter()
        .find(|(e, _)| *e == endpoint)
        .map(|(_, a)| *a)
}

/// Refuses a form post that the caller's team role does not reach (`403 insufficient_role`).
#[cfg(feature = "ssr")]
pub fn check(p: &Principal) -> Result<(), AppError> {
    use crate::domain::accounts::teams;
    if p.team_role.manages_team() {
        return Ok(());
    }
    let endpoint = leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| parts.uri.path().strip_prefix("/fn/").map(str::to_owned))
        .unwrap_or_default();
    match area_of(&endpoint) {
        Some(area) => teams::require_write(p, area),
        None => Err(teams::refusal(p, "do this")),
    }
}
