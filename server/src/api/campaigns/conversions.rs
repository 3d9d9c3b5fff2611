//! The advertiser's conversions, one row per transaction, as JSON or CSV.

use app::domain::conversions::list;
use app::error::AppError;
use app::model::campaign::conversions::{ConversionList, ConversionQuery};
use app::model::fraud::{DecisionResults, HoldDecisionInput};
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(conversions))
        .routes(routes!(decisions))
}

/// Approve (pay, with caps and the budget checked then) or reject up to 500 of the caller's
/// held conversions (`settlement` HELD: their `fraudReasons` say why). Each is decided once
/// (`NOT_HELD` when it was decided before); another advertiser's ids are `NOT_FOUND`.
#[utoipa::path(post, path = "/conversions/decisions", tag = "campaigns", security(("dashboardBearer" = [])), request_body = HoldDecisionInput,
    responses((status = 200, body = DecisionResults), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn decisions(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<HoldDecisionInput>,
) -> Result<AppJson<DecisionResults>, AppError> {
    app::domain::conversions::holds::decide(&s.ctx, &p, b)
        .await
        .map(AppJson)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct AdvertiserQuery {
    /// The advertiser (administrators only).
    advertiser_id: Option<String>,
}

/// Every transaction of the caller's offer and survey campaigns, newest first, with what was
/// reported and how it settled; filters by campaign, goal, settlement, creation day,
/// transaction id and click id. `format=csv` answers the same page as `text/csv`, with the
/// next page's cursor in `X-Next-Cursor`.
#[utoipa::path(get, path = "/conversions", tag = "campaigns", security(("dashboardBearer" = [])), params(ConversionQuery, AdvertiserQuery),
    responses((status = 200, description = "The conversions (JSON), or CSV with format=csv", content((ConversionList = "application/json"), (String = "text/csv"))), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn conversions(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<ConversionQuery>,
    AppQuery(a): AppQuery<AdvertiserQuery>,
) -> Result<Response, AppError> {
    let csv = crate::api::csv::wants_csv(q.format.as_deref(), false)?;
    let l = list::list(&s.ctx, &p, a.advertiser_id.as_deref(), &q).await?;
    Ok(crate::api::csv::answer(l, csv, "conversions.csv"))
}
