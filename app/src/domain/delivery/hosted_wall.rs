//! The hosted offerwall's rules: its address, which slot it shows, and the keys that make
//! its impressions, launches and support cases safe to repeat (a reload or a double tap
//! never records twice). The pages themselves are rendered by the server crate
//! (`server::hosted_wall`) from the same domain calls as the JSON SDK routes.

use std::collections::HashMap;

use crate::domain::Ctx;
use crate::domain::idempotency::IdempotencyKey;
use crate::domain::principal::SdkActor;
use crate::error::AppError;
use crate::model::delivery::RewardStatus;
use crate::model::publisher::{AdSlot, SlotType};
use entity::placement;

use super::deliverable_sdk_slot;
use super::offers::session_slot;

/// The wall's address for a session token. The token is in the query (the request log
/// records paths only) and the pages send `Referrer-Policy: no-referrer`. The session's
/// language (a checked tag: letters, digits, `-`, `_`) rides along, so the web SDK can
/// name its frame in it.
pub fn url(base_url: &str, token: &str, lang: Option<&str>) -> String {
    let base = format!("{}/offerwall?token={token}", base_url.trim_end_matches('/'));
    match lang {
        Some(l) => format!("{base}&lang={l}"),
        None => base,
    }
}

/// The slot the wall shows: the one asked for, the session's own, or the placement's
/// first deliverable OFFERWALL slot.
pub async fn slot(
    ctx: &Ctx,
    s: &SdkActor,
    asked: Option<&str>,
) -> Result<(placement::Model, AdSlot), AppError> {
    let asked = asked.map(str::trim).filter(|a| !a.is_empty());
    if asked.is_some() || s.ad_slot_id.is_some() {
        return session_slot(ctx, s, asked).await;
    }
    let config = ctx
        .delivery_configs
        .get(&ctx.db, ctx.now(), &s.placement_id)
        .await?
        .ok_or_else(|| AppError::not_found("placement"))?;
    let mut walls: Vec<_> = config
        .slots
        .iter()
        .filter(|x| {
            deliverable_sdk_slot(x) && SlotType::parse(&x.r#type) == Some(SlotType::Offerwall)
        })
        .collect();
    walls.sort_by(|a, b| a.created_at.cmp(&b.created_at));
    let first = walls
        .first()
        .map(|x| x.id.clone())
        .ok_or_else(|| AppError::not_found("offerwall slot"))?;
    session_slot(ctx, s, Some(&first)).await
}

/// Window of the wall's repeat keys: a reload within it replays, a later visit records anew
/// (well inside the ten-minute impression and five-minute launch lifetimes).
const KEY_WINDOW_SECS: i64 = 120;

fn window(ctx: &Ctx) -> i64 {
    ctx.now().timestamp() / KEY_WINDOW_SECS
}

/// Idempotency-Key of the impression recorded when the wall shows an offer's details.
pub fn impression_key(ctx: &Ctx, s: &SdkActor, offer_id: &str) -> IdempotencyKey {
    IdempotencyKey::derived(format!("wall-imp-{}-{offer_id}-{}", s.id, window(ctx)))
}

/// Idempotency-Key of the launch from an impression (a double tap launches once).
pub fn launch_key(ctx: &Ctx, impression_id: &str) -> IdempotencyKey {
    IdempotencyKey::derived(format!("wall-launch-{impression_id}-{}", window(ctx)))
}

/// The user's progress per offer, for badges: EARNED when any goal was approved, then
/// PENDING, then REVERSED or REJECTED.
pub fn progress_by_offer(r: &RewardStatus) -> HashMap<String, &'static str> {
    let rank = |s: &str| match s {
        "EARNED" => 4,
        "PENDING" => 3,
        "REVERSED" => 2,
        "REJECTED" => 1,
        _ => 0,
    };
    let mut out: HashMap<String, &'static str> = HashMap::new();
    for i in &r.items {
        let status: &'static str = match i.status.as_str() {
            "EARNED" => "EARNED",
            "PENDING" => "PENDING",
            "REVERSED" => "REVERSED",
            "REJECTED" => "REJECTED",
            _ => continue,
        };
        let e = out.entry(i.offer_id.clone()).or_insert(status);
        if rank(status) > rank(e) {
            *e = status;
        }
    }
    out
}

/// What the wall's browser says about the device, for the offer list's device targeting:
/// (deviceType, osVersion). Only the common, unambiguous forms are read; anything else stays
/// unknown, which never hides an offer. Desktop is claimed only for web sessions.
pub fn device_from_user_agent(ua: &str, platform: &str) -> (Option<String>, Option<String>) {
    let version_after = |marker: &str, sep: char| -> Option<String> {
        let rest = &ua[ua.find(marker)? + marker.len()..];
        let v: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == sep)
            .collect::<String>()
            .replace(sep, ".");
        let v = v.trim_matches('.').to_owned();
        crate::model::campaign::device_targeting::Version::parse(&v)
            .ok()
            .map(|_| v)
    };
    if ua.contains("iPad") {
        return (Some("tablet".into()), version_after("CPU OS ", '_'));
    }
    if ua.contains("iPhone") {
        return (Some("phone".into()), version_after("iPhone OS ", '_'));
    }
    if ua.contains("Android") {
        // Android phones send "Mobile"; tablets leave it out.
        let kind = if ua.contains("Mobile") {
            "phone"
        } else {
            "tablet"
        };
        return (Some(kind.into()), version_after("Android ", '.'));
    }
    let desktop = ["Windows NT", "Macintosh", "X11; Linux", "CrOS"]
        .iter()
        .any(|m| ua.contains(m));
    if desktop && platform == "web" {
        return (Some("desktop".into()), None);
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_carries_the_token_in_the_query() {
        assert_eq!(
            url("https://ads.example.com/", "sdk_abc", None),
            "https://ads.example.com/offerwall?token=sdk_abc"
        );
        assert_eq!(
            url("https://ads.example.com", "sdk_abc", Some("pt-BR")),
            "https://ads.example.com/offerwall?token=sdk_abc&lang=pt-BR"
        );
    }

    #[test]
    fn user_agents_name_device_and_os_version() {
        let iphone =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15";
        assert_eq!(
            device_from_user_agent(iphone, "ios"),
            (Some("phone".into()), Some("17.4.1".into()))
        );
        let ipad = "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15";
        assert_eq!(
            device_from_user_agent(ipad, "ios"),
            (Some("tablet".into()), Some("16.6".into()))
        );
        let pixel =
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Mobile Safari/537.36";
        assert_eq!(
            device_from_user_agent(pixel, "android"),
            (Some("phone".into()), Some("14".into()))
        );
        let tab = "Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 Safari/537.36";
        assert_eq!(
            device_from_user_agent(tab, "android").0.as_deref(),
            Some("tablet")
        );
        let mac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15";
        assert_eq!(
            device_from_user_agent(mac, "web").0.as_deref(),
            Some("desktop")
        );
        assert_eq!(device_from_user_agent(mac, "android"), (None, None));
        assert_eq!(device_from_user_agent("curl/8.5", "web"), (None, None));
    }
}
