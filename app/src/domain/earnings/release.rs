//! The release of earnings past their hold: PENDING → AVAILABLE (a new publisher's reserve
//! share to its reserve instead, `reserve`), as ledger postings (so the ledger export adds
//! up to the balances and a statement never changes afterwards).
//!
//! Each campaign's conversions are released in a transaction that first takes the same
//! campaign lock settlement takes, then re-reads them: a reversal in flight either finishes
//! first (the conversion is REVERSED and skipped) or runs after (and finds it AVAILABLE).
//! Two processes releasing at once therefore release each conversion once. Transactions
//! hold at most [`CHUNK`] conversions, so a settlement waits milliseconds for one.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};

use super::{DEFAULT_HOLD_DAYS, reserve, terms};
use crate::domain::billing::ledger;
use crate::domain::{Ctx, db, ids::new_id};
use crate::error::AppError;
use crate::model::publisher::earnings::EarningsState;
use entity::{conversion, offer_campaign, survey_campaign};

/// Conversions read per query and released per transaction at most.
const CHUNK: u64 = 500;

/// Releases every conversion whose hold has ended; returns how many.
pub async fn run_once(ctx: &Ctx) -> Result<u64, AppError> {
    let now = ctx.now();
    let overrides = terms::hold_overrides(&ctx.db).await?;
    let mut released = 0;
    // The default hold for everyone without terms of their own, then each group of
    // publishers sharing a hold of their own.
    let others: Vec<String> = overrides.iter().map(|(p, _)| p.clone()).collect();
    released += release_group(ctx, now, DEFAULT_HOLD_DAYS, Group::AllBut(&others)).await?;
    let mut by_days: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for (p, d) in overrides {
        by_days.entry(d).or_default().push(p);
    }
    for (days, publishers) in by_days {
        released += release_group(ctx, now, days, Group::Only(&publishers)).await?;
    }
    Ok(released)
}

enum Group<'a> {
    AllBut(&'a [String]),
    Only(&'a [String]),
}

async fn release_group(
    ctx: &Ctx,
    now: DateTime<Utc>,
    hold_days: i64,
    group: Group<'_>,
) -> Result<u64, AppError> {
    let cutoff = now - Duration::days(hold_days);
    let mut released = 0;
    let mut after: Option<String> = None;
    loop {
        let mut q = conversion::Entity::find()
            .select_only()
            .column(conversion::Column::Id)
            .column(conversion::Column::CampaignId)
            .filter(conversion::Column::EarningsState.eq(EarningsState::Pending.as_str()))
            .filter(conversion::Column::EarningsAt.lte(cutoff));
        q = match &group {
            Group::AllBut(skip) if !skip.is_empty() => {
                q.filter(conversion::Column::PublisherId.is_not_in(skip.iter().cloned()))
            }
            Group::AllBut(_) => q,
            Group::Only(only) => {
                q.filter(conversion::Column::PublisherId.is_in(only.iter().cloned()))
            }
        };
        if let Some(a) = &after {
            q = q.filter(conversion::Column::Id.gt(a.clone()));
        }
        let due: Vec<(String, String)> = q
            .order_by_asc(conversion::Column::Id)
            .limit(CHUNK)
            .into_tuple()
            .all(&ctx.db)
            .await?;
        let Some((last, _)) = due.last() else {
            return Ok(released);
        };
        after = Some(last.clone());
        for (campaign, ids) in crate::domain::ids::grouped(&due) {
            // One campaign that fails (a row the ledger refuses, a lock that times out) is
            // logged and left for the next run; the others are still released (issue 52).
            match release_campaign(ctx, now, &campaign, ids).await {
                Ok(n) => released += n,
                Err(e) if e.status == 503 => return Err(e),
                Err(e) => {
                    tracing::error!(campaign = %campaign, code = %e.code, error = %e.message, "releasing a campaign's earnings failed; going on with the others");
                }
            }
        }
        if (due.len() as u64) < CHUNK {
            return Ok(released);
        }
    }
}

/// Takes the settlement lock of an offer or survey campaign.
pub(super) async fn lock_any_campaign(txn: &DatabaseTransaction, id: &str) -> Result<(), AppError> {
    if offer_campaign::Entity::find_by_id(id.to_owned())
        .lock_exclusive()
        .one(txn)
        .await?
        .is_none()
    {
        survey_campaign::Entity::find_by_id(id.to_owned())
            .lock_exclusive()
            .one(txn)
            .await?;
    }
    Ok(())
}

/// Releases the given conversions of one campaign that are still pending.
async fn release_campaign(
    ctx: &Ctx,
    now: DateTime<Utc>,
    campaign_id: &str,
    ids: Vec<String>,
) -> Result<u64, AppError> {
    let txn = db::begin(&ctx.db).await?;
    lock_any_campaign(&txn, campaign_id).await?;
    let rows: Vec<(String, Option<String>, i64)> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::Id)
        .column(conversion::Column::PublisherId)
        .column(conversion::Column::PublisherEarningsMicros)
        .filter(conversion::Column::Id.is_in(ids))
        .filter(conversion::Column::EarningsState.eq(EarningsState::Pending.as_str()))
        .into_tuple()
        .all(&txn)
        .await?;
    if rows.is_empty() {
        return Ok(0);
    }
    let mut per_publisher: BTreeMap<String, i64> = BTreeMap::new();
    for (_, publisher, amount) in &rows {
        *per_publisher
            .entry(publisher.clone().unwrap_or_default())
            .or_default() += amount;
    }
    conversion::Entity::update_many()
        .col_expr(
            conversion::Column::EarningsState,
            Expr::value(EarningsState::Available.as_str()),
        )
        .filter(conversion::Column::Id.is_in(rows.iter().map(|(id, _, _)| id.clone())))
        .exec(&txn)
        .await?;
    let publishers: Vec<String> = per_publisher.keys().cloned().collect();
    let reserves = reserve::for_publishers(&txn, now, &publishers).await?;
    for (publisher, amount) in per_publisher {
        let release = new_id("rel");
        // A new publisher's share waits in the reserve of its due day.
        let held = reserves
            .get(&publisher)
            .map(|r| (r.due(now), r.share(amount)));
        ledger::post(
            &txn,
            now,
            ledger::TransactionKind::EarningsRelease,
            &publisher,
            ("campaign", campaign_id),
            &format!("earnings_release:{release}"),
            &ledger::release_earnings_legs(
                &publisher,
                &[(campaign_id.to_owned(), amount)],
                held.as_ref().map(|(due, share)| (due.as_str(), *share)),
            ),
        )
        .await?;
    }
    txn.commit().await?;
    Ok(rows.len() as u64)
}
