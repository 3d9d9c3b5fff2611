//! Fraud controls on offer conversions (issue 51): the signals a conversion is scored by,
//! the held conversions awaiting a decision, the decisions, a campaign's fraud rules and a
//! publisher's rates. Shared by the JSON APIs, the dashboards and the browser.

use crate::model::money::Micros;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The score at or above which a conversion is held unless the campaign sets its own.
pub const DEFAULT_HOLD_SCORE: i32 = 50;
/// Conversion ids one decision takes at most.
pub const MAX_DECISION_IDS: usize = 500;

wire_enum!(
    /// Why a conversion looks suspicious (each with its points; see `docs/fraud.md`).
    /// FAST_CONVERSION: converted far sooner after the click than the goal's conversions
    /// usually do, or sooner than the advertiser's floor. SHARED_ADDRESS: several users of
    /// one placement converted from one address within minutes. SHARED_RANGE: the same from
    /// one address range (/24, /48). SHARED_DEVICE: one device claims several users.
    /// BUSY_ADDRESS: one address claims many users across placements within a day.
    /// DATACENTER: the click came from a hosting or cloud address range. CONVERSION_RATE,
    /// REVERSAL_RATE: the placement converts, or is reversed, far more often than the
    /// campaign's other placements. FUNNEL_ORDER: a later goal was reached before the
    /// campaign's first. PIXEL_REVIEW: a web pixel report, held for the campaign's review
    /// window.
    FraudSignal {
        FastConversion = "FAST_CONVERSION",
        SharedAddress = "SHARED_ADDRESS",
        SharedRange = "SHARED_RANGE",
        SharedDevice = "SHARED_DEVICE",
        BusyAddress = "BUSY_ADDRESS",
        Datacenter = "DATACENTER",
        ConversionRate = "CONVERSION_RATE",
        ReversalRate = "REVERSAL_RATE",
        FunnelOrder = "FUNNEL_ORDER",
        PixelReview = "PIXEL_REVIEW",
    }
);

impl FraudSignal {
    /// A short label for the dashboards.
    pub fn label(self) -> &'static str {
        match self {
            FraudSignal::FastConversion => "Converted too fast",
            FraudSignal::SharedAddress => "Several users, one address",
            FraudSignal::SharedRange => "Several users, one address range",
            FraudSignal::SharedDevice => "Several users, one device",
            FraudSignal::BusyAddress => "One address, many users",
            FraudSignal::Datacenter => "Hosting or cloud address",
            FraudSignal::ConversionRate => "Conversion rate far above peers",
            FraudSignal::ReversalRate => "Reversal rate far above peers",
            FraudSignal::FunnelOrder => "Goal out of order",
            FraudSignal::PixelReview => "Web pixel review window",
        }
    }
}

wire_enum!(
    /// A decision on held conversions: APPROVE pays them (caps and the budget are checked
    /// then), REJECT closes them without payment.
    HoldDecision { Approve = "APPROVE", Reject = "REJECT" }
);

wire_enum!(
    /// What a decision did to one conversion. APPROVED (paid), REJECTED, NO_BUDGET or
    /// CAP_REACHED (an approval the budget or a cap refused; the conversion is closed as
    /// such), NOT_HELD (it is not held: decided before, or never held), NOT_FOUND (no such
    /// conversion of the caller).
    DecisionResult {
        Approved = "APPROVED", Rejected = "REJECTED", NoBudget = "NO_BUDGET",
        CapReached = "CAP_REACHED", NotHeld = "NOT_HELD", NotFound = "NOT_FOUND"
    }
);

/// One reason a conversion was scored as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FraudReason {
    pub signal: FraudSignal,
    /// Points this reason adds to the score.
    pub points: i32,
    /// What was seen, in words ("4 users of this placement from 203.0.113.7 within 10
    /// minutes").
    pub detail: String,
}

/// A conversion held for review, as the queues show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HeldConversion {
    pub conversion_id: String,
    pub campaign_id: String,
    /// The advertiser (not shown to publishers).
    pub advertiser_id: Option<String>,
    pub placement_id: Option<String>,
    pub external_user_id: Option<String>,
    pub goal_id: String,
    /// The advertiser's transaction id (not shown to publishers).
    pub transaction_id: Option<String>,
    /// What paying it would cost the advertiser (the goal's payout at the click).
    pub payout_micros: Micros,
    pub payout: String,
    pub fraud_score: i32,
    pub reasons: Vec<FraudReason>,
    pub held_at: Option<DateTime<Utc>>,
    /// A web pixel conversion pays by itself then unless it is rejected first.
    pub held_until: Option<DateTime<Utc>>,
    /// Seconds from the click to the report.
    pub seconds_to_convert: Option<i64>,
    pub created_at: DateTime<Utc>,
}

/// A page of held conversions, oldest first (`nextCursor` continues).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HeldList {
    pub items: Vec<HeldConversion>,
    pub next_cursor: Option<String>,
}

/// Filters of a held-conversion queue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct HeldQuery {
    pub placement_id: Option<String>,
    pub campaign_id: Option<String>,
    /// Only conversions held for this reason.
    #[cfg_attr(feature = "ssr", param(value_type = Option<FraudSignal>, inline))]
    pub signal: Option<String>,
    /// Rows per page: 1 to 500 (default 100).
    #[cfg_attr(feature = "ssr", param(minimum = 1, maximum = 500))]
    pub limit: Option<u64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
}

/// `POST …/decisions`: approve or reject held conversions (1 to 500 ids).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HoldDecisionInput {
    #[serde(deserialize_with = "crate::model::validate::required_list_at_most::<_, _, 1000>")]
    pub conversion_ids: Vec<String>,
    pub decision: Option<HoldDecision>,
    /// Why (kept with the decision and in the audit trail; at most 500 characters).
    pub note: Option<String>,
}

/// What a decision did to one conversion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DecisionOutcome {
    pub conversion_id: String,
    pub result: DecisionResult,
}

/// The results of a decision, in the order the ids were sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DecisionResults {
    pub items: Vec<DecisionOutcome>,
    pub approved_count: usize,
    pub rejected_count: usize,
}

/// A campaign's fraud rules (`PUT campaigns/{id}/fraud-rules`); an absent field keeps the
/// default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FraudRulesInput {
    /// Hold a conversion whose score reaches this (1 to 100; default 50).
    pub hold_score: Option<i32>,
    /// A conversion reported sooner than this after its click scores FAST_CONVERSION
    /// (0 to 86,400 seconds; none: only the goal's usual time decides).
    pub min_seconds_to_convert: Option<i64>,
}

/// The fraud rules in force for a campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FraudRules {
    pub campaign_id: String,
    pub hold_score: i32,
    pub min_seconds_to_convert: Option<i64>,
}

/// One placement's conversions over the last 30 days as fraud review sees them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlacementFraudStats {
    pub placement_id: String,
    pub name: String,
    /// Attributed conversions (every settlement but unmatched ones).
    pub conversions: i64,
    pub held: i64,
    pub reversed: i64,
    /// Held and reversed shares in basis points (1 % = 100).
    pub held_share_bps: i64,
    pub reversal_share_bps: i64,
    /// Delivery paused for fraud since then (offers are not shown until an administrator
    /// resumes it), and why.
    pub paused_at: Option<DateTime<Utc>>,
    pub paused_reason: Option<String>,
}

/// `GET /publisher/v2/fraud`: the caller's placements' rates; `GET /admin/v1/fraud/summary`
/// lists every placement with held conversions or a pause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FraudOverview {
    pub placements: Vec<PlacementFraudStats>,
    /// Held conversions by reason (all placements shown).
    pub held_by_signal: Vec<SignalCount>,
    /// The limit past which a placement is paused: held and reversed share in basis points,
    /// over at least `pauseMinConversions` conversions.
    pub pause_share_bps: i64,
    pub pause_min_conversions: i64,
    pub window_days: i64,
}

/// How many held conversions name a signal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SignalCount {
    pub signal: FraudSignal,
    pub count: i64,
}

/// `POST /admin/v1/placements/{id}/pause-delivery` and `…/resume-delivery`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryPauseInput {
    /// Why (required; at most 500 characters).
    pub note: Option<String>,
}

/// Renders a share in basis points as a percentage ("12.5 %").
pub fn percent(bps: i64) -> String {
    if bps % 100 == 0 {
        format!("{} %", bps / 100)
    } else {
        format!("{}.{} %", bps / 100, (bps % 100) / 10)
    }
}

/// The reasons stored on a conversion (JSON), as the lists show them.
pub fn parse_reasons(raw: Option<&str>) -> Vec<FraudReason> {
    raw.and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_read_as_percentages() {
        assert_eq!(percent(3000), "30 %");
        assert_eq!(percent(1250), "12.5 %");
        assert_eq!(percent(0), "0 %");
    }

    #[test]
    fn unreadable_reasons_read_as_none() {
        assert!(parse_reasons(None).is_empty());
        assert!(parse_reasons(Some("not json")).is_empty());
        let r = parse_reasons(Some(
            r#"[{"signal":"DATACENTER","points":35,"detail":"aws"}]"#,
        ));
        assert_eq!(r[0].signal, FraudSignal::Datacenter);
    }
}
