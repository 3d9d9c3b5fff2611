//! The publisher's view of fraud review (issue 51): its placements' held and reversed
//! shares (and whether delivery is paused), and its held conversions with their reasons.

use app::domain::conversions::holds;
use app::error::AppError;
use app::model::fraud::{FraudOverview, HeldList, HeldQuery};
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(overview))
        .routes(routes!(held))
}

/// The caller's placements with their conversions, held and reversed shares over the pause
/// window, whether delivery is paused and why, and the held conversions by reason.
#[utoipa::path(get, path = "/fraud", tag = "publisher", security(("dashboardBearer" = [])),
    responses((status = 200, body = FraudOverview), (status = 403, body = ErrorBody)))]
async fn overview(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<FraudOverview>, AppError> {
    holds::fraud_overview(&s.ctx, &p).await.map(AppJson)
}

/// The caller's held conversions, oldest first, with their score and reasons (without the
/// advertiser's identifiers); filters by placement, campaign and signal.
#[utoipa::path(get, path = "/fraud/holds", tag = "publisher", security(("dashboardBearer" = [])), params(HeldQuery),
    responses((status = 200, body = HeldList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn held(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<HeldQuery>,
) -> Result<AppJson<HeldList>, AppError> {
    holds::publisher_holds(&s.ctx, &p, &q).await.map(AppJson)
}
