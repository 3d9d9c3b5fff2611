//! Support cases in the publisher console: the cases end users open through the SDK, for the
//! publisher's placements. Status moves OPEN → IN_PROGRESS → RESOLVED or REJECTED (a closed
//! case can be reopened to IN_PROGRESS).

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::publisher::ops::*;
use entity::{placement, support_case};

/// Cases on the actor's placements, newest first, filtered by status and placement.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    status: Option<&str>,
    placement_id: Option<&str>,
    page: &crate::domain::paging::Page,
) -> Result<SupportCaseList, AppError> {
    actor.require_publisher()?;
    let status = match status.filter(|s| !s.is_empty()) {
        Some(s) => Some(SupportStatus::parse(s).ok_or_else(|| {
            AppError::field("status", "must be OPEN, IN_PROGRESS, RESOLVED or REJECTED")
        })?),
        None => None,
    };
    // The actor's placements as a subquery, so a publisher with many placements never
    // becomes a long bind list.
    let mut owned = sea_orm::sea_query::Query::select();
    owned.column(placement::Column::Id).from(placement::Entity);
    if !actor.role.is_admin() {
        owned.and_where(placement::Column::OwnerAccountId.eq(actor.account_id.clone()));
    }
    let mut q = support_case::Entity::find()
        .filter(support_case::Column::PlacementId.in_subquery(owned.to_owned()));
    if let Some(p) = placement_id {
        q = q.filter(support_case::Column::PlacementId.eq(p.to_owned()));
    }
    if let Some(s) = status {
        q = q.filter(support_case::Column::Status.eq(s));
    }
    page_of(ctx, q, page).await
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
    let from = row.status;
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
        am.status = Set(to);
    }
    if let Some(n) = note {
        am.publisher_note = Set(Some(n).filter(|n| !n.is_empty()));
    }
    am.updated_at = Set(now);
    let row = am.update(&txn).await?;
    let detail = serde_json::json!({"status": row.status});
    actor
        .audit(
            &txn,
            now,
            "support_case.update",
            ("support_case", id),
            detail,
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
        status: r.status,
        publisher_note: r.publisher_note.clone(),
        created_at: r.created_at,
        updated_at: r.updated_at,
        evidence: Vec::new(),
    }
}

/// One page of the cases `q` finds, newest first, with their evidence (the SDK's list and
/// the publisher's console share it).
pub(super) async fn page_of(
    ctx: &Ctx,
    q: sea_orm::Select<support_case::Entity>,
    page: &crate::domain::paging::Page,
) -> Result<SupportCaseList, AppError> {
    let rows = page
        .select(q, support_case::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |r| &r.id);
    let mut items: Vec<SupportCase> = rows.iter().map(view).collect();
    super::evidence::attach(&ctx.db, &mut items).await?;
    Ok(SupportCaseList {
        count: items.len(),
        items,
        next_cursor,
    })
}
