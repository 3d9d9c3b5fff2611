//! Administrator routes (CONTRACT.md section 3). Each decision is audited in the domain.

pub mod campaigns;
pub mod earning_terms;
pub mod fraud;
pub mod mail;
pub mod payout_batches;
pub mod payouts;

use app::domain::accounts;
use app::domain::billing::funding;
use app::domain::paging::Page;
use app::domain::publisher::review;
use app::error::AppError;
use app::model::AccountView;
use app::model::account::AccountList;
use app::model::billing::{Funding, FundingList};
use app::model::publisher::PlacementStatus;
use app::model::publisher::{Placement, PlacementList, ReviewRequest};
use axum::extract::State;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::api::paging::PageQuery;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(approve_advertiser))
        .routes(routes!(pending_advertisers))
        .routes(routes!(review_placement))
        .routes(routes!(release_placement))
        .routes(routes!(placement_queue))
        .routes(routes!(approve_funding))
        .routes(routes!(funding_queue))
        .merge(earning_terms::router())
        .merge(fraud::router())
        .merge(mail::router())
        .merge(payouts::router())
        .merge(payout_batches::router())
}

/// Approve a PENDING advertiser; it becomes ACTIVE.
#[utoipa::path(post, path = "/advertisers/{accountId}/approve", tag = "admin", security(("dashboardBearer" = [])),
    params(("accountId" = String, Path, description = "advertiser account id")),
    responses((status = 200, body = AccountView), (status = 403, body = super::ErrorBody), (status = 404, body = super::ErrorBody), (status = 409, body = super::ErrorBody)))]
async fn approve_advertiser(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(account_id): AppPath<String>,
) -> Result<AppJson<AccountView>, AppError> {
    accounts::approve_advertiser(&state.ctx, &p, &account_id)
        .await
        .map(AppJson)
}

/// Advertisers awaiting approval, oldest first, a page at a time: `{items, count,
/// nextCursor}`.
#[utoipa::path(get, path = "/advertisers/pending", tag = "admin", security(("dashboardBearer" = [])), params(PageQuery),
    responses((status = 200, body = AccountList), (status = 400, body = ErrorBody), (status = 403, body = super::ErrorBody)))]
async fn pending_advertisers(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<PageQuery>,
) -> Result<AppJson<AccountList>, AppError> {
    accounts::pending_advertisers(&state.ctx, &p, &q.page("acc")?)
        .await
        .map(AppJson)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct QueueQuery {
    /// Placement status to list (default PENDING_REVIEW).
    #[param(value_type = Option<PlacementStatus>, inline)]
    status: Option<String>,
    /// The previous page's `nextCursor`; omit for the first page.
    cursor: Option<String>,
    /// Items per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// Placements awaiting a decision (or in another status), oldest first, a page at a time.
#[utoipa::path(get, path = "/placements", tag = "admin", security(("dashboardBearer" = [])), params(QueueQuery),
    responses((status = 200, body = PlacementList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn placement_queue(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<QueueQuery>,
) -> Result<AppJson<PlacementList>, AppError> {
    let page = Page::parse(q.limit, q.cursor.as_deref(), "plc")?;
    review::queue(&state.ctx, &p, q.status.as_deref(), &page)
        .await
        .map(AppJson)
}

/// Decide a PENDING_REVIEW placement: VERIFIED or REJECTED (a note is required when rejecting).
#[utoipa::path(post, path = "/placements/{placementId}/review", tag = "admin", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), request_body = ReviewRequest,
    responses((status = 200, body = Placement), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn review_placement(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<ReviewRequest>,
) -> Result<AppJson<Placement>, AppError> {
    review::review(&state.ctx, &p, &id, b).await.map(AppJson)
}

/// Release a VERIFIED placement to production (`released` becomes true).
#[utoipa::path(post, path = "/placements/{placementId}/release", tag = "admin", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 200, body = Placement), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn release_placement(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<Placement>, AppError> {
    review::release(&state.ctx, &p, &id).await.map(AppJson)
}

/// Credit an AWAITING_REVIEW wire funding to the advertiser's balance (exactly once).
#[utoipa::path(post, path = "/funding/{fundingId}/approve", tag = "admin", security(("dashboardBearer" = [])),
    params(("fundingId" = String, Path)), responses((status = 200, body = Funding), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn approve_funding(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<Funding>, AppError> {
    funding::approve_wire(&state.ctx, &p, &id)
        .await
        .map(AppJson)
}

/// Wire fundings awaiting review, oldest first, a page at a time.
#[utoipa::path(get, path = "/funding", tag = "admin", security(("dashboardBearer" = [])), params(PageQuery),
    responses((status = 200, body = FundingList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn funding_queue(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<PageQuery>,
) -> Result<AppJson<FundingList>, AppError> {
    funding::review_queue(&state.ctx, &p, &q.page(funding::ID_PREFIX)?)
        .await
        .map(AppJson)
}
