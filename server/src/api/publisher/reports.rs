//! The publisher's offers report, as JSON or CSV.

use app::domain::delivery::report;
use app::error::AppError;
use app::model::delivery::{OffersReport, OffersReportQuery};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(offers_report))
}

/// Impressions (first showings), clicks (launches), approved conversions, reversals and
/// earnings (the publisher's share, net of reversals) by UTC day and offer, newest day
/// first, over at most 92 days (default the last 30). `format=csv` answers `text/csv`.
#[utoipa::path(get, path = "/reports/offers", tag = "publisher", security(("dashboardBearer" = [])), params(OffersReportQuery),
    responses((status = 200, description = "The report (JSON), or CSV with format=csv", content((OffersReport = "application/json"), (String = "text/csv"))), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn offers_report(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<OffersReportQuery>,
) -> Result<Response, AppError> {
    let csv = match q.format.as_deref().unwrap_or("json") {
        "json" => false,
        "csv" => true,
        _ => return Err(AppError::field("format", "must be json or csv")),
    };
    let r = report::offers(&s.ctx, &p, q).await?;
    if !csv {
        return Ok(AppJson(r).into_response());
    }
    Ok(csv_download(&r))
}

/// The report as a CSV attachment.
pub fn csv_download(r: &OffersReport) -> Response {
    let name = format!("offers-report-{}-{}.csv", r.from, r.to);
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        r.to_csv(),
    )
        .into_response()
}

/// `GET /publisher/reports/offers.csv` for the signed-in dashboard browser (cookie session).
pub async fn browser_csv(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    AppQuery(q): AppQuery<OffersReportQuery>,
) -> Result<Response, AppError> {
    let p = app::auth::require_principal(&s.ctx, &session).await?;
    let r = report::offers(&s.ctx, &p, q).await?;
    Ok(csv_download(&r))
}
