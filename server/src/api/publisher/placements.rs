//! Placements: list, create, read, edit, request review, archive, and the survey app key.

use app::domain::publisher::{app_keys, placements};
use app::error::AppError;
use app::model::publisher::*;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(read, patch, delete))
        .routes(routes!(request_review))
        .routes(routes!(app_key))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Name (contains, case-insensitive), exact placement id, or exact platform identity.
    search: Option<String>,
    /// DRAFT, PENDING_REVIEW, VERIFIED or REJECTED.
    #[param(value_type = Option<app::model::publisher::PlacementStatus>, inline)]
    status: Option<String>,
    /// Placements per page, 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
    /// The `nextCursor` of the previous page.
    cursor: Option<String>,
}

/// Non-archived placements of the caller, newest first, one page at a time (`nextCursor`).
#[utoipa::path(get, path = "/placements", tag = "publisher", security(("dashboardBearer" = [])), params(ListQuery),
    responses((status = 200, body = PlacementList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<ListQuery>,
) -> Result<AppJson<PlacementList>, AppError> {
    let page = app::domain::paging::Page::parse(q.limit, q.cursor.as_deref(), "plc")?;
    placements::list(&s.ctx, &p, q.search.as_deref(), q.status.as_deref(), &page)
        .await
        .map(AppJson)
}

/// Create a DRAFT placement. `storeUrl` is required for app types; `minimumSdkVersion` defaults
/// to 2.0.0; `platformIdentity` is normalised (see the API description).
#[utoipa::path(post, path = "/placements", tag = "publisher", security(("dashboardBearer" = [])), request_body = CreatePlacement,
    responses((status = 201, body = Placement), (status = 400, body = ErrorBody)))]
async fn create(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<CreatePlacement>,
) -> Result<(StatusCode, AppJson<Placement>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(placements::create(&s.ctx, &p, b).await?),
    ))
}

/// One placement with its non-archived ad slots.
#[utoipa::path(get, path = "/placements/{placementId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 200, body = Placement), (status = 404, body = ErrorBody)))]
async fn read(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<Placement>, AppError> {
    placements::get(&s.ctx, &p, &id).await.map(AppJson)
}

/// Edit name, storeUrl, minimumSdkVersion, recommendedSdkVersion, requireConsent. `type` and
/// `platformIdentity` cannot change (400).
#[utoipa::path(patch, path = "/placements/{placementId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), request_body = PatchPlacement,
    responses((status = 200, body = Placement), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn patch(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<PatchPlacement>,
) -> Result<AppJson<Placement>, AppError> {
    placements::patch(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// Archive a placement without obligations (not released, no active or disabled slot, no
/// configured callback, no SDK session history); 409 otherwise.
#[utoipa::path(delete, path = "/placements/{placementId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 204), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn delete(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    placements::delete(&s.ctx, &p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// DRAFT or REJECTED → PENDING_REVIEW (body `{}`); 409 from any other status.
#[utoipa::path(post, path = "/placements/{placementId}/request-review", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), request_body(content = Object, description = "empty JSON object"),
    responses((status = 200, body = Placement), (status = 409, body = ErrorBody)))]
async fn request_review(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<Placement>, AppError> {
    placements::request_review(&s.ctx, &p, &id)
        .await
        .map(AppJson)
}

/// Issue the survey-fetch app key of the placement (shown once; replaces the previous key).
#[utoipa::path(post, path = "/placements/{placementId}/app-key", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 201, body = AppKeyIssued), (status = 404, body = ErrorBody)))]
async fn app_key(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<AppKeyIssued>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(app_keys::issue(&s.ctx, &p, &id).await?),
    ))
}
