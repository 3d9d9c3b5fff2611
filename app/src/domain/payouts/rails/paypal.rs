//! PayPal Payouts: a batch is sent once (the batch id is PayPal's `sender_batch_id` and the
//! request id, so a retry after a lost answer is answered with the first result), and what
//! became of each item arrives by PayPal's `PAYMENT.PAYOUTS-ITEM.*` webhooks and by polling
//! the batch (a lost webhook is healed within [`POLL_EVERY`]). A batch PayPal refuses as a
//! whole puts its payouts back to APPROVED, their money still held, for the operator to
//! retry or fail them.

use std::collections::BTreeMap;

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use super::{apply_report, complete_if_done, details_of};
use crate::domain::Ctx;
use crate::domain::billing::payprovider::{BatchSubmission, PayoutItem, PayoutItemReport};
use crate::error::AppError;
use crate::model::billing::ProviderEventReceipt;
use crate::model::money::Micros;
use crate::model::publisher::payout_batches::{PayoutBatchStatus, PayoutRail};
use crate::model::publisher::payouts::PayoutStatus;
use entity::{payout, payout_batch};

/// How often a sent batch's items are asked about when no webhook came.
pub const POLL_EVERY: chrono::Duration = chrono::Duration::minutes(1);
/// How many batches one worker round looks at.
const BATCHES_PER_ROUND: u64 = 20;

/// Sends a SUBMITTING batch to PayPal. Not reaching PayPal leaves it SUBMITTING (the error
/// is kept; the worker tries again); PayPal's refusal puts its payouts back to APPROVED.
pub async fn submit(ctx: &Ctx, b: &payout_batch::Model) -> Result<(), AppError> {
    let payouts = payout::Entity::find()
        .filter(payout::Column::BatchId.eq(b.id.clone()))
        .filter(payout::Column::Status.eq(PayoutStatus::Sending))
        .order_by_asc(payout::Column::Id)
        .all(&ctx.db)
        .await?;
    let items = payouts
        .iter()
        .map(|p| {
            Ok(PayoutItem {
                payout_id: p.id.clone(),
                receiver: details_of(ctx, p)?,
                amount_micros: Micros(p.amount_micros),
                currency: p.currency.clone(),
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    let now = ctx.now();
    let answer = ctx.payments.send_payouts(&b.id, &items).await;
    let update = payout_batch::Entity::update_many()
        .col_expr(payout_batch::Column::UpdatedAt, Expr::value(now))
        .filter(payout_batch::Column::Id.eq(b.id.clone()))
        .filter(payout_batch::Column::Status.eq(PayoutBatchStatus::Submitting));
    match answer {
        Ok(BatchSubmission::Accepted { provider_batch_id }) => {
            update
                .col_expr(
                    payout_batch::Column::Status,
                    Expr::value(PayoutBatchStatus::Sent),
                )
                .col_expr(
                    payout_batch::Column::ProviderBatchId,
                    Expr::value(Some(provider_batch_id)),
                )
                .col_expr(payout_batch::Column::Error, Expr::value(None::<String>))
                .exec(&ctx.db)
                .await?;
            Ok(())
        }
        Ok(BatchSubmission::Refused { reason }) => {
            tracing::warn!(batch = %b.id, %reason, "PayPal refused a payout batch");
            let txn = crate::domain::db::begin(&ctx.db).await?;
            update
                .col_expr(
                    payout_batch::Column::Status,
                    Expr::value(PayoutBatchStatus::Refused),
                )
                .col_expr(
                    payout_batch::Column::Error,
                    Expr::value(Some(reason.clone())),
                )
                .exec(&txn)
                .await?;
            payout::Entity::update_many()
                .col_expr(payout::Column::Status, Expr::value(PayoutStatus::Approved))
                .col_expr(payout::Column::BatchId, Expr::value(None::<String>))
                .col_expr(payout::Column::UpdatedAt, Expr::value(now))
                .filter(payout::Column::BatchId.eq(b.id.clone()))
                .filter(payout::Column::Status.eq(PayoutStatus::Sending))
                .exec(&txn)
                .await?;
            let detail = serde_json::json!({"reason": reason});
            crate::domain::audit::record(
                &txn,
                now,
                None,
                "payout_batch.refused",
                ("payout_batch", &b.id),
                detail,
            )
            .await?;
            txn.commit().await?;
            Ok(())
        }
        Err(e) => {
            tracing::warn!(batch = %b.id, error = %e, "PayPal could not be reached; the batch is sent again");
            update
                .col_expr(
                    payout_batch::Column::Error,
                    Expr::value(Some(e.message.clone())),
                )
                .exec(&ctx.db)
                .await?;
            Ok(())
        }
    }
}

/// Asks PayPal about one sent batch and applies what it says of each item.
pub async fn check(ctx: &Ctx, b: &payout_batch::Model) -> Result<(), AppError> {
    let Some(provider_id) = &b.provider_batch_id else {
        return Ok(());
    };
    let reports = ctx.payments.payout_items(provider_id).await?;
    for r in &reports {
        apply_report(ctx, Some(&b.id), r).await?;
    }
    payout_batch::Entity::update_many()
        .col_expr(
            payout_batch::Column::CheckedAt,
            Expr::value(Some(ctx.now())),
        )
        .filter(payout_batch::Column::Id.eq(b.id.clone()))
        .exec(&ctx.db)
        .await?;
    complete_if_done(ctx, &b.id).await
}

/// One worker round: sends batches still SUBMITTING and polls sent ones not asked about
/// for [`POLL_EVERY`]. Returns how many batches it looked at.
pub async fn run_once(ctx: &Ctx) -> Result<usize, AppError> {
    if !ctx.payments.sends_payouts() {
        return Ok(0);
    }
    let due = ctx.now() - POLL_EVERY;
    let batches = payout_batch::Entity::find()
        .filter(payout_batch::Column::Rail.eq(PayoutRail::PayPal))
        .filter(
            Condition::any()
                .add(payout_batch::Column::Status.eq(PayoutBatchStatus::Submitting))
                .add(
                    Condition::all()
                        .add(payout_batch::Column::Status.eq(PayoutBatchStatus::Sent))
                        .add(
                            Condition::any()
                                .add(payout_batch::Column::CheckedAt.is_null())
                                .add(payout_batch::Column::CheckedAt.lt(due)),
                        ),
                ),
        )
        .order_by_asc(payout_batch::Column::UpdatedAt)
        .limit(BATCHES_PER_ROUND)
        .all(&ctx.db)
        .await?;
    for b in &batches {
        // One batch that keeps failing (a payee's details that no longer open, a database
        // hiccup) is logged and retried next round; it never holds up the others.
        let done = match b.status {
            PayoutBatchStatus::Submitting => submit(ctx, b).await,
            _ => check(ctx, b).await,
        };
        if let Err(e) = done {
            tracing::warn!(batch = %b.id, error = %e, "payout batch not sent or checked; retried");
        }
    }
    Ok(batches.len())
}

/// `POST /admin/v1/payout-batches/{id}/refresh`: asks PayPal now (or sends it again).
pub async fn refresh(
    ctx: &Ctx,
    actor: &crate::domain::Principal,
    id: &str,
) -> Result<crate::model::publisher::payout_batches::PayoutBatch, AppError> {
    actor.require_admin()?;
    let b = payout_batch::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("payout batch"))?;
    if b.rail != PayoutRail::PayPal {
        return Err(
            AppError::conflict("only PayPal batches are asked about; confirm a bank file")
                .with_code("invalid_transition"),
        );
    }
    match b.status {
        PayoutBatchStatus::Submitting => submit(ctx, &b).await?,
        PayoutBatchStatus::Sent => check(ctx, &b).await?,
        PayoutBatchStatus::Completed | PayoutBatchStatus::Refused => {}
    }
    super::get(ctx, actor, id).await
}

/// PayPal's `PAYMENT.PAYOUTS-ITEM.*` webhook: verified by PayPal when it would change a
/// payout, then applied like a poll's answer.
pub async fn receive(
    ctx: &Ctx,
    headers: &BTreeMap<String, String>,
    body: &[u8],
    r: &PayoutItemReport,
) -> Result<ProviderEventReceipt, AppError> {
    let row = payout::Entity::find_by_id(r.payout_id.clone())
        .one(&ctx.db)
        .await?;
    let mut receipt = ProviderEventReceipt {
        event_type: "PAYMENT.PAYOUTS-ITEM".to_owned(),
        payout_id: row.as_ref().map(|p| p.id.clone()),
        payout_status: row.as_ref().map(|p| p.status),
        ..Default::default()
    };
    let Some(row) = row else {
        return Ok(receipt);
    };
    let changes = matches!(
        (r.outcome, row.status),
        (
            crate::domain::billing::payprovider::PayoutItemOutcome::Paid,
            PayoutStatus::Sending
        ) | (
            crate::domain::billing::payprovider::PayoutItemOutcome::Failed,
            PayoutStatus::Sending | PayoutStatus::Paid
        )
    );
    if changes {
        ctx.payments.verify_event(headers, body).await?;
        if let Some(status) = apply_report(ctx, row.batch_id.as_deref(), r).await? {
            receipt.payout_status = Some(status);
        }
    }
    Ok(receipt)
}
