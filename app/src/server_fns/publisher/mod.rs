//! Publisher console and placement review from the dashboard. Form posts arrive
//! form-urlencoded, so numbers, enums, lists and checkboxes come in as text and are parsed
//! here into the model's input types; every rule stays in `domain::publisher`.
//!
//! Secrets are shown once. A script caller gets them in the server function's answer; a
//! plain form post is redirected back to the form by Leptos and would lose the answer, so
//! for those the secret is sealed into the session as a flash that the page reads (and
//! removes) while it renders. Secrets never travel in a URL.

pub mod deliveries;
pub mod gallery;
pub mod reports;
pub mod support_cases;
pub mod wall;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::publisher::*;

pub use crate::model::OneTimeSecret;

/// What a plain form post left for the page it returns to.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Flash {
    pub secret: Option<OneTimeSecret>,
    pub callback_test: Option<CallbackTest>,
}

/// `"1.25"` USD → `1_250_000` micros. At most six decimals, never negative.
pub fn usd_to_micros(raw: &str) -> Option<i64> {
    let s = raw.trim().trim_start_matches('$').replace(['_', ','], "");
    let (int, frac) = s.split_once('.').unwrap_or((s.as_str(), ""));
    if (int.is_empty() && frac.is_empty())
        || frac.len() > 6
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let frac: i64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<6}").parse().ok()?
    };
    whole.checked_mul(1_000_000)?.checked_add(frac)
}

#[cfg(feature = "ssr")]
pub(crate) mod support {
    use crate::error::FieldErrors;

    pub use super::super::web::{reader, writer};

    /// Session slot of a callback test result left for a plain form post.
    pub const CALLBACK_TEST: &str = "flash_callback_test";

    /// Trimmed text; empty means "not given".
    pub fn text(v: Option<String>) -> Option<String> {
        v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
    }

    /// An optional whole number from a form field.
    pub fn number<T: std::str::FromStr>(
        errs: &mut FieldErrors,
        field: &str,
        v: Option<String>,
    ) -> Option<T> {
        let raw = text(v)?.replace(['_', ' '], "");
        let parsed = raw.parse::<T>();
        errs.check(
            field,
            parsed.map_err(|_| "must be a whole number".to_owned()),
        )
    }

    /// An optional enum value from a select.
    pub fn choice<T>(
        errs: &mut FieldErrors,
        field: &str,
        v: Option<String>,
        parse: fn(&str) -> Option<T>,
        expected: &str,
    ) -> Option<T> {
        let raw = text(v)?;
        errs.check(
            field,
            parse(&raw).ok_or_else(|| format!("must be one of {expected}")),
        )
    }

    /// A comma-separated list; an empty field is an empty list.
    pub fn list(v: Option<String>) -> Option<Vec<String>> {
        v.map(|s| {
            s.split(',')
                .map(|e| e.trim().to_owned())
                .filter(|e| !e.is_empty())
                .collect()
        })
    }
}

// ---- placements -------------------------------------------------------------------------

#[server(prefix = "/fn", endpoint = "publisher_placements")]
pub async fn list_placements(
    search: Option<String>,
    status: Option<String>,
) -> Result<PlacementList, AppError> {
    super::web::run(async move {
        let (ctx, p) = support::reader().await?;
        crate::domain::publisher::placements::list(&ctx, &p, search.as_deref(), status.as_deref())
            .await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_placement")]
pub async fn get_placement(placement_id: String) -> Result<Placement, AppError> {
    super::web::run(async move {
        let (ctx, p) = support::reader().await?;
        crate::domain::publisher::placements::get(&ctx, &p, &placement_id).await
    })
    .await
}

/// Creates a placement and opens its page.
#[server(prefix = "/fn", endpoint = "publisher_create_placement")]
pub async fn add_placement(
    placement_type: Option<String>,
    name: Option<String>,
    platform_identity: Option<String>,
    store_url: Option<String>,
    minimum_sdk_version: Option<String>,
    require_consent: Option<String>,
    csrf: String,
) -> Result<Placement, AppError> {
    super::web::run(async move {
        use support::*;
        let (ctx, _, p) = writer(&csrf).await?;
        // An unknown type is reported by the domain as a missing one, with the choices.
        let input = CreatePlacement {
            placement_type: text(placement_type).and_then(|t| PlacementType::parse(&t)),
            name,
            platform_identity,
            store_url: text(store_url),
            minimum_sdk_version: text(minimum_sdk_version),
            recommended_sdk_version: None,
            require_consent: Some(require_consent.is_some()),
        };
        let created = crate::domain::publisher::placements::create(&ctx, &p, input).await?;
        leptos_axum::redirect(&format!("/publisher/placements/{}", created.placement_id));
        Ok(created)
    })
    .await
}

/// The edit form always carries the checkbox, so its absence means "unchecked".
#[server(prefix = "/fn", endpoint = "publisher_update_placement")]
pub async fn update_placement(
    placement_id: String,
    name: Option<String>,
    store_url: Option<String>,
    require_consent: Option<String>,
    csrf: String,
) -> Result<Placement, AppError> {
    super::web::run(async move {
        use support::*;
        let (ctx, _, p) = writer(&csrf).await?;
        let input = PatchPlacement {
            name,
            store_url: Some(text(store_url)),
            require_consent: Some(require_consent.is_some()),
            ..PatchPlacement::default()
        };
        crate::domain::publisher::placements::patch(&ctx, &p, &placement_id, input).await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_request_review")]
pub async fn request_review(placement_id: String, csrf: String) -> Result<Placement, AppError> {
    super::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
        crate::domain::publisher::placements::request_review(&ctx, &p, &placement_id).await
    })
    .await
}

/// Archives the placement and returns to the list (409 with the reasons when refused).
#[server(prefix = "/fn", endpoint = "publisher_delete_placement")]
pub async fn delete_placement(placement_id: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
        crate::domain::publisher::placements::delete(&ctx, &p, &placement_id).await?;
        leptos_axum::redirect("/publisher/placements");
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_issue_app_key")]
pub async fn issue_app_key(placement_id: String, csrf: String) -> Result<AppKeyIssued, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let issued = crate::domain::publisher::app_keys::issue(&ctx, &p, &placement_id).await?;
        super::flash::put_secret(
            &ctx,
            &session,
            &placement_id,
            "Survey app key",
            &issued.app_key,
        )
        .await?;
        Ok(issued)
    })
    .await
}

/// The flash a plain form post left for this page (`scope`: placement or slot id).
#[server(prefix = "/fn", endpoint = "publisher_take_flash")]
pub async fn take_flash(scope: String) -> Result<Flash, AppError> {
    super::web::run(async move {
        let ctx = super::web::ctx()?;
        let session = super::web::session().await?;
        Ok(Flash {
            secret: super::flash::take_secret(&ctx, &session, &scope).await?,
            callback_test: super::flash::take(&session, support::CALLBACK_TEST, &scope).await?,
        })
    })
    .await
}

// ---- reward callback --------------------------------------------------------------------

#[server(prefix = "/fn", endpoint = "publisher_configure_callback")]
pub async fn configure_callback(
    placement_id: String,
    url: String,
    csrf: String,
) -> Result<CallbackSettings, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let settings =
            crate::domain::publisher::callbacks::configure(&ctx, &p, &placement_id, &url).await?;
        if let Some(secret) = &settings.secret {
            let label = format!("Callback signing secret (key {})", settings.key_id);
            super::flash::put_secret(&ctx, &session, &placement_id, &label, secret).await?;
        }
        Ok(settings)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_rotate_callback")]
pub async fn rotate_callback(
    placement_id: String,
    csrf: String,
) -> Result<CallbackKeyIssued, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let issued = crate::domain::publisher::callbacks::rotate(&ctx, &p, &placement_id).await?;
        let label = format!("Next callback signing secret (key {})", issued.key_id);
        super::flash::put_secret(&ctx, &session, &placement_id, &label, &issued.secret).await?;
        Ok(issued)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_promote_callback")]
pub async fn promote_callback(
    placement_id: String,
    csrf: String,
) -> Result<CallbackKeyRef, AppError> {
    super::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
        crate::domain::publisher::callbacks::promote(&ctx, &p, &placement_id).await
    })
    .await
}

/// Builds a signed test request; nothing is sent.
#[server(prefix = "/fn", endpoint = "publisher_test_callback")]
pub async fn test_callback(placement_id: String, csrf: String) -> Result<CallbackTest, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let test = crate::domain::publisher::callbacks::test(&ctx, &p, &placement_id).await?;
        super::flash::put(&session, support::CALLBACK_TEST, &placement_id, &test).await?;
        Ok(test)
    })
    .await
}

// ---- ad slots ---------------------------------------------------------------------------

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
    super::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
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
    super::web::run(async move {
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
    super::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
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
    super::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
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
    super::web::run(async move {
        let micros = usd_to_micros(&usd)
            .ok_or_else(|| AppError::field("usd", "must be an amount in dollars such as 1.50"))?;
        let (ctx, p) = support::reader().await?;
        crate::domain::publisher::slots::reward_preview(&ctx, &p, &placement_id, &slot_id, micros)
            .await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_snippets")]
pub async fn slot_snippets(placement_id: String, slot_id: String) -> Result<Snippets, AppError> {
    super::web::run(async move {
        let (ctx, p) = support::reader().await?;
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
    super::web::run(async move {
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
        super::flash::put_secret(&ctx, &session, &slot_id, "Static feed key", &issued.token)
            .await?;
        Ok(issued)
    })
    .await
}

// ---- administrator review ---------------------------------------------------------------

/// Placements in `status` (default PENDING_REVIEW), oldest first.
#[server(prefix = "/fn", endpoint = "admin_placement_queue")]
pub async fn placement_queue(status: Option<String>) -> Result<PlacementList, AppError> {
    super::web::run(async move {
        let (ctx, p) = support::reader().await?;
        crate::domain::publisher::review::queue(&ctx, &p, status.as_deref()).await
    })
    .await
}

/// Verify or reject: the submit button carries `decision`.
#[server(prefix = "/fn", endpoint = "admin_review_placement")]
pub async fn review_placement(
    placement_id: String,
    decision: String,
    note: Option<String>,
    csrf: String,
) -> Result<Placement, AppError> {
    super::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
        let decision = ReviewDecision::parse(decision.trim())
            .ok_or_else(|| AppError::field("decision", "must be VERIFIED or REJECTED"))?;
        let req = ReviewRequest { decision, note };
        crate::domain::publisher::review::review(&ctx, &p, &placement_id, req).await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "admin_release_placement")]
pub async fn release_placement(placement_id: String, csrf: String) -> Result<Placement, AppError> {
    super::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
        crate::domain::publisher::review::release(&ctx, &p, &placement_id).await
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::usd_to_micros;

    #[test]
    fn dollars_become_micros() {
        assert_eq!(usd_to_micros("1"), Some(1_000_000));
        assert_eq!(usd_to_micros(" 1.5 "), Some(1_500_000));
        assert_eq!(usd_to_micros("$0.000001"), Some(1));
        assert_eq!(usd_to_micros(".25"), Some(250_000));
        for bad in ["", ".", "-1", "1.0000001", "abc", "1e3"] {
            assert_eq!(usd_to_micros(bad), None, "{bad}");
        }
    }
}
