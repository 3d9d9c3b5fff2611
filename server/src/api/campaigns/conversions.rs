//! The advertiser's conversions, one row per transaction, as JSON or CSV.

use app::domain::conversions::list;
use app::error::AppError;
use app::model::campaign::conversions::{ConversionList, ConversionQuery};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(conversions))
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
    responses((status = 200, body = ConversionList), (status = 200, content_type = "text/csv", description = "format=csv"), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn conversions(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<ConversionQuery>,
    AppQuery(a): AppQuery<AdvertiserQuery>,
) -> Result<Response, AppError> {
    let csv = match q.format.as_deref().unwrap_or("json") {
        "json" => false,
        "csv" => true,
        _ => return Err(AppError::field("format", "must be json or csv")),
    };
    let l = list::list(&s.ctx, &p, a.advertiser_id.as_deref(), &q).await?;
    if !csv {
        return Ok(AppJson(l).into_response());
    }
    let mut res = (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"conversions.csv\"".to_owned(),
            ),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        l.to_csv(),
    )
        .into_response();
    if let Some(next) = l.next_cursor.as_deref().and_then(|c| c.parse().ok()) {
        res.headers_mut().insert("x-next-cursor", next);
    }
    Ok(res)
}
