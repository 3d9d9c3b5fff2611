//! Applying a reconciliation: queued by its advertiser, claimed by one worker with a lease
//! (another takes over when the lease runs out), worked through in chunks of one campaign's
//! lines, and finished with a result on every line and an audit entry.
//!
//! Fair share (issue 52): a claim applies one round ([`ROUND`] lines) and then hands the
//! reconciliation back to the queue, and a claim takes the reconciliation of the advertiser
//! served least recently (each advertiser's oldest before anyone's second), so one
//! advertiser's ten reconciliations of 10,000 lines do not keep another's ten lines
//! waiting behind them.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};

use super::{CHUNK, SUBJECT, offers, surveys, view};
use crate::domain::billing::acting_advertiser;
use crate::domain::{Ctx, Principal, audit, db, ids::new_id};
use crate::error::AppError;
use crate::model::campaign::reconciliation::{
    LineState, ReconcileAction, Reconciliation, ReconciliationStatus,
};
use entity::{reconciliation_batch as batch, reconciliation_line as line};

/// A claim holds a reconciliation for a minute without news from its worker.
const LEASE: db::Lease<batch::Entity> = db::Lease {
    id: batch::Column::Id,
    status: batch::Column::Status,
    owner: batch::Column::LeaseOwner,
    until: batch::Column::LeaseUntil,
    length: Duration::seconds(60),
};
/// Lines read per round.
const ROUND: u64 = 512;
/// Tries of a line alone, after its chunk failed, before it is marked FAILED.
const ATTEMPTS: u32 = 3;

/// `POST …/reconciliations/{id}/apply`: queues a previewed reconciliation (again: the
/// answer is the reconciliation as it stands).
pub async fn queue(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Reconciliation, AppError> {
    let advertiser = acting_advertiser(ctx, actor, None).await?;
    view::owned(ctx, &advertiser, id).await?;
    let txn = db::begin(&ctx.db).await?;
    queue_in(&txn, ctx.now(), id).await?;
    txn.commit().await?;
    view::one(ctx, id).await
}

/// Queues `id` in `txn` if it is still a preview; the lines that will not apply get their
/// preview as their result at once.
pub(super) async fn queue_in(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    id: &str,
) -> Result<(), AppError> {
    let queued = batch::Entity::update_many()
        .col_expr(
            batch::Column::Status,
            Expr::value(ReconciliationStatus::Queued.as_str()),
        )
        .col_expr(batch::Column::QueuedAt, Expr::value(Some(now)))
        .filter(batch::Column::Id.eq(id.to_owned()))
        .filter(batch::Column::Status.eq(ReconciliationStatus::Previewed.as_str()))
        .exec(txn)
        .await?
        .rows_affected;
    if queued == 1 {
        line::Entity::update_many()
            .col_expr(
                line::Column::Result,
                Expr::col(line::Column::Preview).into(),
            )
            .col_expr(line::Column::AppliedAt, Expr::value(Some(now)))
            .filter(line::Column::BatchId.eq(id.to_owned()))
            .filter(line::Column::Preview.ne(LineState::WillApply.as_str()))
            .exec(txn)
            .await?;
    }
    Ok(())
}

/// Applies a round of the next reconciliation in fair order (or of one whose worker
/// stopped); returns how many lines it applied, `None` when none waits.
pub async fn apply_next(ctx: &Ctx) -> Result<Option<usize>, AppError> {
    let owner = new_id("rcw");
    let Some(b) = claim(ctx, &owner).await? else {
        return Ok(None);
    };
    let action = ReconcileAction::parse(&b.action).ok_or_else(AppError::internal)?;
    let mut applied = 0;
    {
        let open = line::Entity::find()
            .filter(line::Column::BatchId.eq(b.id.clone()))
            .filter(line::Column::Result.is_null())
            .order_by_asc(line::Column::LineNo)
            .limit(ROUND)
            .all(&ctx.db)
            .await?;
        let full_round = open.len() as u64 == ROUND;
        // One campaign's lines at a time, in request order within it.
        let mut by_campaign: BTreeMap<String, Vec<line::Model>> = BTreeMap::new();
        for l in open {
            by_campaign
                .entry(l.campaign_id.clone().unwrap_or_default())
                .or_default()
                .push(l);
        }
        for (campaign_id, lines) in by_campaign {
            for chunk in lines.chunks(CHUNK) {
                apply_chunk(ctx, &b, action, &campaign_id, chunk).await?;
                applied += chunk.len();
                if !renew(ctx, &b.id, &owner).await? {
                    // The lease ran out and another worker holds it now.
                    return Ok(Some(applied));
                }
            }
        }
        if full_round {
            // Lines may be left: back to the queue, behind the others waiting.
            hand_back(ctx, &b.id, &owner).await?;
            return Ok(Some(applied));
        }
    }
    finish(ctx, &b, &owner).await?;
    Ok(Some(applied))
}

/// Applies one chunk of one campaign's lines. When that fails for any reason but an
/// unreachable database, the chunk's lines are tried one at a time, and a line that fails
/// alone [`ATTEMPTS`] times is marked FAILED (and logged): one broken row must not stop its
/// reconciliation, and every one queued after it, forever. An unreachable database ends
/// the round instead; the lease hands the reconciliation on when it is back.
async fn apply_chunk(
    ctx: &Ctx,
    b: &batch::Model,
    action: ReconcileAction,
    campaign_id: &str,
    chunk: &[line::Model],
) -> Result<(), AppError> {
    match apply_lines(ctx, b, action, campaign_id, chunk).await {
        Err(e) if e.status != 503 => {}
        settled => return settled,
    }
    for l in chunk {
        let mut tries = 0;
        loop {
            tries += 1;
            match apply_lines(ctx, b, action, campaign_id, std::slice::from_ref(l)).await {
                Err(e) if e.status == 503 => return Err(e),
                Err(e) if tries >= ATTEMPTS => {
                    tracing::error!(reconciliation = %b.id, line = l.line_no, code = %e.code,
                        "a reconciliation line failed {ATTEMPTS} times; marked FAILED");
                    let txn = db::begin(&ctx.db).await?;
                    super::record_result(&txn, ctx.now(), l, LineState::Failed).await?;
                    txn.commit().await?;
                    break;
                }
                Err(_) => {}
                Ok(()) => break,
            }
        }
    }
    Ok(())
}

/// Applies `lines` of one campaign in one transaction.
async fn apply_lines(
    ctx: &Ctx,
    b: &batch::Model,
    action: ReconcileAction,
    campaign_id: &str,
    lines: &[line::Model],
) -> Result<(), AppError> {
    if super::is_survey_campaign(campaign_id) {
        surveys::apply_chunk(ctx, b, campaign_id, lines).await
    } else {
        offers::apply_chunk(ctx, b, action, campaign_id, lines).await
    }
}

/// Ends `owner`'s claim with lines left: the lease lapses now, so the next claim may take
/// it again once the others waiting had their turn.
async fn hand_back(ctx: &Ctx, id: &str, owner: &str) -> Result<(), AppError> {
    batch::Entity::update_many()
        .col_expr(
            batch::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            batch::Column::LeaseUntil,
            Expr::value(Some(ctx.now() - Duration::microseconds(1))),
        )
        .filter(batch::Column::Id.eq(id.to_owned()))
        .filter(batch::Column::LeaseOwner.eq(owner.to_owned()))
        .exec(&ctx.db)
        .await?;
    Ok(())
}

/// The waiting reconciliations in fair order: each advertiser's first (the one it waited
/// for longest) before anyone's second, and among equals the one served least recently
/// (its lease's end, or when it was queued).
fn fair_order(mut waiting: Vec<batch::Model>) -> Vec<batch::Model> {
    let served = |b: &batch::Model| b.lease_until.or(b.queued_at);
    waiting.sort_by_key(|b| served(b));
    let mut turn: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut ranked: Vec<(usize, batch::Model)> = waiting
        .into_iter()
        .map(|b| {
            let t = turn.entry(b.advertiser_id.clone()).or_default();
            *t += 1;
            (*t, b)
        })
        .collect();
    ranked.sort_by_key(|(t, b)| (*t, served(b)));
    ranked.into_iter().map(|(_, b)| b).collect()
}

/// Takes the next waiting reconciliation in [`fair_order`]: queued, or applying under a
/// lease that ran out.
async fn claim(ctx: &Ctx, owner: &str) -> Result<Option<batch::Model>, AppError> {
    let now = ctx.now();
    let waiting = batch::Entity::find()
        .filter(batch::Column::Status.is_in([
            ReconciliationStatus::Queued.as_str(),
            ReconciliationStatus::Applying.as_str(),
        ]))
        .order_by_asc(batch::Column::QueuedAt)
        .limit(64)
        .all(&ctx.db)
        .await?;
    for b in fair_order(waiting) {
        let free = b.status == ReconciliationStatus::Queued || LEASE.lapsed(b.lease_until, now);
        if !free {
            continue;
        }
        let taken = LEASE
            .take(
                &ctx.db,
                &b.id,
                b.status.as_str(),
                ReconciliationStatus::Applying.as_str(),
                owner,
                now,
            )
            .await?;
        if taken {
            return Ok(Some(b));
        }
    }
    Ok(None)
}

/// Extends the lease while `owner` still holds it.
async fn renew(ctx: &Ctx, id: &str, owner: &str) -> Result<bool, AppError> {
    LEASE.renew(&ctx.db, id, owner, ctx.now()).await
}

/// Marks the reconciliation DONE and records the outcome in the audit trail.
async fn finish(ctx: &Ctx, b: &batch::Model, owner: &str) -> Result<(), AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let done = batch::Entity::update_many()
        .col_expr(
            batch::Column::Status,
            Expr::value(ReconciliationStatus::Done.as_str()),
        )
        .col_expr(batch::Column::FinishedAt, Expr::value(Some(now)))
        .col_expr(
            batch::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            batch::Column::LeaseUntil,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .filter(batch::Column::Id.eq(b.id.clone()))
        .filter(batch::Column::LeaseOwner.eq(owner.to_owned()))
        .exec(&txn)
        .await?
        .rows_affected;
    if done == 1 {
        let results: Vec<(Option<String>, i64)> = line::Entity::find()
            .select_only()
            .column(line::Column::Result)
            .column_as(line::Column::Id.count(), "n")
            .filter(line::Column::BatchId.eq(b.id.clone()))
            .group_by(line::Column::Result)
            .into_tuple()
            .all(&txn)
            .await?;
        let counts: serde_json::Map<String, serde_json::Value> = results
            .into_iter()
            .map(|(r, n)| (r.unwrap_or_default(), n.into()))
            .collect();
        let detail = serde_json::json!({"reconciliationId": b.id, "results": counts});
        audit::record(
            &txn,
            now,
            Some(&b.created_by),
            "conversion_reconciliation.applied",
            (SUBJECT, &b.id),
            detail,
        )
        .await?;
    }
    txn.commit().await?;
    Ok(())
}
