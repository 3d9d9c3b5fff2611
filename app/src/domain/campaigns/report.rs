//! Campaign report by UTC day: clicks, conversions by reported status, and spend from the
//! ledger. Clicks and conversions are counted from the delivery tables once SDK launches
//! and postbacks record them; spend is already exact (the campaign's spend ledger account).

use chrono::{Duration, NaiveDate};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::owned_campaign;
use crate::domain::billing::ledger;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::campaign::{CampaignReport, ReportRow};
use crate::model::money::format_micros;
use entity::ledger_entry;

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
    let today = ctx.now().date_naive();
    let to = to.unwrap_or(today);
    let from = from.unwrap_or(to - Duration::days(29));
    if from > to {
        return Err(AppError::field("from", "must not be after to"));
    }
    if (to - from).num_days() >= MAX_DAYS {
        return Err(AppError::field(
            "to",
            format!("the range is at most {MAX_DAYS} days"),
        ));
    }
    let mut days: Vec<ReportRow> = (0..=(to - from).num_days())
        .map(|d| ReportRow {
            date: Some(from + Duration::days(d)),
            ..Default::default()
        })
        .collect();
    if let Some(acc) =
        ledger::find_account(&ctx.db, &m.advertiser_id, ledger::Kind::Spent, &m.id).await?
    {
        let start = from.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
        let end = (to + Duration::days(1))
            .and_hms_opt(0, 0, 0)
            .unwrap_or_default()
            .and_utc();
        let entries = ledger_entry::Entity::find()
            .filter(ledger_entry::Column::LedgerAccountId.eq(acc.id))
            .filter(ledger_entry::Column::CreatedAt.gte(start))
            .filter(ledger_entry::Column::CreatedAt.lt(end))
            .all(&ctx.db)
            .await?;
        for e in entries {
            let i = (e.created_at.date_naive() - from).num_days() as usize;
            if let Some(row) = days.get_mut(i) {
                row.spend_micros += e.amount_micros;
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
