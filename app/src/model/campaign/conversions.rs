//! The advertiser's conversions, one row per transaction (`/performance-marketing/v2/conversions`).

use crate::model::money::Micros;
use chrono::{DateTime, Utc};
pub use entity::values::Settlement;
use serde::{Deserialize, Serialize};

/// One transaction as the advertiser reported it and as it settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ConversionItem {
    pub conversion_id: String,
    pub campaign_id: String,
    pub transaction_id: String,
    pub click_id: String,
    /// The goal (`survey_complete` for a survey complete).
    pub goal_id: String,
    /// The last status reported: pending, approved, rejected or reversed.
    pub reported_status: crate::model::postbacks::ReportedStatus,
    /// PENDING, APPROVED, REJECTED, REVERSED, NO_BUDGET, CAP_REACHED, UNMATCHED_CLICK, …
    pub settlement: Settlement,
    /// What the advertiser paid (0 unless APPROVED; what was paid and refunded when REVERSED).
    pub payout_micros: Micros,
    pub payout: String,
    /// The publisher placement the click came from (a source id for fraud review).
    pub placement_id: Option<String>,
    pub occurred_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub reversed_at: Option<DateTime<Utc>>,
    /// The fraud score at settlement (0 to 100) and its reasons (docs/fraud.md).
    pub fraud_score: i32,
    pub fraud_reasons: Vec<crate::model::fraud::FraudReason>,
    /// A HELD web pixel conversion pays by itself then, unless it is rejected first.
    pub held_until: Option<DateTime<Utc>>,
}

/// A page of conversions, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ConversionList {
    pub items: Vec<ConversionItem>,
    pub next_cursor: Option<String>,
}

/// Filters of the conversion list; every one optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct ConversionQuery {
    /// An offer or survey campaign of the caller.
    pub campaign_id: Option<String>,
    pub goal_id: Option<String>,
    /// A settlement: PENDING, APPROVED, REJECTED, REVERSED, NO_BUDGET, CAP_REACHED, …
    pub status: Option<String>,
    /// First day (UTC, inclusive) of the conversion's creation.
    pub from: Option<chrono::NaiveDate>,
    /// Last day (UTC, inclusive).
    pub to: Option<chrono::NaiveDate>,
    pub transaction_id: Option<String>,
    pub click_id: Option<String>,
    /// Rows per page: 1 to 500 (default 100).
    #[cfg_attr(feature = "ssr", param(minimum = 1, maximum = 500))]
    pub limit: Option<u64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
    /// `json` (default) or `csv` (the same page as CSV; the next cursor in `X-Next-Cursor`).
    #[cfg_attr(feature = "ssr", param(value_type = Option<crate::model::report::ExportFormat>, inline))]
    pub format: Option<String>,
}

impl ConversionList {
    /// The page as CSV (RFC 4180; header line first).
    pub fn to_csv(&self) -> String {
        use crate::model::delivery::csv_field;
        let mut out = String::from(
            "conversion_id,campaign_id,transaction_id,click_id,goal_id,reported_status,settlement,payout_micros,payout,placement_id,occurred_at,created_at,reversed_at,fraud_score,fraud_signals\r\n",
        );
        for c in &self.items {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\r\n",
                c.conversion_id,
                csv_field(&c.campaign_id),
                csv_field(&c.transaction_id),
                csv_field(&c.click_id),
                csv_field(&c.goal_id),
                c.reported_status,
                c.settlement,
                c.payout_micros.get(),
                c.payout,
                c.placement_id.as_deref().unwrap_or_default(),
                c.occurred_at.to_rfc3339(),
                c.created_at.to_rfc3339(),
                c.reversed_at.map(|t| t.to_rfc3339()).unwrap_or_default(),
                c.fraud_score,
                c.fraud_reasons
                    .iter()
                    .map(|r| r.signal.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            ));
        }
        out
    }
}
