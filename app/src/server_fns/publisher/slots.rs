//! Ad slots from the dashboard: the editor form (every section sent at once, lists
//! comma-separated, amounts in dollars), state changes, the reward preview, snippets and
//! static feed keys.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::*;

#[cfg(feature = "ssr")]
use super::support;
#[cfg(feature = "ssr")]
use crate::model::money::Micros;

#[cfg(feature = "ssr")]
fn currency_input(
    errs: &mut crate::error::FieldErrors,
    name: Option<String>,
    decimals: Option<String>,
    rate_numerator: Option<String>,
    rate_denominator: Option<String>,
    minimum_payout: Option<String>,
    rounding: Option<String>,
) -> CurrencyInput {
    use support::*;
    CurrencyInput {
        name: text(name),
        decimals: number(errs, "currency.decimals", decimals),
        rate_numerator_minor_units: number(
            errs,
            "currency.rateNumeratorMinorUnits",
            rate_numerator,
        ),
        rate_denominator_usd_micros: number(
            errs,
            "currency.rateDenominatorUsdMicros",
            rate_denominator,
        ),
        minimum_payout_minor_units: number(
            errs,
            "currency.minimumPayoutMinorUnits",
            minimum_payout,
        ),
        rounding: choice(
            errs,
            "currency.rounding",
            rounding,
            Rounding::parse,
            "DOWN, NEAREST, UP",
        ),
    }
}

#[server(prefix = "/fn", endpoint = "publisher_create_slot")]
#[allow(clippy::too_many_arguments)]
pub async fn create_slot(
    placement_id: String,
    name: Option<String>,
    slot_type: Option<String>,
    currency_name: Option<String>,
    decimals: Option<String>,
    rate_numerator: Option<String>,
    rate_denominator: Option<String>,
    rounding: Option<String>,
    csrf: String,
) -> Result<AdSlot, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let mut errs = crate::error::FieldErrors::new();
        let currency = currency_input(
            &mut errs,
            currency_name,
            decimals,
            rate_numerator,
            rate_denominator,
            None,
            rounding,
        );
        errs.finish()?;
        let input = SlotInput {
            name,
            slot_type: support::text(slot_type).map(serde_json::Value::String),
            currency: Some(currency),
            ..SlotInput::default()
        };
        crate::domain::publisher::slots::create(&ctx, &p, &placement_id, input).await
    })
    .await
}

/// Saves the whole editor form: every section is sent, lists are comma-separated.
#[server(prefix = "/fn", endpoint = "publisher_update_slot")]
#[allow(clippy::too_many_arguments)]
pub async fn update_slot(
    placement_id: String,
    slot_id: String,
    name: Option<String>,
    currency_name: Option<String>,
    decimals: Option<String>,
    rate_numerator: Option<String>,
    rate_denominator: Option<String>,
    minimum_payout: Option<String>,
    rounding: Option<String>,
    allowed_countries: Option<String>,
    blocked_countries: Option<String>,
    blocked_campaign_ids: Option<String>,
    excluded_task_types: Option<String>,
    excluded_categories: Option<String>,
    sort: Option<String>,
    minimum_payout_micros: Option<String>,
    csrf: String,
) -> Result<AdSlot, AppError> {
    crate::server_fns::web::run(async move {
        use support::*;
        let (ctx, _, p) = writer(&csrf).await?;
        let mut errs = crate::error::FieldErrors::new();
        let currency = currency_input(
            &mut errs,
            currency_name,
            decimals,
            rate_numerator,
            rate_denominator,
            minimum_payout,
            rounding,
        );
        let offer_delivery = OfferDeliveryInput {
            sort: choice(
                &mut errs,
                "offerDelivery.sort",
                sort,
                OfferSort::parse,
                "PAYOUT, CONVERSION_RATE, EPC, ECPM",
            ),
            minimum_payout_micros: number(
                &mut errs,
                "offerDelivery.minimumPayoutMicros",
                minimum_payout_micros,
            ),
        };
        errs.finish()?;
        let input = SlotInput {
            name,
            currency: Some(currency),
            policy: Some(PolicyInput {
                allowed_countries: list(allowed_countries),
                blocked_countries: list(blocked_countries),
                blocked_campaign_ids: list(blocked_campaign_ids),
                excluded_campaign_task_types: list(excluded_task_types),
                excluded_campaign_categories: list(excluded_categories),
            }),
            offer_delivery: Some(offer_delivery),
            ..SlotInput::default()
        };
        crate::domain::publisher::slots::patch(&ctx, &p, &placement_id, &slot_id, input).await
    })
    .await
}

/// Activate (`ACTIVE`) or pause (`DISABLED`) a slot.
#[server(prefix = "/fn", endpoint = "publisher_slot_state")]
pub async fn set_slot_state(
    placement_id: String,
    slot_id: String,
    state: String,
    csrf: String,
) -> Result<AdSlot, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let to = SlotState::parse(state.trim())
            .ok_or_else(|| AppError::field("state", "must be ACTIVE or DISABLED"))?;
        crate::domain::publisher::slots::set_state(&ctx, &p, &placement_id, &slot_id, to).await
    })
    .await
}

/// Archives a slot that is not active and returns to its placement.
#[server(prefix = "/fn", endpoint = "publisher_archive_slot")]
pub async fn archive_slot(
    placement_id: String,
    slot_id: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::publisher::retire::archive_slot(&ctx, &p, &placement_id, &slot_id).await?;
        leptos_axum::redirect(&format!("/publisher/placements/{placement_id}"));
        Ok(())
    })
    .await
}

/// Converts `usd` (dollars, e.g. `1.50`) with the slot's stored currency.
#[server(prefix = "/fn", endpoint = "publisher_reward_preview")]
pub async fn preview_reward(
    placement_id: String,
    slot_id: String,
    usd: String,
) -> Result<RewardPreview, AppError> {
    crate::server_fns::web::run(async move {
        let micros = super::usd_to_micros(&usd)
            .ok_or_else(|| AppError::field("usd", "must be an amount in dollars such as 1.50"))?;
        let (ctx, p) = support::reader().await?;
        crate::domain::publisher::slots::reward_preview(
            &ctx,
            &p,
            &placement_id,
            &slot_id,
            Micros(micros),
        )
        .await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_snippets")]
pub async fn slot_snippets(placement_id: String, slot_id: String) -> Result<Snippets, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::publisher::slots::snippets(&ctx, &p, &placement_id, &slot_id).await
    })
    .await
}

/// Issues a static feed key expiring at the start (UTC) of `expires_on` (`YYYY-MM-DD`).
#[server(prefix = "/fn", endpoint = "publisher_static_key")]
pub async fn issue_static_key(
    placement_id: String,
    slot_id: String,
    expires_on: String,
    reason: String,
    csrf: String,
) -> Result<StaticKeyIssued, AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let day = chrono::NaiveDate::parse_from_str(expires_on.trim(), "%Y-%m-%d")
            .map_err(|_| AppError::field("expiresAt", "must be a date such as 2027-01-31"))?;
        let expires_at = day
            .and_hms_opt(0, 0, 0)
            .ok_or_else(|| AppError::field("expiresAt", "must be a valid date"))?
            .and_utc();
        let req = StaticKeyRequest { expires_at, reason };
        let issued =
            crate::domain::publisher::static_keys::issue(&ctx, &p, &placement_id, &slot_id, req)
                .await?;
        crate::server_fns::flash::put_secret(
            &ctx,
            &session,
            &slot_id,
            "Static feed key",
            &issued.token,
        )
        .await?;
        Ok(issued)
    })
    .await
}
