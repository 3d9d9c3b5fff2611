//! The publisher's earnings: its balance by state and the ledger movements behind it.

use app::domain::earnings::balance;
use app::domain::paging::Page;
use app::error::AppError;
use app::model::publisher::earnings::{EarningsBalance, EarningsMovements};
use axum::extract::State;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(earnings))
        .routes(routes!(movements))
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
