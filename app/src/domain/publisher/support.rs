//! Support cases in the publisher console: the cases end users open through the SDK, for the
//! publisher's placements. Status moves OPEN → IN_PROGRESS → RESOLVED or REJECTED (a closed
//! case can be reopened to IN_PROGRESS).

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Set};

use crate::domain::{Ctx, Principal, audit};
use crate::error::AppError;
use crate::model::publisher_ops::*;
use entity::{placement, support_case};

/// Cases on the actor's placements, newest first, filtered by status and placement.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    status: Option<&str>,
    placement_id: Option<&str>,
) -> Result<SupportCaseList, AppError> {
    actor.require_publisher()?;
    let status = match status.filter(|s| !s.is_empty()) {
        Some(s) => Some(SupportStatus::parse(s).ok_or_else(|| {
            AppError::field("status", "must be OPEN, IN_PROGRESS, RESOLVED or REJECTED")
        })?),
        None => None,
    };
    let mut pq = placement::Entity::find();
    if !actor.role.is_admin() {
        pq = pq.filter(placement::Column::OwnerAccountId.eq(actor.account_id.clone()));
    }
    let placement_ids: Vec<String> = pq
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|p| p.id)
        .filter(|id| placement_id.is_none_or(|p| p == id))
        .collect();
    if placement_ids.is_empty() {
        return Ok(SupportCaseList {
            items: Vec::new(),
            count: 0,
        });
    }
    let mut q =
        support_case::Entity::find().filter(support_case::Column::PlacementId.is_in(placement_ids));
    if let Some(s) = status {
        q = q.filter(support_case::Column::Status.eq(s.as_str()));
    }
    let items: Vec<SupportCase> = q
        .order_by_desc(support_case::Column::CreatedAt)
        .all(&ctx.db)
        .await?
        .iter()
        .map(view)
        .collect();
    Ok(SupportCaseList {
        count: items.len(),
        items,
    })
}

/// Changes the status or note of a case on one of the actor's placements.
pub async fn patch(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    input: PatchSupportCase,
) -> Result<SupportCase, AppError> {
    actor.require_publisher()?;
    let note = input.publisher_note.map(|n| n.trim().to_owned());
    if note.as_ref().is_some_and(|n| n.chars().count() > 2000) {
        return Err(AppError::field(
            "publisherNote",
            "must be at most 2000 characters",
        ));
    }
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let row = support_case::Entity::find_by_id(id.to_owned())
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("support case"))?;
    let p = placement::Entity::find_by_id(row.placement_id.clone())
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("support case"))?;
    actor.require_owner(&p.owner_account_id, "support case")?;
    let from = SupportStatus::parse(&row.status).unwrap_or(SupportStatus::Open);
    if let Some(to) = input.status {
        let allowed = match (from, to) {
            (a, b) if a == b => true,
            (SupportStatus::Open, _) => true,
            (SupportStatus::InProgress, SupportStatus::Resolved | SupportStatus::Rejected) => true,
            (SupportStatus::Resolved | SupportStatus::Rejected, SupportStatus::InProgress) => true,
            _ => false,
        };
        if !allowed {
            return Err(AppError::conflict(format!(
                "a {} case cannot become {}",
                from.as_str(),
                to.as_str()
            )));
        }
    }
    let now = ctx.now();
    let mut am: support_case::ActiveModel = row.into();
    if let Some(to) = input.status {
        am.status = Set(to.as_str().to_owned());
    }
    if let Some(n) = note {
        am.publisher_note = Set(Some(n).filter(|n| !n.is_empty()));
    }
    am.updated_at = Set(now);
    let row = am.update(&txn).await?;
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "support_case.update",
        ("support_case", id),
        serde_json::json!({"status": row.status}),
    )
    .await?;
    txn.commit().await?;
    Ok(view(&row))
}

pub fn view(r: &support_case::Model) -> SupportCase {
    SupportCase {
        support_case_id: r.id.clone(),
        placement_id: r.placement_id.clone(),
        ad_slot_id: r.ad_slot_id.clone(),
        session_id: r.session_id.clone(),
        external_user_id: r.external_user_id.clone(),
        offer_id: r.offer_id.clone(),
        reason_code: r.reason_code.clone(),
        message: r.message.clone(),
        status: SupportStatus::parse(&r.status).unwrap_or(SupportStatus::Open),
        publisher_note: r.publisher_note.clone(),
        created_at: r.created_at,
        updated_at: r.updated_at,
    }
}
