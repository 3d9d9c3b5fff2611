//! Fraud review from the dashboards (issue 51): the same domain calls as
//! `/admin/v1/fraud/*`, `/publisher/v2/fraud*` and the conversions' decisions. The
//! administrators' bulk decision is a plain form (`POST /admin/fraud/decide`, handled in
//! `server`), since checkboxes send one field per checked conversion.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::fraud::{DecisionResults, FraudOverview, HeldList};

#[cfg(feature = "ssr")]
use super::web::{reader, run, writer};

#[cfg(feature = "ssr")]
fn held_query(
    placement: Option<String>,
    signal: Option<String>,
    cursor: Option<String>,
) -> crate::model::fraud::HeldQuery {
    crate::model::fraud::HeldQuery {
        placement_id: placement.filter(|p| !p.trim().is_empty()),
        signal: signal.filter(|s| !s.trim().is_empty()),
        cursor: cursor.filter(|c| !c.trim().is_empty()),
        limit: Some(50),
        ..Default::default()
    }
}

/// The caller's placements' rates (a publisher), or every placement with held conversions
/// or a pause (an administrator).
#[server(prefix = "/fn", endpoint = "fraud_summary")]
pub async fn fraud_summary() -> Result<FraudOverview, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::conversions::holds::fraud_overview(&ctx, &p).await
    })
    .await
}

/// A page (50) of held conversions: every one for an administrator, the caller's
/// placements' for a publisher.
#[server(prefix = "/fn", endpoint = "fraud_holds")]
pub async fn held_conversions(
    placement: Option<String>,
    signal: Option<String>,
    cursor: Option<String>,
) -> Result<HeldList, AppError> {
    run(async move {
        use crate::domain::conversions::holds;
        let (ctx, p) = reader().await?;
        let q = held_query(placement, signal, cursor);
        if p.role.is_admin() {
            holds::admin_queue(&ctx, &p, &q).await
        } else {
            holds::publisher_holds(&ctx, &p, &q).await
        }
    })
    .await
}

/// Approves or rejects one held conversion (the advertiser's own, or any for an
/// administrator).
#[server(prefix = "/fn", endpoint = "fraud_decide")]
pub async fn decide_hold(
    conversion_id: String,
    decision: String,
    note: Option<String>,
    csrf: String,
) -> Result<DecisionResults, AppError> {
    run(async move {
        use crate::model::fraud::{HoldDecision, HoldDecisionInput};
        let (ctx, _, p) = writer(&csrf).await?;
        let input = HoldDecisionInput {
            conversion_ids: vec![conversion_id],
            decision: HoldDecision::parse(decision.trim()),
            note,
        };
        crate::domain::conversions::holds::decide(&ctx, &p, input).await
    })
    .await
}

/// Pauses (`pause`) or resumes (`resume`) a placement's delivery, with a note.
#[server(prefix = "/fn", endpoint = "fraud_delivery")]
pub async fn set_delivery(
    placement_id: String,
    action: String,
    note: Option<String>,
    csrf: String,
) -> Result<(), AppError> {
    run(async move {
        use crate::domain::fraud::guard;
        use crate::model::fraud::DeliveryPauseInput;
        let (ctx, _, p) = writer(&csrf).await?;
        let input = DeliveryPauseInput { note };
        match action.as_str() {
            "pause" => guard::pause_by_admin(&ctx, &p, placement_id.trim(), input).await,
            "resume" => guard::resume(&ctx, &p, placement_id.trim(), input).await,
            _ => Err(AppError::field("action", "must be pause or resume")),
        }
    })
    .await
}
