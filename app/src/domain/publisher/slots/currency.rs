//! A slot's reward currency: read from the stored row and applied to a USD amount. Delivery,
//! settlement and callbacks price rewards with the same two functions, so they live apart
//! from the console rules.

use crate::domain::publisher::owned_slot;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::rules::{convert, format_minor};
use crate::model::publisher::*;
use entity::ad_slot;

/// Converts an amount with the slot's currency.
pub async fn reward_preview(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
    usd_micros: Micros,
) -> Result<RewardPreview, AppError> {
    if usd_micros < Micros(0) {
        return Err(AppError::field("usdMicros", "must not be negative"));
    }
    let (_, s) = owned_slot(&ctx.db, actor, placement_id, slot_id).await?;
    preview(&currency_of(&s), usd_micros)
}

/// The conversion itself (also used by delivery to price offers).
pub fn preview(c: &Currency, usd_micros: Micros) -> Result<RewardPreview, AppError> {
    let minor = convert(
        usd_micros,
        c.rate_numerator_minor_units,
        c.rate_denominator_usd_micros.get(),
        c.rounding,
    )
    .ok_or_else(|| AppError::field("usdMicros", "is too large to convert"))?;
    Ok(RewardPreview {
        usd_micros,
        minor_units: minor,
        currency: c.name.clone(),
        decimals: c.decimals,
        display: format_minor(minor, c.decimals),
        meets_minimum_payout: minor >= c.minimum_payout_minor_units,
    })
}

/// The currency of a stored slot.
pub fn currency_of(s: &ad_slot::Model) -> Currency {
    Currency {
        name: s.currency_name.clone(),
        decimals: s.currency_decimals,
        rate_numerator_minor_units: s.rate_numerator_minor_units,
        rate_denominator_usd_micros: Micros(s.rate_denominator_usd_micros),
        minimum_payout_minor_units: s.minimum_payout_minor_units,
        rounding: Rounding::parse(&s.rounding).unwrap_or(Rounding::Down),
    }
}
