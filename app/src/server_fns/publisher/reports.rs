//! The publisher offers report from the dashboard.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::delivery::OffersReport;

/// The offers report for the page's range and placement (empty strings mean defaults).
#[server(prefix = "/fn", endpoint = "publisher_offers_report")]
pub async fn offers_report_data(
    from: Option<String>,
    to: Option<String>,
    placement_id: Option<String>,
) -> Result<OffersReport, AppError> {
    crate::server_fns::web::run(async move {
        use crate::model::delivery::OffersReportQuery;
        let (ctx, p) = crate::server_fns::web::reader().await?;
        let date = |field: &str, v: Option<String>| -> Result<_, AppError> {
            match v.filter(|s| !s.is_empty()) {
                None => Ok(None),
                Some(s) => s
                    .parse::<chrono::NaiveDate>()
                    .map(Some)
                    .map_err(|_| AppError::field(field, "must be a date (YYYY-MM-DD)")),
            }
        };
        let q = OffersReportQuery {
            from: date("from", from)?,
            to: date("to", to)?,
            placement_id: placement_id.filter(|s| !s.is_empty()),
            ad_slot_id: None,
            format: None,
        };
        crate::domain::delivery::report::offers(&ctx, &p, q).await
    })
    .await
}
