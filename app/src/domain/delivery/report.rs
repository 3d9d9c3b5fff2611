//! The publisher's offers report: impressions (first showings), clicks (launches), approved
//! conversions, reversals and earnings by UTC day and offer, over at most 92 days of the
//! publisher's placements. Earnings are the publisher's share; a reversal subtracts on the
//! day it happened.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::domain::conversions::reported::Settlement;
use crate::domain::publisher::owned_placement;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::delivery::*;
use crate::model::money::Micros;
use crate::model::money::format_micros;
use entity::{ad_slot, conversion, offer_campaign, placement, sdk_impression, sdk_launch};

/// Longest report range, in days.
pub const MAX_DAYS: i64 = 92;

#[derive(Default)]
struct Cell {
    impressions: i64,
    clicks: i64,
    conversions: i64,
    reversals: i64,
    earnings: i64,
}

fn day_start(d: NaiveDate) -> DateTime<Utc> {
    d.and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or_default()
}

/// `GET /publisher/v2/reports/offers`.
pub async fn offers(
    ctx: &Ctx,
    actor: &Principal,
    q: OffersReportQuery,
) -> Result<OffersReport, AppError> {
    actor.require_publisher()?;
    let (from, to) =
        crate::domain::report_range::resolve(q.from, q.to, ctx.now().date_naive(), MAX_DAYS)?;
    let placement_id = q.placement_id.clone().filter(|p| !p.is_empty());
    let slot_id = q.ad_slot_id.clone().filter(|s| !s.is_empty());
    let placements: Vec<String> = match (&placement_id, &slot_id) {
        (Some(p), _) => vec![owned_placement(&ctx.db, actor, p).await?.id],
        (None, Some(s)) => {
            let slot = ad_slot::Entity::find_by_id(s.clone())
                .one(&ctx.db)
                .await?
                .ok_or_else(|| AppError::not_found("ad slot"))?;
            vec![
                owned_placement(&ctx.db, actor, &slot.placement_id)
                    .await
                    .map_err(|_| AppError::not_found("ad slot"))?
                    .id,
            ]
        }
        (None, None) => {
            let mut pq = placement::Entity::find();
            if !actor.role.is_admin() {
                pq = pq.filter(placement::Column::OwnerAccountId.eq(actor.account_id.clone()));
            }
            pq.all(&ctx.db).await?.into_iter().map(|p| p.id).collect()
        }
    };
    let (start, end) = (day_start(from), day_start(to) + Duration::days(1));
    let mut cells: BTreeMap<(NaiveDate, String), Cell> = BTreeMap::new();
    if !placements.is_empty() {
        collect(
            &ctx.db,
            &placements,
            slot_id.as_deref(),
            start,
            end,
            &mut cells,
        )
        .await?;
    }
    let ids: Vec<String> = cells.keys().map(|(_, c)| c.clone()).collect();
    let names: BTreeMap<String, String> = if ids.is_empty() {
        BTreeMap::new()
    } else {
        offer_campaign::Entity::find()
            .filter(offer_campaign::Column::Id.is_in(ids))
            .all(&ctx.db)
            .await?
            .into_iter()
            .map(|c| (c.id, c.name))
            .collect()
    };
    let mut totals = OffersReportTotals::default();
    let mut rows: Vec<OffersReportRow> = cells
        .into_iter()
        .map(|((date, offer_id), c)| {
            totals.impressions += c.impressions;
            totals.clicks += c.clicks;
            totals.conversions += c.conversions;
            totals.reversals += c.reversals;
            totals.earnings_micros += Micros(c.earnings);
            OffersReportRow {
                date,
                offer_name: names.get(&offer_id).cloned().unwrap_or_default(),
                offer_id,
                impressions: c.impressions,
                clicks: c.clicks,
                conversions: c.conversions,
                reversals: c.reversals,
                earnings_micros: Micros(c.earnings),
                earnings: format_micros(c.earnings),
            }
        })
        .collect();
    totals.earnings = format_micros(totals.earnings_micros);
    rows.sort_by(|a, b| {
        b.date
            .cmp(&a.date)
            .then(b.earnings_micros.cmp(&a.earnings_micros))
            .then(a.offer_id.cmp(&b.offer_id))
    });
    Ok(OffersReport {
        from,
        to,
        placement_id,
        ad_slot_id: slot_id,
        rows,
        totals,
    })
}

async fn collect<C: ConnectionTrait>(
    db: &C,
    placements: &[String],
    slot: Option<&str>,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    cells: &mut BTreeMap<(NaiveDate, String), Cell>,
) -> Result<(), AppError> {
    let mut iq = sdk_impression::Entity::find()
        .select_only()
        .column(sdk_impression::Column::RecordedAt)
        .column(sdk_impression::Column::CampaignId)
        .filter(sdk_impression::Column::PlacementId.is_in(placements.to_vec()))
        .filter(sdk_impression::Column::Duplicate.eq(false))
        .filter(sdk_impression::Column::RecordedAt.gte(start))
        .filter(sdk_impression::Column::RecordedAt.lt(end));
    if let Some(s) = slot {
        iq = iq.filter(sdk_impression::Column::AdSlotId.eq(s.to_owned()));
    }
    for (at, campaign) in iq.into_tuple::<(DateTime<Utc>, String)>().all(db).await? {
        cells
            .entry((at.date_naive(), campaign))
            .or_default()
            .impressions += 1;
    }
    let mut lq = sdk_launch::Entity::find()
        .select_only()
        .column(sdk_launch::Column::CreatedAt)
        .column(sdk_launch::Column::CampaignId)
        .filter(sdk_launch::Column::PlacementId.is_in(placements.to_vec()))
        .filter(sdk_launch::Column::CreatedAt.gte(start))
        .filter(sdk_launch::Column::CreatedAt.lt(end));
    if let Some(s) = slot {
        lq = lq.filter(sdk_launch::Column::AdSlotId.eq(s.to_owned()));
    }
    for (at, campaign) in lq.into_tuple::<(DateTime<Utc>, String)>().all(db).await? {
        cells.entry((at.date_naive(), campaign)).or_default().clicks += 1;
    }
    // Conversions that were ever approved: counted on the day they were reported, and a
    // reversal again (negatively) on the day it arrived.
    let mut cq = conversion::Entity::find()
        .filter(conversion::Column::PlacementId.is_in(placements.to_vec()))
        .filter(
            conversion::Column::Settlement
                .is_in([Settlement::Approved.as_str(), Settlement::Reversed.as_str()]),
        )
        .filter(conversion::Column::UpdatedAt.gte(start))
        .filter(conversion::Column::CreatedAt.lt(end));
    if let Some(s) = slot {
        cq = cq.filter(conversion::Column::AdSlotId.eq(s.to_owned()));
    }
    for c in cq.all(db).await? {
        if c.created_at >= start && c.created_at < end {
            let cell = cells
                .entry((c.created_at.date_naive(), c.campaign_id.clone()))
                .or_default();
            cell.conversions += 1;
            cell.earnings += c.publisher_earnings_micros;
        }
        if c.settlement == Settlement::Reversed && c.updated_at >= start && c.updated_at < end {
            let cell = cells
                .entry((c.updated_at.date_naive(), c.campaign_id.clone()))
                .or_default();
            cell.reversals += 1;
            cell.earnings -= c.publisher_earnings_micros;
        }
    }
    Ok(())
}
