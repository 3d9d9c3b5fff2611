//! The publisher's payouts: the payout profile, requests and their history.

use app::domain::paging::Page;
use app::domain::payouts::{self, profile, requests};
use app::error::AppError;
use app::model::publisher::payouts::{
    Payout, PayoutList, PayoutProfile, PayoutProfileInput, PayoutRequestInput,
};
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::api::sdk::IdempotencyKey;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject, SecondFactor};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_profile, put_profile))
        .routes(routes!(list, request))
        .routes(routes!(get_payout))
        .routes(routes!(cancel))
}

/// The payout profile: legal name, country, method and a hint of the payment details (404
/// until it is set).
#[utoipa::path(get, path = "/payouts/profile", tag = "publisher", security(("dashboardBearer" = [])),
    responses((status = 200, body = PayoutProfile), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn get_profile(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<PayoutProfile>, AppError> {
    profile::get(&s.ctx, &p).await.map(AppJson)
}

/// Set the payout profile. `details` is an IBAN (checked by its checksum) for BANK_TRANSFER
/// or the payment-service account for PAYMENT_SERVICE; it is stored sealed and shown only as
/// a hint. A payout keeps the details it was requested with.
#[utoipa::path(put, path = "/payouts/profile", tag = "publisher", security(("dashboardBearer" = [])), request_body = PayoutProfileInput, params(("X-Second-Factor" = Option<String>, Header, description = "A current code of the account's second factor (six digits, or a recovery code); required when the account has one (403 `step_up_required` without it)")),
    responses((status = 200, body = PayoutProfile), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn put_profile(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    SecondFactor(code): SecondFactor,
    AppJson(input): AppJson<PayoutProfileInput>,
) -> Result<AppJson<PayoutProfile>, AppError> {
    profile::put(&s.ctx, &p, input, code.as_deref())
        .await
        .map(AppJson)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// The previous page's `nextCursor` (newest first).
    cursor: Option<String>,
    /// Rows per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// The caller's payouts, newest first.
#[utoipa::path(get, path = "/payouts", tag = "publisher", security(("dashboardBearer" = [])), params(ListQuery),
    responses((status = 200, body = PayoutList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<ListQuery>,
) -> Result<AppJson<PayoutList>, AppError> {
    let page = Page::parse(q.limit, q.cursor.as_deref(), payouts::ID_PREFIX)?;
    requests::list(&s.ctx, &p, page).await.map(AppJson)
}

/// Request a payout of `amountMicros` (default: the whole available balance) to the payout
/// profile. Refused with 409 `payout_profile_incomplete`, `below_minimum_payout` (50 USD
/// unless the publisher's terms say otherwise), `insufficient_balance` or `payout_open` (one
/// open payout at a time). 201 for a new payout; a retry with the same Idempotency-Key
/// answers 200 with the first one.
#[utoipa::path(post, path = "/payouts", tag = "publisher", security(("dashboardBearer" = [])), request_body = PayoutRequestInput,
    params(("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`; a retry with the same key answers the first result"), ("X-Second-Factor" = Option<String>, Header, description = "A current code of the account's second factor (six digits, or a recovery code); required when the account has one (403 `step_up_required` without it)")),
    responses((status = 201, body = Payout), (status = 200, body = Payout, description = "a retry with the same Idempotency-Key"), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn request(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    IdempotencyKey(key): IdempotencyKey,
    SecondFactor(code): SecondFactor,
    AppJson(input): AppJson<PayoutRequestInput>,
) -> Result<(StatusCode, AppJson<Payout>), AppError> {
    let (payout, new) = requests::request(&s.ctx, &p, key, input, code.as_deref()).await?;
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, AppJson(payout)))
}

/// One payout of the caller.
#[utoipa::path(get, path = "/payouts/{payoutId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("payoutId" = String, Path)),
    responses((status = 200, body = Payout), (status = 404, body = ErrorBody)))]
async fn get_payout(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<Payout>, AppError> {
    requests::get(&s.ctx, &p, &id).await.map(AppJson)
}

/// Cancel a payout not yet approved; the money returns to the available balance.
#[utoipa::path(post, path = "/payouts/{payoutId}/cancel", tag = "publisher", security(("dashboardBearer" = [])),
    params(("payoutId" = String, Path)),
    responses((status = 200, body = Payout), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn cancel(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<Payout>, AppError> {
    requests::cancel(&s.ctx, &p, &id).await.map(AppJson)
}
