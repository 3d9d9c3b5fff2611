//! The account's second factor (`/auth/v1/second-factor`, docs/accounts.md): its state, an
//! enrolment (a secret and its QR code), confirming it with a code (ten recovery codes,
//! shown once), turning it off, new recovery codes. Only with a dashboard token: API keys
//! cannot change how the account signs in.

use app::domain::accounts::second_factor;
use app::error::AppError;
use app::model::second_factor::{
    RecoveryCodes, SecondFactorCode, SecondFactorDisable, SecondFactorEnrolment, SecondFactorStart,
    SecondFactorState,
};
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_state))
        .routes(routes!(begin))
        .routes(routes!(confirm))
        .routes(routes!(disable))
        .routes(routes!(renew_recovery_codes))
}

/// Whether the account has a second factor, an enrolment in progress (its secret and QR
/// code) and how many recovery codes are left.
#[utoipa::path(get, path = "/second-factor", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 200, body = SecondFactorState), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn get_state(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<SecondFactorState>, AppError> {
    second_factor::state(&s.ctx, &p).await.map(AppJson)
}

/// Start an enrolment, after the current password (401 `invalid_credentials`): a new TOTP
/// secret (RFC 6238: SHA-1, six digits, 30 seconds), as base32, an `otpauth://` link and its
/// QR code (SVG). It becomes the account's factor once a code from it is confirmed; starting
/// again replaces it. 409 `second_factor_enabled` while a factor is on.
#[utoipa::path(post, path = "/second-factor/enrolment", tag = "auth", security(("dashboardBearer" = [])), request_body = SecondFactorStart,
    responses((status = 201, body = SecondFactorEnrolment), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody), (status = 429, body = ErrorBody)))]
async fn begin(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<SecondFactorStart>,
) -> Result<(StatusCode, AppJson<SecondFactorEnrolment>), AppError> {
    let e = second_factor::begin(&s.ctx, &p, &req.current_password).await?;
    Ok((StatusCode::CREATED, AppJson(e)))
}

/// Confirm the enrolment with a current code of the new secret: the factor is on, from the
/// next sign-in. The answer holds ten single-use recovery codes, shown only here. 400 with
/// a wrong code, 409 `no_enrolment` without an enrolment; the owner is told by mail.
#[utoipa::path(post, path = "/second-factor/confirm", tag = "auth", security(("dashboardBearer" = [])), request_body = SecondFactorCode,
    responses((status = 200, body = RecoveryCodes), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn confirm(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<SecondFactorCode>,
) -> Result<AppJson<RecoveryCodes>, AppError> {
    let recovery_codes = second_factor::confirm(&s.ctx, &p, &req.code).await?;
    Ok(AppJson(RecoveryCodes { recovery_codes }))
}

/// Turn the second factor off, with the password (401 `invalid_credentials`) and a current
/// code or a recovery code (400). Administrators cannot while the service requires it of
/// them (403). The owner is told by mail.
#[utoipa::path(post, path = "/second-factor/disable", tag = "auth", security(("dashboardBearer" = [])), request_body = SecondFactorDisable,
    responses((status = 204, description = "Turned off"), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 429, body = ErrorBody)))]
async fn disable(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<SecondFactorDisable>,
) -> Result<StatusCode, AppError> {
    second_factor::disable(&s.ctx, &p, &req.current_password, &req.code).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Ten new recovery codes after a current code (403 `step_up_required` without a valid
/// one); the earlier codes stop working. 409 `no_second_factor` for an account without one.
#[utoipa::path(post, path = "/second-factor/recovery-codes", tag = "auth", security(("dashboardBearer" = [])), request_body = SecondFactorCode,
    responses((status = 200, body = RecoveryCodes), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody), (status = 429, body = ErrorBody)))]
async fn renew_recovery_codes(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<SecondFactorCode>,
) -> Result<AppJson<RecoveryCodes>, AppError> {
    let recovery_codes = second_factor::renew_recovery_codes(&s.ctx, &p, &req.code).await?;
    Ok(AppJson(RecoveryCodes { recovery_codes }))
}
