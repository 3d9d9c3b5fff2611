//! Campaign report by UTC day: clicks (SDK launches), conversions by the status last
//! reported for each transaction (on the day it was first reported), and spend from the
//! campaign's spend ledger account.

use chrono::{Duration, NaiveDate};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};

use super::owned_campaign;
use crate::domain::billing::ledger;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::campaign::{CampaignReport, ReportRow};
use crate::model::money::{Micros, format_micros};
use entity::{conversion, ledger_entry, sdk_launch};

/// Longest report range.
pub const MAX_DAYS: i64 = 366;

/// `GET campaigns/{id}/report?from=&to=` (default: the last 30 days up to today).
pub async fn report(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> Result<CampaignReport, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    let (from, to) =
        crate::domain::report_range::resolve(from, to, ctx.now().date_naive(), MAX_DAYS)?;
    let mut days: Vec<ReportRow> = (0..=(to - from).num_days())
        .map(|d| ReportRow {
            date: Some(from + Duration::days(d)),
            ..Default::default()
        })
        .collect();
    let start = from.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    let end = (to + Duration::days(1))
        .and_hms_opt(0, 0, 0)
        .unwrap_or_default()
        .and_utc();
    let index = |at: chrono::DateTime<chrono::Utc>| (at.date_naive() - from).num_days() as usize;
    let clicks: Vec<chrono::DateTime<chrono::Utc>> = sdk_launch::Entity::find()
        .select_only()
        .column(sdk_launch::Column::CreatedAt)
        .filter(sdk_launch::Column::CampaignId.eq(m.id.clone()))
        .filter(sdk_launch::Column::CreatedAt.gte(start))
        .filter(sdk_launch::Column::CreatedAt.lt(end))
        .into_tuple()
        .all(&ctx.db)
        .await?;
    for at in clicks {
        if let Some(row) = days.get_mut(index(at)) {
            row.clicks += 1;
        }
    }
    let reported: Vec<(chrono::DateTime<chrono::Utc>, String)> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::CreatedAt)
        .column(conversion::Column::Status)
        .filter(conversion::Column::CampaignId.eq(m.id.clone()))
        .filter(conversion::Column::CreatedAt.gte(start))
        .filter(conversion::Column::CreatedAt.lt(end))
        .into_tuple()
        .all(&ctx.db)
        .await?;
    for (at, status) in reported {
        if let Some(row) = days.get_mut(index(at)) {
            let c = &mut row.conversions;
            match status.as_str() {
                "pending" => c.pending += 1,
                "approved" => c.approved += 1,
                "rejected" => c.rejected += 1,
                _ => c.reversed += 1,
            }
        }
    }
    if let Some(acc) =
        ledger::find_account(&ctx.db, &m.advertiser_id, ledger::Kind::Spent, &m.id).await?
    {
        let entries = ledger_entry::Entity::find()
            .filter(ledger_entry::Column::LedgerAccountId.eq(acc.id))
            .filter(ledger_entry::Column::CreatedAt.gte(start))
            .filter(ledger_entry::Column::CreatedAt.lt(end))
            .all(&ctx.db)
            .await?;
        for e in entries {
            if let Some(row) = days.get_mut(index(e.created_at)) {
                row.spend_micros += Micros(e.amount_micros);
            }
        }
    }
    let mut totals = ReportRow::default();
    for row in &mut days {
        row.spend = format_micros(row.spend_micros);
        totals.clicks += row.clicks;
        totals.conversions.pending += row.conversions.pending;
        totals.conversions.approved += row.conversions.approved;
        totals.conversions.rejected += row.conversions.rejected;
        totals.conversions.reversed += row.conversions.reversed;
        totals.spend_micros += row.spend_micros;
    }
    totals.spend = format_micros(totals.spend_micros);
    Ok(CampaignReport {
        campaign_id: m.id,
        from,
        to,
        totals,
        days,
    })
}
