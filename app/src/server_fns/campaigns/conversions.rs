//! The advertiser's conversion list and bulk reconciliation from the dashboard: the same
//! domain calls as `/performance-marketing/v2/conversions` and its `reconciliations`.
//! The form's transaction ids arrive as text, one per line (`transaction_id[,campaign_id]`,
//! as the CSV upload takes them).

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::campaign::conversions::ConversionList;
use crate::model::campaign::reconciliation::{
    Reconciliation, ReconciliationLines, ReconciliationList,
};

/// One page (50) of the caller's conversions with the list's filters.
#[server(prefix = "/fn", endpoint = "conversion_list")]
pub async fn advertiser_conversions(
    campaign: Option<String>,
    status: Option<String>,
    transaction: Option<String>,
    cursor: Option<String>,
) -> Result<ConversionList, AppError> {
    crate::server_fns::web::run(async move {
        use crate::model::campaign::conversions::ConversionQuery;
        let (ctx, p) = crate::server_fns::web::reader().await?;
        let q = ConversionQuery {
            campaign_id: campaign,
            status,
            transaction_id: transaction,
            limit: Some(50),
            cursor,
            ..Default::default()
        };
        crate::domain::conversions::list::list(&ctx, &p, None, &q).await
    })
    .await
}

/// The caller's latest reconciliations.
#[server(prefix = "/fn", endpoint = "reconciliation_list")]
pub async fn recent_reconciliations() -> Result<ReconciliationList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::reconciliation::list(&ctx, &p, Some(10), None).await
    })
    .await
}

/// Creates a reconciliation from the pasted lines and opens its preview (a form sent twice
/// makes one reconciliation: see `reconciliation::create_from_text`).
#[server(prefix = "/fn", endpoint = "reconciliation_create")]
pub async fn create_reconciliation(
    action: String,
    reason: String,
    lines: String,
    csrf: String,
) -> Result<String, AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::reconciliation;
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        let r = reconciliation::create_from_text(
            &ctx,
            &p,
            "dashboard",
            Some(action),
            Some(reason),
            &lines,
        )
        .await?;
        leptos_axum::redirect(&format!(
            "/advertiser/reconciliations/{}",
            r.reconciliation_id
        ));
        Ok(r.reconciliation_id)
    })
    .await
}

/// A reconciliation as it stands.
#[server(prefix = "/fn", endpoint = "reconciliation_get")]
pub async fn reconciliation_view(id: String) -> Result<Reconciliation, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::reconciliation::get(&ctx, &p, id.trim()).await
    })
    .await
}

/// One page (100) of a reconciliation's lines, optionally of one state.
#[server(prefix = "/fn", endpoint = "reconciliation_lines")]
pub async fn reconciliation_line_page(
    id: String,
    state: Option<String>,
    cursor: Option<String>,
) -> Result<ReconciliationLines, AppError> {
    crate::server_fns::web::run(async move {
        use crate::model::campaign::reconciliation::ReconciliationLineQuery;
        let (ctx, p) = crate::server_fns::web::reader().await?;
        let q = ReconciliationLineQuery {
            state,
            limit: Some(100),
            cursor,
            format: None,
        };
        crate::domain::reconciliation::lines(&ctx, &p, id.trim(), &q).await
    })
    .await
}

/// Queues a previewed reconciliation for applying.
#[server(prefix = "/fn", endpoint = "reconciliation_apply")]
pub async fn apply_reconciliation(id: String, csrf: String) -> Result<Reconciliation, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::reconciliation::queue(&ctx, &p, id.trim()).await
    })
    .await
}
