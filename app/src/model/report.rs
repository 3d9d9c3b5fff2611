//! What every daily report shares: the publisher's earnings by day, the administrator's
//! revenue by day.

use serde::{Deserialize, Serialize};

wire_enum!(
    /// How a list or report is downloaded (each route names its default).
    ExportFormat { Csv = "csv", Json = "json" }
);

/// A day range of a daily report (UTC days, inclusive; the last 30 days by default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct DayRangeQuery {
    pub from: Option<chrono::NaiveDate>,
    pub to: Option<chrono::NaiveDate>,
}
