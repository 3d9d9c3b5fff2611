//! A campaign's conversion caps and daily budget, as settlement and launches check them
//! against the database (the offer list checks the snapshot's counts instead).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect,
};

use crate::domain::campaigns::inventory::LiveOffer;
use crate::error::AppError;
use crate::model::money::Micros;
use entity::conversion;

/// Whether the campaign's total or daily conversion cap is used up, or its daily budget
/// cannot take `next_payout_micros` more (0 when listing: is anything left today?).
pub async fn caps_reached<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    offer: &LiveOffer,
    next_payout_micros: Micros,
) -> Result<bool, AppError> {
    let caps = &offer.config.caps;
    if caps.total_conversions.is_none()
        && caps.daily_conversions.is_none()
        && caps.daily_budget_micros.is_none()
    {
        return Ok(false);
    }
    let day_start = now
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map(|d| d.and_utc())
        .unwrap_or(now);
    // Two aggregates, however many conversions the campaign has.
    let approved = || {
        conversion::Entity::find()
            .filter(conversion::Column::CampaignId.eq(offer.campaign.id.clone()))
            .filter(conversion::Column::Settlement.eq("APPROVED"))
    };
    let total = i64::try_from(approved().count(db).await?).unwrap_or(i64::MAX);
    let (today, spent_today): (i64, i64) = approved()
        .select_only()
        .column_as(Expr::cust("COUNT(*)"), "n")
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(payout_micros), 0) AS BIGINT)"),
            "s",
        )
        .filter(conversion::Column::CreatedAt.gte(day_start))
        .into_tuple()
        .one(db)
        .await?
        .unwrap_or((0, 0));
    Ok(caps.total_conversions.is_some_and(|c| total >= c)
        || caps.daily_conversions.is_some_and(|c| today >= c)
        || caps
            .daily_budget_micros
            .is_some_and(|c| spent_today + next_payout_micros.get().max(1) > c.get()))
}
