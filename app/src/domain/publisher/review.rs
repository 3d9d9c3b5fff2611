//! Administrator review and production release of placements (CONTRACT.md section 3).

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::{commit_placement, placements, slots};
use crate::domain::changes::Change;
use crate::domain::notices::{self, Notice};
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::NoticeTopic;
use crate::model::publisher::*;
use entity::placement;

async fn load<C: sea_orm::ConnectionTrait>(db: &C, id: &str) -> Result<placement::Model, AppError> {
    placement::Entity::find_by_id(id.to_owned())
        .filter(placement::Column::ArchivedAt.is_null())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("placement"))
}

/// PENDING_REVIEW → VERIFIED or REJECTED, with the note kept and the decision audited.
pub async fn review(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: ReviewRequest,
) -> Result<Placement, AppError> {
    actor.require_admin()?;
    let note = req
        .note
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty());
    if note.as_ref().is_some_and(|n| n.chars().count() > 2000) {
        return Err(AppError::field("note", "must be at most 2000 characters"));
    }
    if req.decision == ReviewDecision::Rejected && note.is_none() {
        return Err(AppError::field(
            "note",
            "is required when rejecting, so the publisher knows what to fix",
        ));
    }
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = load(&txn, id).await?;
    if p.status != PlacementStatus::PendingReview {
        return Err(AppError::conflict(format!(
            "only PENDING_REVIEW placements are reviewed; this one is {}",
            p.status
        )));
    }
    let mut am: placement::ActiveModel = p.into();
    am.status = Set(match req.decision {
        ReviewDecision::Verified => PlacementStatus::Verified,
        ReviewDecision::Rejected => PlacementStatus::Rejected,
    });
    am.review_note = Set(note.clone());
    am.reviewed_at = Set(Some(now));
    am.updated_at = Set(now);
    let p = am.update(&txn).await?;
    slots::refresh_readiness(&txn, &p, now).await?;
    let told = match req.decision {
        ReviewDecision::Verified => Notice::new(
            NoticeTopic::PlacementVerified,
            format!("Placement “{}” is verified", p.name),
            format!(
                "An administrator verified placement “{}”. It can be released to production \
                 now; test sessions work already.",
                p.name
            ),
        ),
        ReviewDecision::Rejected => Notice::new(
            NoticeTopic::PlacementRejected,
            format!("Placement “{}” was not verified", p.name),
            format!(
                "An administrator rejected placement “{}”: {}\n\nChange what the note names and \
                 submit it for review again.",
                p.name,
                note.as_deref().unwrap_or_default()
            ),
        ),
    }
    .about(
        "placement",
        &p.id,
        format!("/publisher/placements/{}", p.id),
    );
    notices::tell(ctx, &txn, now, &p.owner_account_id, told).await?;
    let detail = serde_json::json!({"decision": req.decision.as_str(), "note": note});
    commit_placement(ctx, txn, (actor, now), "placement.review", id, detail).await?;
    placements::get(ctx, actor, id).await
}

/// Sets `released` on a VERIFIED placement (production sessions become possible).
pub async fn release(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Placement, AppError> {
    actor.require_admin()?;
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = load(&txn, id).await?;
    if p.status != PlacementStatus::Verified {
        return Err(AppError::conflict(format!(
            "only VERIFIED placements are released; this one is {}",
            p.status
        )));
    }
    if !p.released {
        let mut am: placement::ActiveModel = p.into();
        am.released = Set(true);
        am.released_at = Set(Some(now));
        am.updated_at = Set(now);
        let p = am.update(&txn).await?;
        let told = Notice::new(
            NoticeTopic::PlacementReleased,
            format!("Placement “{}” is live", p.name),
            format!(
                "An administrator released placement “{}” to production: production sessions \
                 show offers and conversions earn.",
                p.name
            ),
        )
        .about(
            "placement",
            &p.id,
            format!("/publisher/placements/{}", p.id),
        );
        notices::tell(ctx, &txn, now, &p.owner_account_id, told).await?;
        actor
            .audit(
                &txn,
                now,
                "placement.release",
                ("placement", id),
                serde_json::json!({}),
            )
            .await?;
    }
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    placements::get(ctx, actor, id).await
}

/// Placements in a status (default PENDING_REVIEW), oldest first: the review queue.
pub async fn queue(
    ctx: &Ctx,
    actor: &Principal,
    status: Option<&str>,
    page: &Page,
) -> Result<PlacementList, AppError> {
    actor.require_admin()?;
    let status = match status.filter(|s| !s.is_empty()) {
        Some(s) => PlacementStatus::parse(s)
            .ok_or_else(|| AppError::field("status", "unknown placement status"))?,
        None => PlacementStatus::PendingReview,
    };
    let q = placement::Entity::find()
        .filter(placement::Column::ArchivedAt.is_null())
        .filter(placement::Column::Status.eq(status.as_str()));
    let rows = page
        .select_oldest_first(q, placement::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |p| &p.id);
    let mut list = placements::list_of(ctx, &rows).await?;
    list.next_cursor = next_cursor;
    Ok(list)
}
