//! Payouts that pay: approved payouts leave in batches through a rail chosen by the payout's
//! method. PAYMENT_SERVICE payouts go by PayPal Payouts ([`paypal`]): one PayPal batch per
//! batch, its id as PayPal's `sender_batch_id` and request id, item outcomes by webhook and
//! by polling. BANK_TRANSFER payouts go as an ISO 20022 `pain.001` credit-transfer file
//! ([`bank_file`]) that the operator downloads, uploads to the platform's bank and confirms.
//!
//! A payout in a batch is SENDING: its money stays held (PAYOUT_HELD) until the rail reports
//! it paid (`payout_paid:<id>`, once by the ledger's key and the status guard) or failed
//! (`payout_return:<id>`: the money is back in the publisher's available balance). A paid
//! item PayPal later reports returned or reversed fails the payout from PAID, which takes
//! the money back from what was paid out. A batch is COMPLETED when none of its payouts is
//! SENDING any more.

pub mod bank_file;
pub mod paypal;

use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};

use super::{Transition, seal_binding, transition, view};
use crate::domain::accounts::second_factor;
use crate::domain::billing::ledger;
use crate::domain::billing::payprovider::{PayoutItemOutcome, PayoutItemReport};
use crate::domain::notices;
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::AppError;
use crate::model::money::{Micros, format_micros};
use crate::model::publisher::payout_batches::*;
use crate::model::publisher::payouts::{PayoutMethod, PayoutStatus};
use entity::{payout, payout_batch};

/// The id prefix of batches.
pub const ID_PREFIX: &str = "pbt";
/// At most this many payouts leave in one batch (PayPal takes 15,000; a bank file of this
/// size is still one upload); the rest wait for the next batch.
pub const MAX_BATCH: u64 = 500;

/// The payout method a rail serves.
fn method_of(rail: PayoutRail) -> PayoutMethod {
    match rail {
        PayoutRail::PayPal => PayoutMethod::PaymentService,
        PayoutRail::BankFile => PayoutMethod::BankTransfer,
    }
}

/// `POST /admin/v1/payout-batches`: puts approved payouts of the rail's method into a new
/// batch (SENDING) and, for PayPal, sends it. Asks for a second-factor code like opening
/// payment details, since the batch reads them all.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    req: PayoutBatchRequest,
    code: Option<&str>,
) -> Result<PayoutBatch, AppError> {
    actor.require_admin()?;
    if let Some(ids) = &req.payout_ids
        && (ids.is_empty() || ids.len() > MAX_BATCH as usize)
    {
        return Err(AppError::field("payoutIds", "must list 1 to 500 payouts"));
    }
    if req.rail == PayoutRail::PayPal && !ctx.payments.sends_payouts() {
        // A setting of this deployment, not an outage: 409, not a retryable 503.
        return Err(AppError::conflict(
            "PayPal is not configured: set APP_PAYPAL_* to send payouts through PayPal",
        )
        .with_code("payout_rail_unavailable"));
    }
    second_factor::step_up(ctx, actor, code).await?;
    let now = ctx.now();
    let id = new_id(ID_PREFIX);
    let txn = db::begin(&ctx.db).await?;
    let mut q = payout::Entity::find()
        .filter(payout::Column::Status.eq(PayoutStatus::Approved))
        .filter(payout::Column::Method.eq(method_of(req.rail).as_str()));
    if let Some(ids) = &req.payout_ids {
        q = q.filter(payout::Column::Id.is_in(ids.iter().cloned()));
    }
    let rows = q
        .order_by_asc(payout::Column::Id)
        .limit(MAX_BATCH)
        .lock_exclusive()
        .all(&txn)
        .await?;
    if let Some(ids) = &req.payout_ids
        && rows.len() != ids.iter().collect::<std::collections::HashSet<_>>().len()
    {
        return Err(AppError::conflict(format!(
            "every listed payout must be APPROVED and paid by {}",
            method_of(req.rail).as_str()
        ))
        .with_code("invalid_transition"));
    }
    if rows.is_empty() {
        return Err(AppError::conflict("no approved payout waits for this rail")
            .with_code("nothing_to_send"));
    }
    // Banks and PayPal pay whole cents: a fraction of a cent held beyond them goes back to
    // the publisher's available balance now, and the payout is for the whole cents.
    let mut total = 0;
    for p in &rows {
        let rest = p.amount_micros % MINOR_UNIT;
        if rest > 0 {
            keep_remainder(&txn, now, p, rest).await?;
        }
        total += p.amount_micros - rest;
    }
    let ids: Vec<String> = rows.iter().map(|p| p.id.clone()).collect();
    let moved = payout::Entity::update_many()
        .col_expr(payout::Column::Status, Expr::value(PayoutStatus::Sending))
        .col_expr(payout::Column::BatchId, Expr::value(Some(id.clone())))
        .col_expr(payout::Column::UpdatedAt, Expr::value(now))
        .filter(payout::Column::Id.is_in(ids.clone()))
        .filter(payout::Column::Status.eq(PayoutStatus::Approved))
        .exec(&txn)
        .await?;
    if moved.rows_affected != ids.len() as u64 {
        return Err(AppError::conflict("a payout changed meanwhile; try again"));
    }
    let status = match req.rail {
        PayoutRail::PayPal => PayoutBatchStatus::Submitting,
        PayoutRail::BankFile => PayoutBatchStatus::Sent,
    };
    let row = payout_batch::ActiveModel {
        id: Set(id.clone()),
        rail: Set(req.rail),
        status: Set(status),
        provider_batch_id: Set(None),
        reference: Set(None),
        payout_count: Set(i32::try_from(ids.len()).unwrap_or(i32::MAX)),
        total_micros: Set(total),
        currency: Set(rows[0].currency.clone()),
        error: Set(None),
        created_by: Set(actor.person_id.clone()),
        created_at: Set(now),
        updated_at: Set(now),
        checked_at: Set(None),
        completed_at: Set(None),
    }
    .insert(&txn)
    .await?;
    let detail = serde_json::json!({"rail": req.rail, "payouts": ids, "totalMicros": total});
    actor
        .audit(
            &txn,
            now,
            "payout_batch.created",
            ("payout_batch", &id),
            detail,
        )
        .await?;
    txn.commit().await?;
    if row.rail == PayoutRail::PayPal {
        // Sent after the commit: a failure to reach PayPal leaves it SUBMITTING, and the
        // worker sends it again under the same request id (PayPal answers the first result).
        paypal::submit(ctx, &row).await?;
    }
    get(ctx, actor, &id).await
}

/// Micros of one cent: the smallest amount the rails send (payouts are in USD).
const MINOR_UNIT: i64 = 10_000;

/// Returns what a payout holds beyond whole cents to the publisher's available balance and
/// lowers the payout to the whole cents, once (the posting's key names the payout).
async fn keep_remainder(
    txn: &sea_orm::DatabaseTransaction,
    now: chrono::DateTime<chrono::Utc>,
    p: &payout::Model,
    rest: i64,
) -> Result<(), AppError> {
    ledger::post(
        txn,
        now,
        ledger::TransactionKind::PayoutReturn,
        &p.publisher_id,
        ("payout", &p.id),
        &format!("payout_remainder:{}", p.id),
        &ledger::payout_return_legs(&p.publisher_id, &p.id, rest, false),
    )
    .await?;
    payout::Entity::update_many()
        .col_expr(
            payout::Column::AmountMicros,
            Expr::value(p.amount_micros - rest),
        )
        .filter(payout::Column::Id.eq(p.id.clone()))
        .exec(txn)
        .await?;
    Ok(())
}

/// `GET /admin/v1/payout-batches`: newest first.
pub async fn list(ctx: &Ctx, actor: &Principal, page: &Page) -> Result<PayoutBatchList, AppError> {
    actor.require_admin()?;
    let rows = page
        .select(payout_batch::Entity::find(), payout_batch::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |b| &b.id);
    Ok(PayoutBatchList {
        items: rows.iter().map(|b| batch_view(b, Vec::new())).collect(),
        next_cursor,
    })
}

/// `GET /admin/v1/payout-batches/{id}`: the batch and its payouts.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<PayoutBatch, AppError> {
    actor.require_admin()?;
    let (b, payouts) = load(ctx, id).await?;
    Ok(batch_view(&b, payouts))
}

async fn load(ctx: &Ctx, id: &str) -> Result<(payout_batch::Model, Vec<payout::Model>), AppError> {
    let b = payout_batch::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("payout batch"))?;
    let payouts = payout::Entity::find()
        .filter(payout::Column::BatchId.eq(id.to_owned()))
        .order_by_asc(payout::Column::Id)
        .all(&ctx.db)
        .await?;
    Ok((b, payouts))
}

fn batch_view(b: &payout_batch::Model, payouts: Vec<payout::Model>) -> PayoutBatch {
    PayoutBatch {
        batch_id: b.id.clone(),
        rail: b.rail,
        status: b.status,
        provider_batch_id: b.provider_batch_id.clone(),
        reference: b.reference.clone(),
        payout_count: b.payout_count,
        total_micros: Micros(b.total_micros),
        total: format_micros(b.total_micros),
        currency: b.currency.clone(),
        error: b.error.clone(),
        created_by: b.created_by.clone(),
        created_at: b.created_at,
        completed_at: b.completed_at,
        payouts: payouts.iter().map(view).collect(),
    }
}

/// The payout's sealed details, opened to send the money (the batch's audit entry names who
/// sent it).
fn details_of(ctx: &Ctx, p: &payout::Model) -> Result<String, AppError> {
    ctx.keys.open(&seal_binding(&p.id), &p.details_sealed)
}

/// Applies what the rail reports of one payout, once: SENDING → PAID, SENDING or PAID →
/// FAILED (the money returns), anything else unchanged. Returns the payout's status after.
pub async fn apply_report(
    ctx: &Ctx,
    batch_id: Option<&str>,
    r: &PayoutItemReport,
) -> Result<Option<PayoutStatus>, AppError> {
    let Some(row) = payout::Entity::find_by_id(r.payout_id.clone())
        .one(&ctx.db)
        .await?
    else {
        return Ok(None);
    };
    // An item of another batch than the one reported (a payout sent again) is not ours to move.
    if batch_id.is_some_and(|b| row.batch_id.as_deref() != Some(b)) {
        return Ok(Some(row.status));
    }
    let from: &'static [PayoutStatus] = match r.outcome {
        PayoutItemOutcome::Paid if row.status == PayoutStatus::Sending => &[PayoutStatus::Sending],
        PayoutItemOutcome::Failed
            if matches!(row.status, PayoutStatus::Sending | PayoutStatus::Paid) =>
        {
            &[PayoutStatus::Sending, PayoutStatus::Paid]
        }
        _ => return Ok(Some(row.status)),
    };
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let (item, transaction, detail) = (
        r.item_id.clone(),
        r.transaction_id.clone(),
        r.detail.clone(),
    );
    let paid = r.outcome == PayoutItemOutcome::Paid;
    let saved = transition(
        &txn,
        now,
        None,
        &row.id,
        |p| {
            let posting = if paid {
                (
                    ledger::TransactionKind::PayoutPaid,
                    ledger::payout_paid_legs(&p.publisher_id, &p.id, p.amount_micros),
                )
            } else {
                let was_paid = p.status == PayoutStatus::Paid;
                (
                    ledger::TransactionKind::PayoutReturn,
                    ledger::payout_return_legs(&p.publisher_id, &p.id, p.amount_micros, was_paid),
                )
            };
            Transition {
                from,
                to: if paid { PayoutStatus::Paid } else { PayoutStatus::Failed },
                posting: Some(posting),
                action: if paid { "payout.paid" } else { "payout.failed" },
                detail: serde_json::json!({"itemId": item, "transactionId": transaction, "report": detail}),
            }
        },
        |a| {
            a.provider_item_id = Set(Some(r.item_id.clone()));
            if paid {
                a.external_reference =
                    Set(Some(r.transaction_id.clone().unwrap_or_else(|| r.item_id.clone())));
                a.paid_at = Set(Some(now));
            } else {
                a.reason = Set(Some(r.detail.clone()));
                a.closed_at = Set(Some(now));
            }
        },
    )
    .await;
    let saved = match saved {
        Ok(s) => s,
        // Another process applied the same report first: its answer stands.
        Err(e) if e.code == "invalid_transition" => return Ok(None),
        Err(e) => return Err(e),
    };
    if let Some(told) = super::decisions::notice_of(&saved) {
        notices::tell(ctx, &txn, now, &saved.publisher_id, told).await?;
    }
    txn.commit().await?;
    if let Some(b) = &saved.batch_id {
        complete_if_done(ctx, b).await?;
    }
    Ok(Some(saved.status))
}

/// Marks a batch COMPLETED once none of its payouts is SENDING.
async fn complete_if_done(ctx: &Ctx, batch_id: &str) -> Result<(), AppError> {
    let sending = payout::Entity::find()
        .filter(payout::Column::BatchId.eq(batch_id.to_owned()))
        .filter(payout::Column::Status.eq(PayoutStatus::Sending))
        .count(&ctx.db)
        .await?;
    if sending == 0 {
        let now = ctx.now();
        payout_batch::Entity::update_many()
            .col_expr(
                payout_batch::Column::Status,
                Expr::value(PayoutBatchStatus::Completed),
            )
            .col_expr(payout_batch::Column::CompletedAt, Expr::value(Some(now)))
            .col_expr(payout_batch::Column::UpdatedAt, Expr::value(now))
            .filter(payout_batch::Column::Id.eq(batch_id.to_owned()))
            .filter(payout_batch::Column::Status.ne(PayoutBatchStatus::Completed))
            .exec(&ctx.db)
            .await?;
    }
    Ok(())
}
