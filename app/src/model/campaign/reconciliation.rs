//! Bulk reconciliation of an advertiser's conversions
//! (`/performance-marketing/v2/conversions/reconciliations`): up to 10,000 transaction ids
//! to approve or reverse, previewed when created, applied by a worker, reported per line.

use crate::model::money::Micros;
use chrono::{DateTime, Utc};
pub use entity::values::{LineState, ReconciliationStatus};
use serde::{Deserialize, Serialize};

/// The most lines one reconciliation takes (also the parser's bound on `lines`, written
/// there as a number: serde's attribute takes no constant path).
pub const MAX_LINES: usize = 10_000;
const _: () = assert!(MAX_LINES == 10_000);

wire_enum!(
    /// What a reconciliation does to each listed conversion.
    ReconcileAction { Approve = "approve", Reverse = "reverse" }
);

/// One line of a reconciliation request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationLineInput {
    pub transaction_id: Option<String>,
    /// Needed only when the transaction id is used by several of the caller's campaigns.
    pub campaign_id: Option<String>,
}

/// `POST /performance-marketing/v2/conversions/reconciliations` (JSON; the same as CSV
/// lines `transaction_id[,campaign_id]` with `action`, `reason` and `apply` as query
/// parameters).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationInput {
    /// `approve` or `reverse`.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<ReconcileAction>))]
    pub action: Option<String>,
    /// Why (1-500 characters): kept with the reconciliation and in the audit trail.
    pub reason: Option<String>,
    /// 1 to 10,000 lines.
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 10_000>"
    )]
    pub lines: Option<Vec<ReconciliationLineInput>>,
    /// Queue it for applying at once instead of answering a preview first.
    pub apply: Option<bool>,
}

/// Lines in one state and the payouts they concern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LineTally {
    pub state: LineState,
    pub lines: u64,
    pub payout_micros: Micros,
}

/// A reconciliation with its preview and, as they are applied, its results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Reconciliation {
    pub reconciliation_id: String,
    pub action: ReconcileAction,
    pub reason: String,
    pub status: ReconciliationStatus,
    pub line_count: u64,
    /// What the preview found, by state.
    pub preview: Vec<LineTally>,
    /// What applying did so far, by state (empty until applied).
    pub results: Vec<LineTally>,
    /// Lines not applied yet (0 once DONE).
    pub lines_left: u64,
    pub created_at: DateTime<Utc>,
    pub queued_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A page of reconciliations, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationList {
    pub items: Vec<Reconciliation>,
    pub next_cursor: Option<String>,
}

/// One line of a reconciliation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationLine {
    pub line_no: u32,
    pub transaction_id: String,
    pub campaign_id: Option<String>,
    pub conversion_id: Option<String>,
    pub preview: LineState,
    /// Empty until the line is applied.
    pub result: Option<LineState>,
    /// The conversion's payout when previewed (what a reversal refunds).
    pub payout_micros: Micros,
    pub applied_at: Option<DateTime<Utc>>,
}

/// A page of lines, in request order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationLines {
    pub items: Vec<ReconciliationLine>,
    pub next_cursor: Option<String>,
}

/// Filters of the lines of a reconciliation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationLineQuery {
    /// Only lines with this result (or, before applying, this preview), e.g. UNKNOWN.
    pub state: Option<String>,
    /// Lines per page: 1 to 10,000 (default 1,000).
    #[cfg_attr(feature = "ssr", param(minimum = 1, maximum = 10000))]
    pub limit: Option<u64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
    /// `json` (default) or `csv` (the next cursor in `X-Next-Cursor`).
    #[cfg_attr(feature = "ssr", param(value_type = Option<crate::model::report::ExportFormat>, inline))]
    pub format: Option<String>,
}

impl ReconciliationLines {
    /// The page as CSV (RFC 4180; header line first).
    pub fn to_csv(&self) -> String {
        use crate::model::delivery::csv_field;
        let mut out = String::from(
            "line_no,transaction_id,campaign_id,conversion_id,preview,result,payout_micros,applied_at\r\n",
        );
        for l in &self.items {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{}\r\n",
                l.line_no,
                csv_field(&l.transaction_id),
                csv_field(l.campaign_id.as_deref().unwrap_or_default()),
                l.conversion_id.as_deref().unwrap_or_default(),
                l.preview.as_str(),
                l.result.map(LineState::as_str).unwrap_or_default(),
                l.payout_micros.get(),
                l.applied_at.map(|t| t.to_rfc3339()).unwrap_or_default(),
            ));
        }
        out
    }
}
