//! The administrator's monthly payout run: one payout, for the whole available balance, per
//! publisher with a payout profile, no open payout and at least its minimum available; a
//! disabled publisher is skipped, and a publisher that cannot be paid (a profile that no
//! longer opens) is skipped and logged without stopping the run.
//!
//! A job, not a request (issue 52): [`start`] queues the month's run and answers at once; a
//! worker ([`work_next`], every process's `payout-runs` loop) takes it under a lease and
//! makes the payouts, one short transaction per publisher (the same as a publisher's own
//! request), so an SQLite writer is never held for long and a run over thousands of
//! publishers is not cut by a request's deadline. A worker that stops is taken over when its
//! lease runs out, and the taker creates only what is missing: a payout of the run is unique
//! per publisher, and a publisher has at most one open payout. Starting a completed month
//! again queues it again, for the same reason safe. Eligible publishers are read in one
//! query (accounts with a positive available balance), not one per publisher.

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};

use super::requests::{NotCreated, Origin, create};
use crate::domain::billing::ledger::Kind;
use crate::domain::{Ctx, Principal, audit, db, ids::new_id};
use crate::error::AppError;
use crate::model::account::AccountStatus;
use crate::model::publisher::payouts::{PayoutRun, PayoutRunInput, PayoutRunList, PayoutRunStatus};
use entity::{ledger_account, payout_run};

/// A worker holds a run for two minutes before another may take it over; renewed as it goes.
const LEASE: db::Lease<payout_run::Entity> = db::Lease {
    id: payout_run::Column::Id,
    status: payout_run::Column::Status,
    owner: payout_run::Column::LeaseOwner,
    until: payout_run::Column::LeaseUntil,
    length: Duration::minutes(2),
};
/// Publishers paid between two renewals of the lease (each a few milliseconds).
const RENEW_EVERY: usize = 100;

fn view(m: &payout_run::Model) -> PayoutRun {
    PayoutRun {
        id: m.id.clone(),
        period: m.period.clone(),
        status: m.status,
        created_at: m.created_at,
        finished_at: m.finished_at,
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

/// `POST /admin/v1/payouts/runs`: queues the month's run; answers it and whether this call
/// queued it (false: it was queued or running already).
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
    let txn = db::begin(&ctx.db).await?;
    let run = match existing {
        Some(r) if r.status != PayoutRunStatus::Completed => return Ok((view(&r), false)),
        Some(r) => {
            // Again, for what is missing: only a completed run is queued again.
            let queued = payout_run::Entity::update_many()
                .col_expr(
                    payout_run::Column::Status,
                    Expr::value(PayoutRunStatus::Queued.as_str()),
                )
                .filter(payout_run::Column::Id.eq(r.id.clone()))
                .filter(payout_run::Column::Status.eq(PayoutRunStatus::Completed.as_str()))
                .exec(&txn)
                .await?
                .rows_affected;
            if queued == 0 {
                txn.rollback().await?;
                return Err(in_progress());
            }
            payout_run::Model {
                status: PayoutRunStatus::Queued,
                ..r
            }
        }
        None => {
            let r = payout_run::ActiveModel {
                id: Set(new_id("prn")),
                period: Set(period.clone()),
                created_by: Set(actor.person_id.clone()),
                created_at: Set(now),
                created_count: Set(0),
                skipped_count: Set(0),
                status: Set(PayoutRunStatus::Queued),
                lease_owner: Set(None),
                lease_until: Set(None),
                finished_at: Set(None),
            }
            .insert(&txn)
            .await;
            // Two runs of one month started at once: the second is told, not given a 500.
            match r {
                Ok(r) => r,
                Err(e) if db::is_unique_violation(&e) => {
                    txn.rollback().await?;
                    return Err(in_progress());
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    actor
        .audit(
            &txn,
            now,
            "payout_run.started",
            ("payout_run", &run.id),
            serde_json::json!({"period": period}),
        )
        .await?;
    txn.commit().await?;
    Ok((view(&run), true))
}

fn in_progress() -> AppError {
    AppError::conflict(
        "a payout run for this month was started at the same moment; reload to see it",
    )
    .with_code("payout_run_in_progress")
}

/// `GET /admin/v1/payouts/runs/{runId}`.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<PayoutRun, AppError> {
    actor.require_admin()?;
    payout_run::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .map(|r| view(&r))
        .ok_or_else(|| AppError::not_found("payout run"))
}

/// `GET /admin/v1/payouts/runs`: the latest 24 runs, newest month first.
pub async fn list(ctx: &Ctx, actor: &Principal) -> Result<PayoutRunList, AppError> {
    actor.require_admin()?;
    let rows = payout_run::Entity::find()
        .order_by_desc(payout_run::Column::Period)
        .limit(24)
        .all(&ctx.db)
        .await?;
    Ok(PayoutRunList {
        items: rows.iter().map(view).collect(),
    })
}

/// Takes the oldest queued run (or a running one whose worker's lease ran out) and makes
/// its payouts; answers the run as it ended, or `None` when none waits.
pub async fn work_next(ctx: &Ctx) -> Result<Option<PayoutRun>, AppError> {
    let owner = new_id("prw");
    let Some(run) = claim(ctx, &owner).await? else {
        return Ok(None);
    };
    let Some((created, skipped)) = pay(ctx, &run, &owner).await? else {
        // The lease ran out and another worker holds the run now.
        return Ok(None);
    };
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let done = payout_run::Entity::update_many()
        .col_expr(
            payout_run::Column::Status,
            Expr::value(PayoutRunStatus::Completed.as_str()),
        )
        .col_expr(
            payout_run::Column::CreatedCount,
            Expr::value(run.created_count + created),
        )
        .col_expr(payout_run::Column::SkippedCount, Expr::value(skipped))
        .col_expr(payout_run::Column::FinishedAt, Expr::value(Some(now)))
        .col_expr(
            payout_run::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            payout_run::Column::LeaseUntil,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .filter(payout_run::Column::Id.eq(run.id.clone()))
        .filter(payout_run::Column::LeaseOwner.eq(owner.clone()))
        .exec(&txn)
        .await?
        .rows_affected;
    if done == 1 {
        let detail =
            serde_json::json!({"period": run.period, "created": created, "skipped": skipped});
        audit::record(
            &txn,
            now,
            Some(&run.created_by),
            "payout_run.completed",
            ("payout_run", &run.id),
            detail,
        )
        .await?;
    }
    txn.commit().await?;
    let ended = payout_run::Entity::find_by_id(run.id.clone())
        .one(&ctx.db)
        .await?;
    Ok(ended.map(|r| view(&r)))
}

async fn claim(ctx: &Ctx, owner: &str) -> Result<Option<payout_run::Model>, AppError> {
    let now = ctx.now();
    let waiting = payout_run::Entity::find()
        .filter(payout_run::Column::Status.is_in([
            PayoutRunStatus::Queued.as_str(),
            PayoutRunStatus::Running.as_str(),
        ]))
        .order_by_asc(payout_run::Column::CreatedAt)
        .limit(16)
        .all(&ctx.db)
        .await?;
    for r in waiting {
        let free = r.status == PayoutRunStatus::Queued || LEASE.lapsed(r.lease_until, now);
        if !free {
            continue;
        }
        let taken = LEASE
            .take(
                &ctx.db,
                &r.id,
                r.status.as_str(),
                PayoutRunStatus::Running.as_str(),
                owner,
                now,
            )
            .await?;
        if taken {
            return Ok(Some(r));
        }
    }
    Ok(None)
}

async fn renew(ctx: &Ctx, id: &str, owner: &str) -> Result<bool, AppError> {
    LEASE.renew(&ctx.db, id, owner, ctx.now()).await
}

/// One pass over the publishers with money available: (created, skipped), or `None` when
/// the lease was lost on the way.
async fn pay(
    ctx: &Ctx,
    run: &payout_run::Model,
    owner: &str,
) -> Result<Option<(i32, i32)>, AppError> {
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
    for (i, a) in eligible.into_iter().enumerate() {
        if i > 0 && i % RENEW_EVERY == 0 && !renew(ctx, &run.id, owner).await? {
            return Ok(None);
        }
        if disabled.contains(&a.owner_account_id) {
            skipped += 1;
            continue;
        }
        let origin = Origin {
            requested_by: &run.created_by,
            run_id: Some(&run.id),
            key: None,
        };
        match create(
            ctx,
            ctx.now(),
            &a.owner_account_id,
            a.balance_micros,
            origin,
        )
        .await
        {
            Ok(_) => created += 1,
            // Created by an earlier pass of this run.
            Err(NotCreated::Replay(_)) => {}
            // No profile, below the minimum, an open payout: the publisher waits for the
            // next run or asks itself.
            Err(NotCreated::Refused(e)) if e.status == 409 => skipped += 1,
            // The database is gone: the pass stops, and the lease's end hands the run on.
            Err(NotCreated::Refused(e)) if e.status == 503 => return Err(e),
            // One bad profile (a payout detail that no longer opens, …) skips its publisher,
            // not the run (issue 52).
            Err(NotCreated::Refused(e)) => {
                tracing::error!(publisher = %a.owner_account_id, code = %e.code, error = %e.message, "a payout run skipped a publisher it could not pay");
                skipped += 1;
            }
        }
    }
    Ok(Some((created, skipped)))
}
