//! The administrator's side of payouts: the queue, approval, rejection, "mark paid" with the
//! external reference, and failure (also of a paid payout the bank returned).

use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, QueryFilter, QuerySelect, Set,
};

use super::{PayoutStatus, Transition, transition, view};
use crate::domain::billing::ledger;
use crate::domain::notices::{self, Notice};
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::NoticeTopic;
use crate::model::money::format_micros;
use crate::model::publisher::payouts::{Payout, PayoutDecision, PayoutList};
use entity::payout;

/// `GET /admin/v1/payouts?status=`: payouts in one status (default REQUESTED), newest first.
pub async fn queue(
    ctx: &Ctx,
    actor: &Principal,
    status: Option<&str>,
    page: Page,
) -> Result<PayoutList, AppError> {
    actor.require_admin()?;
    let status = match status {
        None => PayoutStatus::Requested,
        Some(s) => PayoutStatus::parse(s).ok_or_else(|| {
            AppError::field(
                "status",
                "must be REQUESTED, APPROVED, SENDING, PAID, CANCELLED, REJECTED or FAILED",
            )
        })?,
    };
    let q = payout::Entity::find().filter(payout::Column::Status.eq(status.as_str()));
    let rows = page.select(q, payout::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |p| &p.id);
    Ok(PayoutList {
        items: rows.iter().map(view).collect(),
        next_cursor,
    })
}

/// A required reason or reference, trimmed (1 to 500 characters).
fn required(field: &str, v: Option<&str>) -> Result<String, AppError> {
    let v = v.map(str::trim).unwrap_or_default();
    if v.is_empty() || v.chars().count() > 500 {
        return Err(AppError::field(
            field,
            "is required (at most 500 characters)",
        ));
    }
    Ok(v.to_owned())
}

async fn decide(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    change: impl FnOnce(&payout::Model) -> Transition<'static>,
    edit: impl FnOnce(&mut payout::ActiveModel),
) -> Result<Payout, AppError> {
    actor.require_admin()?;
    let txn = db::begin(&ctx.db).await?;
    let now = ctx.now();
    let saved = transition(&txn, now, Some(actor), id, change, edit).await?;
    if let Some(told) = notice_of(&saved) {
        notices::tell(ctx, &txn, now, &saved.publisher_id, told).await?;
    }
    txn.commit().await?;
    Ok(view(&saved))
}

/// What the publisher is told of a decision: that its payout was paid, or failed.
pub(super) fn notice_of(p: &payout::Model) -> Option<Notice> {
    let amount = format_micros(p.amount_micros);
    let (topic, title, body) = match p.status {
        PayoutStatus::Paid => (
            NoticeTopic::PayoutPaid,
            format!("Your payout of {amount} USD was paid"),
            format!(
                "Payout {} of {amount} USD was sent (reference {}). It reaches your account \
                 as fast as your bank or payment service credits it.",
                p.id,
                p.external_reference.as_deref().unwrap_or("none")
            ),
        ),
        PayoutStatus::Failed => (
            NoticeTopic::PayoutFailed,
            format!("Your payout of {amount} USD failed"),
            format!(
                "Payout {} of {amount} USD could not be paid: {}\n\nThe amount is back in \
                 your available balance. Check your payout details and request it again.",
                p.id,
                p.reason.as_deref().unwrap_or("no reason given")
            ),
        ),
        _ => return None,
    };
    Some(Notice::new(topic, title, body).about("payout", &p.id, "/publisher/earnings"))
}

/// `POST /admin/v1/payouts/{id}/approve`. A payout at or above the second-approval amount
/// needs two administrators: the first approval is recorded and the payout stays REQUESTED;
/// the same person approving again is refused (409 `second_approver_required`); another
/// administrator's approval makes it APPROVED.
pub async fn approve(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Payout, AppError> {
    actor.require_admin()?;
    if let Some(first) = first_approval(ctx, actor, id).await? {
        return Ok(first);
    }
    let now = ctx.now();
    let by = actor.account_id.clone();
    decide(
        ctx,
        actor,
        id,
        |p| Transition {
            from: &[PayoutStatus::Requested],
            to: PayoutStatus::Approved,
            posting: None,
            action: "payout.approved",
            detail: serde_json::json!({"firstApprovedBy": p.first_approved_by}),
        },
        |a| {
            a.approved_at = Set(Some(now));
            a.decided_by = Set(Some(by));
        },
    )
    .await
}

/// The first of two approvals of a large payout, recorded under the payout's lock: `Some`
/// when this approval was the first (the payout stays REQUESTED), `None` when the payout
/// needs no second approval or already has its first from another administrator.
async fn first_approval(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<Option<Payout>, AppError> {
    let threshold = ctx.config.payout_second_approval_micros;
    let txn = db::begin(&ctx.db).await?;
    let row = payout::Entity::find_by_id(id.to_owned())
        .lock_exclusive()
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("payout"))?;
    if threshold.get() == 0
        || row.amount_micros < threshold.get()
        || row.status != PayoutStatus::Requested
    {
        return Ok(None);
    }
    match row.first_approved_by.as_deref() {
        Some(first) if first == actor.person_id => Err(AppError::conflict(
            "you gave this payout its first approval; another administrator must give the second",
        )
        .with_code("second_approver_required")),
        Some(_) => Ok(None),
        None => {
            let now = ctx.now();
            let mut a = row.clone().into_active_model();
            a.first_approved_by = Set(Some(actor.person_id.clone()));
            a.first_approved_at = Set(Some(now));
            a.updated_at = Set(now);
            let saved = a.update(&txn).await?;
            let detail = serde_json::json!({
                "amountMicros": row.amount_micros,
                "secondApprovalFromMicros": threshold,
            });
            actor
                .audit(
                    &txn,
                    now,
                    "payout.first_approval",
                    ("payout", &row.id),
                    detail,
                )
                .await?;
            txn.commit().await?;
            Ok(Some(view(&saved)))
        }
    }
}

/// `POST /admin/v1/payouts/{id}/reject` with a reason: the money returns to the balance.
pub async fn reject(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    d: PayoutDecision,
) -> Result<Payout, AppError> {
    let to = (PayoutStatus::Rejected, "payout.rejected");
    close(
        ctx,
        actor,
        id,
        d,
        &[PayoutStatus::Requested, PayoutStatus::Approved],
        to,
    )
    .await
}

/// `POST /admin/v1/payouts/{id}/mark-paid` with the bank's or payment service's reference.
pub async fn mark_paid(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    d: PayoutDecision,
) -> Result<Payout, AppError> {
    let reference = required("externalReference", d.external_reference.as_deref())?;
    let now = ctx.now();
    let by = actor.account_id.clone();
    let detail = serde_json::json!({"externalReference": reference});
    decide(
        ctx,
        actor,
        id,
        |p| Transition {
            from: &[PayoutStatus::Approved],
            to: PayoutStatus::Paid,
            posting: Some((
                ledger::TransactionKind::PayoutPaid,
                ledger::payout_paid_legs(&p.publisher_id, &p.id, p.amount_micros),
            )),
            action: "payout.paid",
            detail,
        },
        |a| {
            a.external_reference = Set(Some(reference));
            a.paid_at = Set(Some(now));
            a.decided_by = Set(Some(by));
        },
    )
    .await
}

/// `POST /admin/v1/payouts/{id}/fail` with a reason: an approved payout that could not be
/// sent, or a paid one the bank returned. The money returns to the balance.
pub async fn fail(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    d: PayoutDecision,
) -> Result<Payout, AppError> {
    let to = (PayoutStatus::Failed, "payout.failed");
    close(
        ctx,
        actor,
        id,
        d,
        // Not SENDING: the rail may still pay it (its report or the bank file's
        // confirmation decides, so the money can never both return and leave).
        &[PayoutStatus::Approved, PayoutStatus::Paid],
        to,
    )
    .await
}

/// Ends a payout with a reason and returns its money to the available balance: from the
/// hold, or from the money paid out when it had been sent.
async fn close(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    d: PayoutDecision,
    from: &'static [PayoutStatus],
    (to, action): (PayoutStatus, &'static str),
) -> Result<Payout, AppError> {
    let reason = required("reason", d.reason.as_deref())?;
    let now = ctx.now();
    let by = actor.account_id.clone();
    let detail = serde_json::json!({"reason": reason});
    decide(
        ctx,
        actor,
        id,
        |p| {
            let was_paid = p.status == PayoutStatus::Paid;
            Transition {
                from,
                to,
                posting: Some((
                    ledger::TransactionKind::PayoutReturn,
                    ledger::payout_return_legs(&p.publisher_id, &p.id, p.amount_micros, was_paid),
                )),
                action,
                detail,
            }
        },
        |a| {
            a.reason = Set(Some(reason));
            a.closed_at = Set(Some(now));
            a.decided_by = Set(Some(by));
        },
    )
    .await
}
