//! The administrator's monthly payout run: one payout, for the whole available balance, per
//! publisher with a payout profile, no open payout and at least its minimum available.
//!
//! It runs in the request, one short transaction per publisher (the same as a publisher's own
//! request), so an SQLite writer is never held for long. Calling it again for the same month
//! creates only what is missing: a payout of the run is unique per publisher, and a publisher
//! has at most one open payout. Eligible publishers are read in one query (accounts with a
//! positive available balance), not one per publisher.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::requests::{NotCreated, Origin, create};
use crate::domain::billing::ledger::Kind;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::AppError;
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
            .await?;
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
    let (mut created, mut skipped) = (0i32, 0i32);
    for a in eligible {
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
            Err(NotCreated::Refused(e)) => return Err(e),
        }
    }
    let mut a: payout_run::ActiveModel = run.clone().into();
    a.created_count = Set(run.created_count + created);
    a.skipped_count = Set(skipped);
    let run = a.update(&ctx.db).await?;
    Ok((view(&run), new))
}
