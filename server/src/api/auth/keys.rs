//! API keys for the dashboard API (`/auth/v1/api-keys`, docs/accounts.md): list, create
//! (shown once; a second-factor code first when the account has one), revoke.

use app::domain::accounts::api_keys;
use app::error::AppError;
use app::model::api_key::{ApiKeyCreate, ApiKeyIssued, ApiKeyList};
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::{AppJson, AppPath, Authenticated, SecondFactor};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_api_keys, create_api_key))
        .routes(routes!(revoke_api_key))
}

/// The account's API keys, newest first (revoked ones for 30 days); never the keys
/// themselves. Needs a dashboard token: API keys cannot manage API keys.
#[utoipa::path(get, path = "/api-keys", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 200, body = ApiKeyList), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody)))]
async fn list_api_keys(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<ApiKeyList>, AppError> {
    Ok(AppJson(api_keys::list(&state.ctx, &p).await?))
}

/// Create an API key for the dashboard API: named, granted `area:access` scopes, optionally
/// expiring. The key (`mkt_key_…`) is in this answer only; send it as
/// `Authorization: Bearer <key>` wherever a dashboard token is accepted, within its grants
/// (403 `insufficient_scope` otherwise). The owner is told by mail. At most 25 active keys
/// (409 `too_many_keys`).
#[utoipa::path(post, path = "/api-keys", tag = "auth", security(("dashboardBearer" = [])), request_body = ApiKeyCreate, params(("X-Second-Factor" = Option<String>, Header, description = "A current code of the account's second factor (six digits, or a recovery code); required when the account has one (403 `step_up_required` without it)")),
    responses((status = 201, body = ApiKeyIssued), (status = 400, body = crate::api::ErrorBody), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody)))]
async fn create_api_key(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    SecondFactor(code): SecondFactor,
    AppJson(req): AppJson<ApiKeyCreate>,
) -> Result<(StatusCode, AppJson<ApiKeyIssued>), AppError> {
    let issued = api_keys::create(&state.ctx, &p, &req, code.as_deref()).await?;
    Ok((StatusCode::CREATED, AppJson(issued)))
}

/// Revoke an API key: it is refused at once, in every process. Revoking it again is a no-op.
#[utoipa::path(delete, path = "/api-keys/{keyId}", tag = "auth", security(("dashboardBearer" = [])),
    params(("keyId" = String, Path, description = "The key's id (`key_…`)")),
    responses((status = 204, description = "Revoked"), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody), (status = 404, body = crate::api::ErrorBody)))]
async fn revoke_api_key(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    api_keys::revoke(&state.ctx, &p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
