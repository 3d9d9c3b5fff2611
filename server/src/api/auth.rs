//! Accounts and dashboard bearer tokens (CONTRACT.md section 2).

use crate::extract::ClientIp;
use app::domain::rate_limit::client_bucket;
use app::domain::{Policy, accounts, tokens};
use app::error::AppError;
use app::model::{AccountView, RegisterRequest, RegisterResponse, TokenRequest, TokenResponse};
use axum::Extension;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::{AppJson, Authenticated, bearer};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_account))
        .routes(routes!(create_token))
        .routes(routes!(delete_current_token))
        .routes(routes!(me))
}

/// Register a publisher (ACTIVE) or an advertiser (PENDING until approved).
#[utoipa::path(post, path = "/accounts", tag = "auth", request_body = RegisterRequest,
    responses((status = 201, body = RegisterResponse), (status = 400, body = super::ErrorBody), (status = 409, body = super::ErrorBody), (status = 429, body = super::ErrorBody)))]
async fn create_account(
    State(state): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppJson(req): AppJson<RegisterRequest>,
) -> Result<(StatusCode, AppJson<RegisterResponse>), AppError> {
    state
        .ctx
        .limits
        .check(Policy::Register, &client_bucket(ip))?;
    let a = accounts::register(&state.ctx, req).await?;
    Ok((
        StatusCode::CREATED,
        AppJson(RegisterResponse {
            account_id: a.account_id,
            role: a.role,
            status: a.status,
        }),
    ))
}

/// Exchange e-mail and password for a dashboard bearer token (valid 12 hours).
#[utoipa::path(post, path = "/tokens", tag = "auth", request_body = TokenRequest,
    responses((status = 201, body = TokenResponse), (status = 401, body = super::ErrorBody), (status = 429, body = super::ErrorBody)))]
async fn create_token(
    State(state): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppJson(req): AppJson<TokenRequest>,
) -> Result<(StatusCode, AppJson<TokenResponse>), AppError> {
    // The sign-in limits (per address, per address and e-mail, per account) are in
    // `accounts::authenticate`, shared with the dashboard form.
    let t = tokens::issue(&state.ctx, &req.email, &req.password, &client_bucket(ip)).await?;
    Ok((StatusCode::CREATED, AppJson(t)))
}

/// Revoke the bearer token of this request.
#[utoipa::path(delete, path = "/tokens/current", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 204), (status = 401, body = super::ErrorBody)))]
async fn delete_current_token(
    State(state): State<AppState>,
    parts: http::request::Parts,
) -> Result<StatusCode, AppError> {
    let token = bearer(&parts)
        .ok_or_else(|| AppError::unauthorized("a dashboard bearer token is required"))?;
    tokens::resolve(&state.ctx, token).await?;
    tokens::revoke(&state.ctx, token).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The account behind the bearer token.
#[utoipa::path(get, path = "/me", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 200, body = AccountView), (status = 401, body = super::ErrorBody)))]
async fn me(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<AccountView>, AppError> {
    Ok(AppJson(accounts::view(
        &accounts::get(&state.ctx, &p.account_id).await?,
    )))
}
