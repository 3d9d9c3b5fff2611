//! The publisher's earnings: its balance by state, the ledger movements behind it, the
//! ledger export and the monthly statements.

use app::domain::earnings::{balance, statements};
use app::domain::paging::Page;
use app::error::AppError;
use app::model::billing::{LedgerExport, LedgerExportQuery};
use app::model::publisher::earnings::{
    EarningsBalance, EarningsDaily, EarningsMovements, EarningsStatement, StatementPeriods,
};
use app::model::report::DayRangeQuery;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(earnings))
        .routes(routes!(movements))
        .routes(routes!(daily))
        .routes(routes!(export))
        .routes(routes!(statement_periods))
        .routes(routes!(statement))
}

/// The caller's earnings: pending (inside the hold), available (past it; negative after a
/// reversal of released earnings until later earnings make it good), held for payouts and
/// paid, with the terms in force and when the oldest pending earnings are released.
#[utoipa::path(get, path = "/earnings", tag = "publisher", security(("dashboardBearer" = [])),
    responses((status = 200, body = EarningsBalance), (status = 403, body = ErrorBody)))]
async fn earnings(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<EarningsBalance>, AppError> {
    balance::balance(&s.ctx, &p).await.map(AppJson)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct MovementsQuery {
    /// The previous page's `nextCursor` (newest first).
    cursor: Option<String>,
    /// Rows per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// Every movement of the caller's pending and available earnings, newest first: a
/// conversion's earnings, a reversal, a release from the hold.
#[utoipa::path(get, path = "/earnings/movements", tag = "publisher", security(("dashboardBearer" = [])), params(MovementsQuery),
    responses((status = 200, body = EarningsMovements), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn movements(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<MovementsQuery>,
) -> Result<AppJson<EarningsMovements>, AppError> {
    let page = Page::parse(q.limit, q.cursor.as_deref(), balance::MOVEMENT_ID_PREFIX)?;
    balance::movements(&s.ctx, &p, page).await.map(AppJson)
}

/// The caller's earnings per day (UTC; the last 30 days by default, at most a year, every
/// day listed): the share of the day's paid conversions and completes and what the day's
/// reversals took back.
#[utoipa::path(get, path = "/earnings/daily", tag = "publisher", security(("dashboardBearer" = [])), params(DayRangeQuery),
    responses((status = 200, body = EarningsDaily), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn daily(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<DayRangeQuery>,
) -> Result<AppJson<EarningsDaily>, AppError> {
    statements::daily(&s.ctx, &p, q.from, q.to)
        .await
        .map(AppJson)
}

/// Every entry of the caller's earnings accounts (pending per campaign, available, held for
/// payouts) in a date range, oldest first, as CSV (default) or JSON: the balance before the
/// range first, then the entries, then the balance at its end (opening + lines = closing,
/// to the micro). Up to 10,000 lines a page; the next page's cursor in `X-Next-Cursor`.
#[utoipa::path(get, path = "/earnings/export", tag = "publisher", security(("dashboardBearer" = [])), params(LedgerExportQuery),
    responses((status = 200, description = "The export: CSV (format=csv, the default) or JSON (format=json)", content((String = "text/csv"), (LedgerExport = "application/json"))),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn export(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<LedgerExportQuery>,
) -> Result<Response, AppError> {
    let csv = crate::api::csv::wants_csv(q.format.as_deref(), true)?;
    let e = balance::export(&s.ctx, &p, &q).await?;
    Ok(crate::api::csv::answer(e, csv, "earnings-ledger.csv"))
}

/// The months the caller has a statement for, newest first (from its first earnings).
#[utoipa::path(get, path = "/earnings/statements", tag = "publisher", security(("dashboardBearer" = [])),
    responses((status = 200, body = StatementPeriods), (status = 403, body = ErrorBody)))]
async fn statement_periods(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<StatementPeriods>, AppError> {
    statements::periods(&s.ctx, &p).await.map(AppJson)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct FormatQuery {
    /// `json` (default) or `csv`.
    #[param(value_type = Option<app::model::report::ExportFormat>, inline)]
    format: Option<String>,
}

#[derive(Debug, Deserialize)]
struct PeriodPath {
    period: String,
}

/// The caller's statement of one month (`YYYY-MM`, UTC): the balances at its start and end
/// and what moved them (earned, reversed, paid out), with the number of conversions and
/// reversals; OPEN while the month runs. `format=csv` gives one line per figure.
#[utoipa::path(get, path = "/earnings/statements/{period}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("period" = String, Path, description = "YYYY-MM"), FormatQuery),
    responses((status = 200, description = "The statement (JSON), or CSV with format=csv", content((EarningsStatement = "application/json"), (String = "text/csv"))),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn statement(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(path): AppPath<PeriodPath>,
    AppQuery(q): AppQuery<FormatQuery>,
) -> Result<Response, AppError> {
    let csv = crate::api::csv::wants_csv(q.format.as_deref(), false)?;
    let st = statements::month(&s.ctx, &p, path.period.trim()).await?;
    if !csv {
        return Ok(AppJson(st).into_response());
    }
    let name = format!("statement-{}.csv", st.period);
    Ok(crate::api::csv::download(st.to_csv(), &name, None))
}

/// The dashboard's download of the earnings ledger (`/publisher/earnings/ledger.csv`, the
/// cookie session): the same export as the API, one page of up to 10,000 lines.
pub async fn browser_ledger_csv(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    AppQuery(q): AppQuery<LedgerExportQuery>,
) -> Result<Response, AppError> {
    let p = app::auth::require_principal(&s.ctx, &session).await?;
    let e = balance::export(&s.ctx, &p, &q).await?;
    Ok(crate::api::csv::download(
        e.to_csv(),
        "earnings-ledger.csv",
        e.next_cursor.as_deref(),
    ))
}

/// The dashboard's download of a statement (`/publisher/earnings/statements/{period}.csv`).
pub async fn browser_statement_csv(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    AppPath(file): AppPath<String>,
) -> Result<Response, AppError> {
    let p = app::auth::require_principal(&s.ctx, &session).await?;
    let period = file.strip_suffix(".csv").unwrap_or(&file);
    let st = statements::month(&s.ctx, &p, period).await?;
    let name = format!("statement-{}.csv", st.period);
    Ok(crate::api::csv::download(st.to_csv(), &name, None))
}
