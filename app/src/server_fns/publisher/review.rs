//! Placement review from the administrator's dashboard: the queue, the verdict and the
//! release.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::*;

/// Placements in `status` (default PENDING_REVIEW), oldest first.
#[server(prefix = "/fn", endpoint = "admin_placement_queue")]
pub async fn placement_queue(status: Option<String>) -> Result<PlacementList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = crate::domain::paging::Page::default();
        crate::domain::publisher::review::queue(&ctx, &p, status.as_deref(), &page).await
    })
    .await
}

/// Verify or reject: the submit button carries `decision`.
#[server(prefix = "/fn", endpoint = "admin_review_placement")]
pub async fn review_placement(
    placement_id: String,
    decision: String,
    note: Option<String>,
    csrf: String,
) -> Result<Placement, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let decision = ReviewDecision::parse(decision.trim())
            .ok_or_else(|| AppError::field("decision", "must be VERIFIED or REJECTED"))?;
        let req = ReviewRequest { decision, note };
        crate::domain::publisher::review::review(&ctx, &p, &placement_id, req).await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "admin_release_placement")]
pub async fn release_placement(placement_id: String, csrf: String) -> Result<Placement, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::publisher::review::release(&ctx, &p, &placement_id).await
    })
    .await
}
