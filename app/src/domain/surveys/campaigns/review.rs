//! The administrator's review of survey campaigns: the queue of campaigns awaiting approval,
//! approval (a funded campaign goes LIVE), rejection back to DRAFT with a reason the
//! advertiser sees (kept in the campaign's metadata until it is submitted again), and the
//! record of a payment made outside the wallet.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, QueryFilter, Set};

use super::input::Metadata;
use super::{SUBJECT, list_of, locked, view_of};
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, db};
use crate::error::{AppError, FieldErrors};
use crate::model::survey::campaign::*;
use entity::survey_campaign as survey;

/// Campaigns submitted for approval, oldest first (the queue's order), a page at a time.
pub async fn pending(
    ctx: &Ctx,
    actor: &Principal,
    page: &crate::domain::paging::Page,
) -> Result<SurveyCampaignList, AppError> {
    actor.require_admin()?;
    let q = survey::Entity::find()
        .filter(survey::Column::Status.eq(SurveyStatus::PendingApproval.as_str()));
    let rows = page
        .select_oldest_first(q, survey::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |m| &m.id);
    list_of(ctx, &rows, next_cursor).await
}

/// Sends a PENDINGAPPROVAL campaign back to DRAFT with `reason` (3 to 500 characters); the
/// advertiser fixes it and submits again. Money allocated from the wallet stays allocated.
pub async fn reject(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    reason: &str,
) -> Result<SurveyCampaign, AppError> {
    actor.require_admin()?;
    let reason = reason.trim();
    if !(3..=500).contains(&reason.chars().count()) {
        let mut errs = FieldErrors::new();
        errs.add("reason", "must be 3 to 500 characters");
        errs.finish()?;
    }
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    if m.status != SurveyStatus::PendingApproval {
        return Err(AppError::conflict(format!(
            "only a campaign awaiting approval can be rejected; this one is {}",
            m.status
        ))
        .with_code("invalid_transition"));
    }
    let mut meta: Metadata = serde_json::from_str(&m.metadata).unwrap_or_default();
    meta.rejection_reason = Some(reason.to_owned());
    let mut a = m.clone().into_active_model();
    a.status = Set(SurveyStatus::Draft);
    a.metadata = Set(serde_json::to_string(&meta).unwrap_or_else(|_| "{}".into()));
    let detail = serde_json::json!({"reason": reason, "revision": m.revision});
    commit(ctx, txn, actor, a, ("survey_campaign.rejected", detail)).await
}

/// Administrator approval (CONTRACT section 3): a paid DRAFT or PENDINGAPPROVAL campaign goes LIVE.
/// `reviewed` is the revision the administrator looked at: a newer one is 409 `revision_changed`.
pub async fn approve(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    reviewed: Option<i64>,
) -> Result<SurveyCampaign, AppError> {
    actor.require_admin()?;
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    if let Some(r) = reviewed.filter(|r| *r != m.revision) {
        return Err(AppError::conflict(format!(
            "revision {r} was reviewed, but the campaign is at revision {} now; review it again",
            m.revision
        ))
        .with_code("revision_changed"));
    }
    if !matches!(
        m.status,
        SurveyStatus::Draft | SurveyStatus::PendingApproval
    ) {
        return Err(AppError::conflict(format!(
            "a {} survey campaign cannot be approved",
            m.status
        ))
        .with_code("invalid_transition"));
    }
    if m.payment_status == PaymentStatus::Unpaid {
        return Err(AppError::conflict(
            "the campaign is not funded: allocate wallet balance or record an external payment",
        )
        .with_code("campaign_not_funded"));
    }
    let detail = serde_json::json!({"payment": m.payment_status, "revision": m.revision});
    let mut a = m.into_active_model();
    a.status = Set(SurveyStatus::Live);
    commit(ctx, txn, actor, a, ("survey_campaign.approved", detail)).await
}

/// Administrator: the campaign was paid outside the wallet (an invoice, a contract), so the
/// wallet never charges it.
pub async fn record_external_payment(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<SurveyCampaign, AppError> {
    actor.require_admin()?;
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    match m.payment_status {
        PaymentStatus::External => {
            let out = view_of(ctx, &txn, &m).await?;
            ctx.commit_and_announce(txn, [Change::Surveys]).await?;
            return Ok(out);
        }
        PaymentStatus::Wallet => {
            return Err(AppError::conflict("the wallet already paid this campaign")
                .with_code("already_paid"));
        }
        PaymentStatus::Unpaid => {}
    }
    let mut a = m.into_active_model();
    a.payment_status = Set(PaymentStatus::External);
    commit(
        ctx,
        txn,
        actor,
        a,
        ("survey_campaign.paid_externally", serde_json::json!({})),
    )
    .await
}

/// Writes a review decision: the row (with `updated_at` now), its audit entry, the answer,
/// the commit and the announcement to the survey caches.
async fn commit(
    ctx: &Ctx,
    txn: sea_orm::DatabaseTransaction,
    actor: &Principal,
    mut a: survey::ActiveModel,
    (action, detail): (&str, serde_json::Value),
) -> Result<SurveyCampaign, AppError> {
    let now = ctx.now();
    a.updated_at = Set(now);
    let m = a.update(&txn).await?;
    actor
        .audit(&txn, now, action, (SUBJECT, &m.id), detail)
        .await?;
    let out = view_of(ctx, &txn, &m).await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(out)
}
