//! The hosted offerwall of an OFFERWALL slot from the slot page: its look (`design`) and
//! what it shows (`exposure`), and a preview that opens the wall for a development session
//! of a test user, so a publisher sees what their users will see before writing any code.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::AdSlot;

#[cfg(feature = "ssr")]
use crate::server_fns::publisher::support;

/// Saves the wall's design and exposure (an empty text field removes its setting).
#[server(prefix = "/fn", endpoint = "publisher_slot_wall")]
#[allow(clippy::too_many_arguments)]
pub async fn save_wall_settings(
    placement_id: String,
    slot_id: String,
    accent_color: Option<String>,
    title: Option<String>,
    logo_url: Option<String>,
    dark_mode: Option<String>,
    max_offers: Option<String>,
    show_reward_status: Option<String>,
    show_support: Option<String>,
    csrf: String,
) -> Result<AdSlot, AppError> {
    crate::server_fns::web::run(async move {
        use serde_json::{Value, json};
        use support::text;
        let (ctx, _, p) = support::writer(&csrf).await?;
        let mut errs = crate::error::FieldErrors::new();
        let max_offers: Option<u32> = support::number(&mut errs, "exposure.maxOffers", max_offers);
        errs.finish()?;
        let or_null = |v: Option<String>| text(v).map_or(Value::Null, Value::String);
        let input = crate::model::publisher::SlotInput {
            design: Some(json!({
                "accentColor": or_null(accent_color),
                "title": or_null(title),
                "logoUrl": or_null(logo_url),
                "darkMode": dark_mode.is_some(),
            })),
            exposure: Some(json!({
                "maxOffers": max_offers.map_or(Value::Null, Value::from),
                "showRewardStatus": show_reward_status.is_some(),
                "showSupport": show_support.is_some(),
            })),
            ..Default::default()
        };
        crate::domain::publisher::slots::patch(&ctx, &p, &placement_id, &slot_id, input).await
    })
    .await
}

/// Opens the hosted wall for a development session of the test user `dashboard-preview`
/// (the browser is redirected to it). Needs a verified placement, like any SDK session.
#[server(prefix = "/fn", endpoint = "publisher_wall_preview")]
pub async fn preview_wall(
    placement_id: String,
    slot_id: String,
    csrf: String,
) -> Result<String, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        // Ownership first: session creation itself is an open SDK route.
        let placement = crate::domain::publisher::placements::get(&ctx, &p, &placement_id).await?;
        let session = crate::domain::delivery::sessions::create(
            &ctx,
            crate::model::delivery::CreateSession {
                placement_id: Some(placement.placement_id.clone()),
                ad_slot_id: Some(slot_id),
                external_user_id: Some("dashboard-preview".to_owned()),
                platform: Some(placement.platform.clone()),
                sdk_version: Some(placement.minimum_sdk_version.clone()),
                package_bundle_or_domain: Some(placement.platform_identity.clone()),
                environment: Some("development".to_owned()),
                consent: Some("GRANTED".to_owned()),
                ..Default::default()
            },
        )
        .await?;
        let url = session.hosted_offerwall_url.ok_or_else(|| {
            AppError::conflict("this slot has no hosted offerwall (OFFERWALL slots only)")
        })?;
        leptos_axum::redirect(&url);
        Ok(url)
    })
    .await
}
