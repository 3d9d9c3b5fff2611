//! A validated conversion report, its exact-retry identity and the settlement states (the
//! same report whichever route delivered it: Custom S2S, a provider token, a web pixel).

use chrono::{DateTime, Utc};

use crate::domain::crypto;
use crate::error::AppError;
pub use crate::model::campaign::conversions::Settlement;

/// A validated conversion report.
#[derive(Debug, Clone)]
pub struct Reported {
    pub click_id: String,
    pub transaction_id: String,
    pub goal_id: String,
    pub status: ReportedStatus,
    /// As sent (part of the exact-retry identity).
    pub occurred_at_raw: String,
    pub occurred_at: DateTime<Utc>,
    /// Who stands behind the report, which decides whether it is screened for fraud.
    pub trust: Trust,
    /// When the report arrived, if earlier than its settlement (a queued report).
    pub received_at: Option<DateTime<Utc>>,
}

impl Reported {
    /// A report of an existing conversion's transaction (its click, goal and time) with
    /// `status`: what a reconciliation line, a hold decision or the end of a pixel review
    /// applies through settlement.
    pub fn of_conversion(
        c: &entity::conversion::Model,
        status: ReportedStatus,
        trust: Trust,
    ) -> Self {
        Reported {
            click_id: c.click_id.clone(),
            transaction_id: c.transaction_id.clone(),
            goal_id: c.goal_id.clone(),
            status,
            occurred_at_raw: c.occurred_at.to_rfc3339(),
            occurred_at: c.occurred_at,
            trust,
            received_at: None,
        }
    }
}

/// The inbox source of web pixel reports (the settler holds them for the review window).
pub const WEB_PIXEL_SOURCE: &str = "WEB_PIXEL";

/// Who stands behind a report (issue 51).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// An advertiser's or its partner's report (Custom S2S, a provider token): an approval
    /// is screened and held when its score reaches the campaign's hold score.
    Reported,
    /// A web pixel: screened, and held for the campaign's review window whatever its score.
    Pixel,
    /// A pixel conversion whose review window ended: screened again (without the window),
    /// paid unless its score holds it.
    ReviewEnded,
    /// A decision of the advertiser or an administrator (a hold decision, a
    /// reconciliation): applied without screening.
    Vouched,
}

/// The status a report carries (`status` on the wire and in the stored report).
pub use crate::model::postbacks::ReportedStatus;

/// What an inbox row records instead of a settlement, and the outcome of one report as its
/// inbox row stores it (`postback_events.outcome`).
pub use entity::values::{InboxState, PostbackOutcome as Outcome};

/// The conversion time as reported (ISO 8601 with an offset), as validation accepts it.
pub(in crate::domain) fn parse_occurred_at(raw: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw.trim())
        .map(|d| d.with_timezone(&Utc))
        .ok()
}

/// The exact-retry identity of a report (unique per campaign in the inbox).
pub(in crate::domain) fn event_hash(ev: &Reported) -> String {
    crypto::sha256_hex(&format!(
        "{}\n{}\n{}\n{}\n{}",
        ev.click_id,
        ev.transaction_id,
        ev.goal_id,
        ev.status.as_str(),
        ev.occurred_at_raw
    ))
}

/// The refusal of a transaction id reused with another click or goal.
pub(in crate::domain) fn transaction_conflict() -> AppError {
    AppError::conflict("this transaction_id was already reported with another click_id or goal_id")
        .with_code("transaction_conflict")
}
