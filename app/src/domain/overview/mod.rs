//! The figures a dashboard home page leads with (`model::overview`): money and conversions
//! by day over the last 30 days and what needs attention, for a publisher ([`publisher`])
//! or an advertiser ([`advertiser`]). A handful of aggregate reads per call, never one per
//! campaign or placement.
//!
//! Money follows the offers report's rule: a conversion that was ever approved counts on the
//! day it was reported, and a reversal subtracts again on the day it arrived. Survey
//! completes are conversions too (goal `survey_complete`), so both kinds are in the figures.

pub mod advertiser;
pub mod publisher;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::domain::conversions::reported::Settlement;
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::overview::OverviewDay;
use entity::conversion;

/// Days on the home page's chart (today included).
pub const DAYS: i64 = 30;

/// Whose conversions: a publisher's placements or an advertiser's campaigns.
pub(crate) enum Side<'a> {
    Placements(&'a [String]),
    Advertiser(&'a str),
}

/// Every day of the last [`DAYS`] up to `today`, oldest first, with conversions, reversals
/// and money (the publisher's earnings or the advertiser's payouts).
pub(crate) async fn days<C: ConnectionTrait>(
    db: &C,
    side: Side<'_>,
    today: NaiveDate,
) -> Result<Vec<OverviewDay>, AppError> {
    let from = today - Duration::days(DAYS - 1);
    let mut days: Vec<OverviewDay> = (0..DAYS)
        .map(|i| OverviewDay {
            date: from + Duration::days(i),
            ..OverviewDay::default()
        })
        .collect();
    let start = from.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    let (filter, micros) = match side {
        Side::Placements([]) => return Ok(days),
        Side::Placements(ids) => (
            conversion::Column::PlacementId.is_in(ids.to_vec()),
            conversion::Column::PublisherEarningsMicros,
        ),
        Side::Advertiser(id) => (
            conversion::Column::AdvertiserId.eq(id.to_owned()),
            conversion::Column::PayoutMicros,
        ),
    };
    let rows: Vec<(DateTime<Utc>, DateTime<Utc>, Settlement, i64)> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::CreatedAt)
        .column(conversion::Column::UpdatedAt)
        .column(conversion::Column::Settlement)
        .column(micros)
        .filter(filter)
        .filter(
            conversion::Column::Settlement
                .is_in([Settlement::Approved.as_str(), Settlement::Reversed.as_str()]),
        )
        .filter(conversion::Column::UpdatedAt.gte(start))
        .into_tuple()
        .all(db)
        .await?;
    let len = days.len();
    let index = |at: DateTime<Utc>| {
        usize::try_from((at.date_naive() - from).num_days())
            .ok()
            .filter(|i| *i < len)
    };
    for (created, updated, settlement, amount) in rows {
        if let Some(i) = index(created) {
            days[i].conversions += 1;
            days[i].money_micros += Micros(amount);
        }
        if settlement == Settlement::Reversed {
            if let Some(i) = index(updated) {
                days[i].reversals += 1;
                days[i].money_micros += Micros(-amount);
            }
        }
    }
    Ok(days)
}
