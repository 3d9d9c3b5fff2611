//! The administrator's payouts: the queue, decisions and the monthly run; and the platform's
//! revenue by day.

use app::domain::paging::Page;
use app::domain::payouts::{self, decisions, details, runs};
use app::error::AppError;
use app::model::billing::RevenueReport;
use app::model::publisher::payouts::{
    Payout, PayoutDecision, PayoutDetails, PayoutList, PayoutRun, PayoutRunInput, PayoutRunList,
};
use app::model::report::DayRangeQuery;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject, SecondFactor};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(queue))
        .routes(routes!(approve))
        .routes(routes!(reject))
        .routes(routes!(mark_paid))
        .routes(routes!(fail))
        .routes(routes!(open_details))
        .routes(routes!(run, runs_list))
        .routes(routes!(run_one))
        .routes(routes!(revenue))
}

/// The platform's business by day (UTC; the last 30 days by default, at most a year): what
/// advertisers paid for conversions and completes net of reversals, the publishers' share,
/// the platform's revenue, and the number of conversions and reversals, with the totals.
#[utoipa::path(get, path = "/revenue", tag = "admin", security(("dashboardBearer" = [])), params(DayRangeQuery),
    responses((status = 200, body = RevenueReport), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn revenue(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<DayRangeQuery>,
) -> Result<AppJson<RevenueReport>, AppError> {
    app::domain::billing::revenue::by_day(&s.ctx, &p, q.from, q.to)
        .await
        .map(AppJson)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct QueueQuery {
    /// REQUESTED (default), APPROVED, PAID, CANCELLED, REJECTED or FAILED.
    #[param(value_type = Option<app::model::publisher::payouts::PayoutStatus>, inline)]
    status: Option<String>,
    /// The previous page's `nextCursor` (newest first).
    cursor: Option<String>,
    /// Rows per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// Payouts in one status, newest first.
#[utoipa::path(get, path = "/payouts", tag = "admin", security(("dashboardBearer" = [])), params(QueueQuery),
    responses((status = 200, body = PayoutList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn queue(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<QueueQuery>,
) -> Result<AppJson<PayoutList>, AppError> {
    let page = Page::parse(q.limit, q.cursor.as_deref(), payouts::ID_PREFIX)?;
    decisions::queue(&s.ctx, &p, q.status.as_deref(), page)
        .await
        .map(AppJson)
}

/// Approve a REQUESTED payout. A payout at or above `APP_PAYOUT_SECOND_APPROVAL_MICROS`
/// (5,000 USD by default) needs two administrators: the first approval is recorded
/// (`firstApprovedBy`, the payout stays REQUESTED) and another administrator's makes it
/// APPROVED; the first approver approving again is 409 `second_approver_required`.
#[utoipa::path(post, path = "/payouts/{payoutId}/approve", tag = "admin", security(("dashboardBearer" = [])),
    params(("payoutId" = String, Path)),
    responses((status = 200, body = Payout), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn approve(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<Payout>, AppError> {
    decisions::approve(&s.ctx, &p, &id).await.map(AppJson)
}

/// Reject a REQUESTED or APPROVED payout with a `reason`; the money returns to the
/// publisher's available balance.
#[utoipa::path(post, path = "/payouts/{payoutId}/reject", tag = "admin", security(("dashboardBearer" = [])),
    params(("payoutId" = String, Path)), request_body = PayoutDecision,
    responses((status = 200, body = Payout), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn reject(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(d): AppJson<PayoutDecision>,
) -> Result<AppJson<Payout>, AppError> {
    decisions::reject(&s.ctx, &p, &id, d).await.map(AppJson)
}

/// Mark an APPROVED payout paid, with the bank's or payment service's `externalReference`.
#[utoipa::path(post, path = "/payouts/{payoutId}/mark-paid", tag = "admin", security(("dashboardBearer" = [])),
    params(("payoutId" = String, Path)), request_body = PayoutDecision,
    responses((status = 200, body = Payout), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn mark_paid(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(d): AppJson<PayoutDecision>,
) -> Result<AppJson<Payout>, AppError> {
    decisions::mark_paid(&s.ctx, &p, &id, d).await.map(AppJson)
}

/// Open a payout's payment details in full (legal name, country, method and the IBAN or
/// payment-service account it was requested with), to send the money. Each opening is an
/// audit entry naming the administrator (`payout.details_opened`); an administrator with a
/// second factor confirms with a current code first (403 `step_up_required` without it).
/// The answer is not stored by any cache.
#[utoipa::path(post, path = "/payouts/{payoutId}/details", tag = "admin", security(("dashboardBearer" = [])),
    params(("payoutId" = String, Path), ("X-Second-Factor" = Option<String>, Header, description = "A current code of the administrator's second factor (six digits, or a recovery code); required when the account has one (403 `step_up_required` without it)")),
    responses((status = 200, body = PayoutDetails), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn open_details(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    SecondFactor(code): SecondFactor,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<
    (
        [(axum::http::HeaderName, &'static str); 1],
        AppJson<PayoutDetails>,
    ),
    AppError,
> {
    let opened = details::open(&s.ctx, &p, &id, code.as_deref()).await?;
    Ok((
        [(axum::http::header::CACHE_CONTROL, "no-store")],
        AppJson(opened),
    ))
}

/// Fail an APPROVED payout that could not be sent, or a PAID one the bank returned, with a
/// `reason`; the money returns to the publisher's available balance.
#[utoipa::path(post, path = "/payouts/{payoutId}/fail", tag = "admin", security(("dashboardBearer" = [])),
    params(("payoutId" = String, Path)), request_body = PayoutDecision,
    responses((status = 200, body = Payout), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn fail(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(d): AppJson<PayoutDecision>,
) -> Result<AppJson<Payout>, AppError> {
    decisions::fail(&s.ctx, &p, &id, d).await.map(AppJson)
}

/// Starts the monthly payout run of `period` (`YYYY-MM`): one payout of the whole available
/// balance per publisher with a payout profile, no open payout and at least its minimum.
/// The run is a job: 202 with the run QUEUED, which a worker takes within seconds (RUNNING)
/// and ends COMPLETED with its counts (`GET /payouts/runs/{runId}`). Starting a completed
/// month again queues it again and creates only what is missing; while the month's run is
/// queued or running the call answers 200 with it as it stands. Disabled publishers and
/// publishers that cannot be paid are skipped (counted in `skippedCount`).
#[utoipa::path(post, path = "/payouts/runs", tag = "admin", security(("dashboardBearer" = [])), request_body = PayoutRunInput,
    responses((status = 202, body = PayoutRun, description = "queued"), (status = 200, body = PayoutRun, description = "the month's run is queued or running already"), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "payout_run_in_progress: a run of the same month was started at the same moment")))]
async fn run(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(input): AppJson<PayoutRunInput>,
) -> Result<(StatusCode, AppJson<PayoutRun>), AppError> {
    let (r, queued) = runs::start(&s.ctx, &p, input).await?;
    let status = if queued {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok((status, AppJson(r)))
}

/// The latest 24 monthly runs, newest month first.
#[utoipa::path(get, path = "/payouts/runs", tag = "admin", security(("dashboardBearer" = [])),
    responses((status = 200, body = PayoutRunList), (status = 403, body = ErrorBody)))]
async fn runs_list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<PayoutRunList>, AppError> {
    runs::list(&s.ctx, &p).await.map(AppJson)
}

/// One monthly run: where it stands and what it did.
#[utoipa::path(get, path = "/payouts/runs/{runId}", tag = "admin", security(("dashboardBearer" = [])),
    params(("runId" = String, Path)),
    responses((status = 200, body = PayoutRun), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn run_one(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<PayoutRun>, AppError> {
    runs::get(&s.ctx, &p, &id).await.map(AppJson)
}
