//! Signed user identity of a placement: the secret its server signs users with, and whether
//! sessions need a signed user to read the user's support and reward history.

use app::domain::publisher::user_identity;
use app::error::AppError;
use app::model::user_identity::*;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, Authenticated, EmptyObject};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(settings, update))
        .routes(routes!(issue_secret))
}

/// The placement's signed-user-identity setting.
#[utoipa::path(get, path = "/placements/{placementId}/user-identity", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)),
    responses((status = 200, body = UserIdentitySettings), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn settings(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<UserIdentitySettings>, AppError> {
    user_identity::settings(&s.ctx, &p, &id).await.map(AppJson)
}

/// Require (or stop requiring) a signed user before a session reads the user's support
/// cases and reward history. Requiring needs a secret (409 `no_user_identity_secret`).
#[utoipa::path(put, path = "/placements/{placementId}/user-identity", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), request_body = UserIdentityUpdate,
    responses((status = 200, body = UserIdentitySettings), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn update(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<UserIdentityUpdate>,
) -> Result<AppJson<UserIdentitySettings>, AppError> {
    user_identity::set_required(&s.ctx, &p, &id, b)
        .await
        .map(AppJson)
}

/// Issue the placement's user identity secret (shown once; the previous one stops at once).
#[utoipa::path(post, path = "/placements/{placementId}/user-identity/secret", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)),
    responses((status = 201, body = UserIdentitySecret), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn issue_secret(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<UserIdentitySecret>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(user_identity::issue_secret(&s.ctx, &p, &id).await?),
    ))
}
