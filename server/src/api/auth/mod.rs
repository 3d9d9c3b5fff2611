//! Accounts and dashboard bearer tokens (CONTRACT.md section 2); API keys in [`keys`], the
//! second factor in [`second_factor`], where the account is signed in in [`sessions`], the
//! team in [`members`], the sign-in address in [`email`], notices, preferences and account
//! webhooks in [`notices`].

mod email;
mod keys;
mod members;
mod notices;
mod second_factor;
mod sessions;

use crate::extract::ClientIp;
use app::domain::accounts::{recovery, security};
use app::domain::rate_limit::client_bucket;
use app::domain::{Policy, accounts, tokens};
use app::error::AppError;
use app::model::account::{
    NewPasswordRequest, PASSWORD_RESET_SENT, PasswordChangeRequest, PasswordResetAccepted,
    PasswordResetRequest,
};
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
        .routes(routes!(request_password_reset))
        .routes(routes!(confirm_password_reset))
        .routes(routes!(change_password))
        .routes(routes!(sign_out_everywhere))
        .merge(email::router())
        .merge(keys::router())
        .merge(members::router())
        .merge(notices::router())
        .merge(second_factor::router())
        .merge(sessions::router())
}

/// Change the password after entering the current one (401 `invalid_credentials`). Every
/// other bearer token of the account is revoked and every browser session signed out; the
/// token of this request stays valid. The owner is told by mail.
#[utoipa::path(post, path = "/password", tag = "auth", security(("dashboardBearer" = [])), request_body = PasswordChangeRequest,
    responses((status = 204, description = "The password was changed"), (status = 400, body = super::ErrorBody), (status = 401, body = super::ErrorBody), (status = 429, body = super::ErrorBody)))]
async fn change_password(
    State(state): State<AppState>,
    parts: http::request::Parts,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<PasswordChangeRequest>,
) -> Result<StatusCode, AppError> {
    let keep = bearer(&parts);
    security::change_password(
        &state.ctx,
        &p,
        &req.current_password,
        &req.new_password,
        keep,
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Sign out everywhere: every other bearer token of the account is revoked and every browser
/// session signed out, in every process at once; the token of this request stays valid.
#[utoipa::path(post, path = "/sign-out-everywhere", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 204, description = "Signed out everywhere else"), (status = 401, body = super::ErrorBody)))]
async fn sign_out_everywhere(
    State(state): State<AppState>,
    parts: http::request::Parts,
    Authenticated(p): Authenticated,
) -> Result<StatusCode, AppError> {
    security::sign_out_everywhere(&state.ctx, &p, bearer(&parts)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Ask for a link to choose a new password. The answer is the same whether or not an account
/// uses the address; a known account gets a letter whose link works once, for 30 minutes
/// (a newer link makes older ones useless). Limited per address asked for (3, then one
/// every 10 minutes) and per caller (20, then one every 30 s).
#[utoipa::path(post, path = "/password-resets", tag = "auth", request_body = PasswordResetRequest,
    responses((status = 202, body = PasswordResetAccepted), (status = 400, body = super::ErrorBody), (status = 429, body = super::ErrorBody)))]
async fn request_password_reset(
    State(state): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppJson(req): AppJson<PasswordResetRequest>,
) -> Result<(StatusCode, AppJson<PasswordResetAccepted>), AppError> {
    recovery::request(&state.ctx, &req.email, &client_bucket(ip)).await?;
    let message = PASSWORD_RESET_SENT.to_owned();
    Ok((
        StatusCode::ACCEPTED,
        AppJson(PasswordResetAccepted { message }),
    ))
}

/// Choose a new password with the token of a reset link (400 `reset_link_invalid` when it is
/// unknown, used or expired). Every bearer token of the account is revoked and every browser
/// session signed out; the owner is told by mail.
#[utoipa::path(post, path = "/password-resets/confirm", tag = "auth", request_body = NewPasswordRequest,
    responses((status = 204, description = "The password was changed"), (status = 400, body = super::ErrorBody), (status = 429, body = super::ErrorBody)))]
async fn confirm_password_reset(
    State(state): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppJson(req): AppJson<NewPasswordRequest>,
) -> Result<StatusCode, AppError> {
    // Guessing tokens is hopeless (256 bits), but each guess costs an Argon2 hash: limited
    // like registrations.
    state
        .ctx
        .limits
        .check(Policy::PasswordResetAddress, &client_bucket(ip))?;
    recovery::reset(&state.ctx, &req.token, &req.new_password).await?;
    Ok(StatusCode::NO_CONTENT)
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

/// Exchange e-mail and password for a dashboard bearer token (valid 12 hours). An account
/// with a second factor also sends `otp`, its authenticator app's code or a recovery code
/// (401 `second_factor_required` without it, `invalid_second_factor` when wrong or used; 429
/// after five wrong codes).
#[utoipa::path(post, path = "/tokens", tag = "auth", request_body = TokenRequest,
    responses((status = 201, body = TokenResponse), (status = 401, body = super::ErrorBody), (status = 429, body = super::ErrorBody)))]
async fn create_token(
    State(state): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppJson(req): AppJson<TokenRequest>,
) -> Result<(StatusCode, AppJson<TokenResponse>), AppError> {
    // The sign-in limits (per address, per address and e-mail, per account) are in
    // `accounts::authenticate`, shared with the dashboard form.
    let t = tokens::issue(
        &state.ctx,
        &req.email,
        &req.password,
        req.otp.as_deref(),
        &client_bucket(ip),
    )
    .await?;
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
    Ok(AppJson(accounts::me(&state.ctx, &p).await?))
}
