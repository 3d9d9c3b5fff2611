//! Sending approved payouts (`/admin/v1/payout-batches`): PayPal Payouts for payment-service
//! accounts, an ISO 20022 `pain.001` file for bank transfers (docs/payments.md, "Payouts").

use app::domain::payouts::rails::{self, bank_file, paypal};
use app::error::AppError;
use app::model::publisher::payout_batches::{
    PayoutBatch, PayoutBatchConfirmation, PayoutBatchList, PayoutBatchRequest,
};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::api::paging::PageQuery;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject, SecondFactor};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(one))
        .routes(routes!(file))
        .routes(routes!(confirm))
        .routes(routes!(refresh))
}

/// Sends approved payouts: every APPROVED payout the rail serves (`PAYPAL`: PAYMENT_SERVICE
/// accounts through PayPal Payouts; `BANK_FILE`: BANK_TRANSFER as a `pain.001` file), at
/// most 500, or only `payoutIds`. They become SENDING, their money still held; a fraction of
/// a cent beyond whole cents returns to each publisher's balance. A PayPal batch goes to
/// PayPal at once (SENT) or, when PayPal cannot be reached, stays SUBMITTING and is sent
/// again by the worker under the same request id; PayPal refusing it (REFUSED) puts its
/// payouts back to APPROVED. An administrator with a second factor confirms with a current
/// code (the batch opens every payee's details).
#[utoipa::path(post, path = "/payout-batches", tag = "admin", security(("dashboardBearer" = [])),
    params(("X-Second-Factor" = Option<String>, Header, description = "A current code of the administrator's second factor; required when the account has one (403 `step_up_required` without it)")),
    request_body = PayoutBatchRequest,
    responses((status = 201, body = PayoutBatch), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "nothing_to_send; a listed payout is not APPROVED for this rail; payout_rail_unavailable: PayPal is not configured")))]
async fn create(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    SecondFactor(code): SecondFactor,
    AppJson(req): AppJson<PayoutBatchRequest>,
) -> Result<(StatusCode, AppJson<PayoutBatch>), AppError> {
    let b = rails::create(&s.ctx, &p, req, code.as_deref()).await?;
    Ok((StatusCode::CREATED, AppJson(b)))
}

/// Payout batches, newest first (their payouts are read one batch at a time).
#[utoipa::path(get, path = "/payout-batches", tag = "admin", security(("dashboardBearer" = [])), params(PageQuery),
    responses((status = 200, body = PayoutBatchList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<PageQuery>,
) -> Result<AppJson<PayoutBatchList>, AppError> {
    let page = q.page(rails::ID_PREFIX)?;
    rails::list(&s.ctx, &p, &page).await.map(AppJson)
}

/// One batch with its payouts and their statuses.
#[utoipa::path(get, path = "/payout-batches/{batchId}", tag = "admin", security(("dashboardBearer" = [])),
    params(("batchId" = String, Path)),
    responses((status = 200, body = PayoutBatch), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn one(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<PayoutBatch>, AppError> {
    rails::get(&s.ctx, &p, &id).await.map(AppJson)
}

/// A bank-file batch as its ISO 20022 `pain.001.001.03` credit-transfer file, to upload to
/// the platform's bank: one transfer per payout (EndToEndId = the payout id without its
/// `_`), the platform's account as debtor. Each download is audited and asks for the second
/// factor like opening payment details; the answer is not stored by any cache.
#[utoipa::path(get, path = "/payout-batches/{batchId}/file", tag = "admin", security(("dashboardBearer" = [])),
    params(("batchId" = String, Path), ("X-Second-Factor" = Option<String>, Header, description = "A current code of the administrator's second factor; required when the account has one")),
    responses((status = 200, content_type = "application/xml", body = String, description = "the pain.001 file"),
        (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn file(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    SecondFactor(code): SecondFactor,
    AppPath(id): AppPath<String>,
) -> Result<Response, AppError> {
    let (name, xml) = bank_file::file(&s.ctx, &p, &id, code.as_deref()).await?;
    Ok(attachment(&name, xml))
}

/// The file as a download nothing caches.
fn attachment(name: &str, xml: Vec<u8>) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/xml".to_owned()),
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        xml,
    )
        .into_response()
}

/// The bank took a bank-file batch: `reference` is the bank's, `failed` the transfers it
/// refused (each with a reason). Every other payout of the batch becomes PAID, each once;
/// the failed ones FAILED with their money back in the publisher's balance. A second
/// confirmation is 409 `batch_completed`.
#[utoipa::path(post, path = "/payout-batches/{batchId}/confirm", tag = "admin", security(("dashboardBearer" = [])),
    params(("batchId" = String, Path)), request_body = PayoutBatchConfirmation,
    responses((status = 200, body = PayoutBatch), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn confirm(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(req): AppJson<PayoutBatchConfirmation>,
) -> Result<AppJson<PayoutBatch>, AppError> {
    bank_file::confirm(&s.ctx, &p, &id, req).await.map(AppJson)
}

/// Asks PayPal about a PayPal batch now (or sends a SUBMITTING one again) instead of
/// waiting for its webhooks or the worker's next poll (every minute).
#[utoipa::path(post, path = "/payout-batches/{batchId}/refresh", tag = "admin", security(("dashboardBearer" = [])),
    params(("batchId" = String, Path)),
    responses((status = 200, body = PayoutBatch), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 503, body = ErrorBody)))]
async fn refresh(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<PayoutBatch>, AppError> {
    paypal::refresh(&s.ctx, &p, &id).await.map(AppJson)
}

/// The dashboard's download of a bank file (`POST /admin/payout-batches/{id}/file`, a plain
/// form with the cookie session: `csrf` and the second-factor code `otp`): the file as an
/// attachment, or back to the payouts page with the refusal.
pub async fn browser_file(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    AppPath(id): AppPath<String>,
    body: axum::body::Bytes,
) -> Response {
    let (mut csrf, mut otp) = (String::new(), None);
    for (k, v) in url::form_urlencoded::parse(&body) {
        match k.as_ref() {
            "csrf" => csrf = v.into_owned(),
            "otp" if !v.trim().is_empty() => otp = Some(v.trim().to_owned()),
            _ => {}
        }
    }
    let made = async {
        let p = app::auth::require_principal(&s.ctx, &session).await?;
        app::auth::check_csrf(&session, &csrf).await?;
        bank_file::file(&s.ctx, &p, &id, otp.as_deref()).await
    };
    match made.await {
        Ok((name, xml)) => attachment(&name, xml),
        Err(e) => {
            let text: String = url::form_urlencoded::byte_serialize(e.message.as_bytes()).collect();
            axum::response::Redirect::to(&format!(
                "/admin/payouts?batch_error={text}#payout-batches"
            ))
            .into_response()
        }
    }
}
