//! The administrator's monthly payout run: one payout, for the whole available balance, per
//! publisher with a payout profile, no open payout and at least its minimum available; a
//! disabled publisher is skipped, and a publisher that cannot be paid (a profile that no
//! longer opens) is skipped and logged without stopping the run.
//!
//! It runs in the request, one short transaction per publisher (the same as a publisher's own
//! request), so an SQLite writer is never held for long. Calling it again for the same month
//! creates only what is missing: a payout of the run is unique per publisher, and a publisher
//! has at most one open payout. Eligible publishers are read in one query (accounts with a
//! positive available balance), not one per publisher.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QuerySelect, Set};

use super::requests::{NotCreated, Origin, create};
use crate::domain::billing::ledger::Kind;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::AppError;
use crate::model::account::AccountStatus;
use crate::model::publisher::payouts::{PayoutRun, PayoutRunInput};
use entity::{ledger_account, payout_run};

fn view(m: &payout_run::Model) -> PayoutRun {
    PayoutRun {
        id: m.id.clone(),
        period: m.period.clone(),
        created_at: m.created_at,
        created_count: i64::from(m.created_count),
        skipped_count: i64::from(m.skipped_count),
    }
}

fn period(raw: Option<&str>) -> Result<String, AppError> {
    let p = raw.map(str::trim).unwrap_or_default();
    chrono::NaiveDate::parse_from_str(&format!("{p}-01"), "%Y-%m-%d")
        .ok()
        .filter(|_| p.len() == 7)
        .map(|_| p.to_owned())
        .ok_or_else(|| AppError::field("period", "must be a month, YYYY-MM"))
}

/// `POST /admin/v1/payouts/runs`: answers the run and whether it is new.
pub async fn start(
    ctx: &Ctx,
    actor: &Principal,
    input: PayoutRunInput,
) -> Result<(PayoutRun, bool), AppError> {
    actor.require_admin()?;
    let period = period(input.period.as_deref())?;
    let now = ctx.now();
    let existing = payout_run::Entity::find()
        .filter(payout_run::Column::Period.eq(period.clone()))
        .one(&ctx.db)
        .await?;
    let (run, new) = match existing {
        Some(r) => (r, false),
        None => {
            let txn = db::begin(&ctx.db).await?;
            let r = payout_run::ActiveModel {
                id: Set(new_id("prn")),
                period: Set(period.clone()),
                created_by: Set(actor.account_id.clone()),
                created_at: Set(now),
                created_count: Set(0),
                skipped_count: Set(0),
            }
            .insert(&txn)
            .await;
            // Two runs of one month started at once: the second is told, not given a 500.
            let r = match r {
                Ok(r) => r,
                Err(e) if db::is_unique_violation(&e) => {
                    txn.rollback().await?;
                    return Err(AppError::conflict(
                        "a payout run for this month was started at the same moment; reload to see it",
                    )
                    .with_code("payout_run_in_progress"));
                }
                Err(e) => return Err(e.into()),
            };
            actor
                .audit(
                    &txn,
                    now,
                    "payout_run.started",
                    ("payout_run", &r.id),
                    serde_json::json!({"period": period}),
                )
                .await?;
            txn.commit().await?;
            (r, true)
        }
    };
    let eligible = ledger_account::Entity::find()
        .filter(ledger_account::Column::Kind.eq(Kind::PublisherAvailable.as_str()))
        .filter(ledger_account::Column::BalanceMicros.gt(0))
        .all(&ctx.db)
        .await?;
    // Disabled publishers are not paid by a run (an administrator pays them by hand, if
    // at all).
    let disabled: std::collections::HashSet<String> = entity::account::Entity::find()
        .select_only()
        .column(entity::account::Column::Id)
        .filter(entity::account::Column::Status.eq(AccountStatus::Disabled.as_str()))
        .into_tuple()
        .all(&ctx.db)
        .await?
        .into_iter()
        .collect();
    let (mut created, mut skipped) = (0i32, 0i32);
    for a in eligible {
        if disabled.contains(&a.owner_account_id) {
            skipped += 1;
            continue;
        }
        let origin = Origin {
            requested_by: &actor.account_id,
            run_id: Some(&run.id),
            key: None,
        };
        match create(ctx, now, &a.owner_account_id, a.balance_micros, origin).await {
            Ok(_) => created += 1,
            // Created by an earlier call of this run.
            Err(NotCreated::Replay(_)) => {}
            // No profile, below the minimum, an open payout: the publisher waits for the
            // next run or asks itself.
            Err(NotCreated::Refused(e)) if e.status == 409 => skipped += 1,
            // The database is gone: the run stops, and calling it again finishes it.
            Err(NotCreated::Refused(e)) if e.status == 503 => return Err(e),
            // One bad profile (a payout detail that no longer opens, …) skips its publisher,
            // not the run (issue 52).
            Err(NotCreated::Refused(e)) => {
                tracing::error!(publisher = %a.owner_account_id, code = %e.code, error = %e.message, "a payout run skipped a publisher it could not pay");
                skipped += 1;
            }
        }
    }
    let mut a: payout_run::ActiveModel = run.clone().into();
    a.created_count = Set(run.created_count + created);
    a.skipped_count = Set(skipped);
    let run = a.update(&ctx.db).await?;
    Ok((view(&run), new))
}
