//! The sign-in address (`/auth/v1/email`, docs/accounts.md "Your e-mail address"): sending
//! the verification link again, asking to change the address, and using a mailed link.

use app::domain::Policy;
use app::domain::accounts::email;
use app::domain::rate_limit::client_bucket;
use app::error::AppError;
use app::model::account::{EmailChangeRequest, EmailLinkConfirm, EmailLinkConfirmed};
use axum::Extension;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::{AppJson, Authenticated, ClientIp};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(resend_verification))
        .routes(routes!(change_email))
        .routes(routes!(confirm_email))
}

/// Mail the verification link again to the signed-in person's address (409 `email_verified`
/// when it is verified already). A newer link makes older ones useless.
#[utoipa::path(post, path = "/email/verification", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 202, description = "The link is on its way"), (status = 401, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody), (status = 429, body = crate::api::ErrorBody)))]
async fn resend_verification(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<StatusCode, AppError> {
    email::resend_verification(&state.ctx, &p).await?;
    Ok(StatusCode::ACCEPTED)
}

/// Ask to sign in with another e-mail address, after entering the current password (401
/// `invalid_credentials`). A link goes to the new address (it works once, for 24 hours) and
/// the old address is told; nothing changes until the link is used. 409 `email_taken` when
/// an account uses the new address.
#[utoipa::path(post, path = "/email", tag = "auth", security(("dashboardBearer" = [])), request_body = EmailChangeRequest,
    responses((status = 202, description = "The link is on its way to the new address"), (status = 400, body = crate::api::ErrorBody), (status = 401, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody), (status = 429, body = crate::api::ErrorBody)))]
async fn change_email(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<EmailChangeRequest>,
) -> Result<StatusCode, AppError> {
    email::request_change(&state.ctx, &p, &req.new_email, &req.current_password).await?;
    Ok(StatusCode::ACCEPTED)
}

/// Use a mailed e-mail link (its `token`): a verification link marks the address verified; a
/// change link makes the new address the sign-in e-mail and tells the old one. 400
/// `email_link_invalid` when the link is unknown, used, replaced or expired; 409
/// `email_taken` when the new address was taken meanwhile.
#[utoipa::path(post, path = "/email/confirm", tag = "auth", request_body = EmailLinkConfirm,
    responses((status = 200, body = EmailLinkConfirmed), (status = 400, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody), (status = 429, body = crate::api::ErrorBody)))]
async fn confirm_email(
    State(state): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppJson(req): AppJson<EmailLinkConfirm>,
) -> Result<AppJson<EmailLinkConfirmed>, AppError> {
    state
        .ctx
        .limits
        .check(Policy::PasswordResetAddress, &client_bucket(ip))?;
    let purpose = email::confirm(&state.ctx, &req.token).await?;
    Ok(AppJson(EmailLinkConfirmed { purpose }))
}
