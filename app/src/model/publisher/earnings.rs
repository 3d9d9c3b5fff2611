//! A publisher's earnings: the balance by state and the terms that govern it.

use crate::model::money::Micros;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

wire_enum!(
    /// Where a conversion's publisher earnings stand (`conversions.earnings_state`; absent
    /// for conversions paid before publisher earnings were kept in the ledger).
    EarningsState { Pending = "PENDING", Available = "AVAILABLE", Reversed = "REVERSED" }
);

/// A publisher's earnings balance (`GET /publisher/v2/earnings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningsBalance {
    pub publisher_id: String,
    pub currency: String,
    /// Earned, still inside the hold period.
    pub pending_micros: Micros,
    pub pending: String,
    /// Past the hold; may be negative after a reversal of released earnings, recovered
    /// from later releases.
    pub available_micros: Micros,
    pub available: String,
    /// Set aside for payouts not yet paid.
    pub held_for_payout_micros: Micros,
    pub held_for_payout: String,
    /// Paid out to date.
    pub paid_micros: Micros,
    pub paid: String,
    /// When the oldest pending earnings leave the hold (none when nothing is pending).
    pub next_release_at: Option<DateTime<Utc>>,
    pub terms: EarningTerms,
}

/// The terms a publisher earns under (defaults unless an administrator set them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningTerms {
    /// The publisher's share of each payout, in basis points (7000 = 70 %).
    pub revenue_share_bps: i64,
    /// Days earnings stay pending after the conversion.
    pub hold_days: i64,
    /// The smallest payout a publisher may request.
    pub minimum_payout_micros: Micros,
}

/// An administrator's change of a publisher's terms; an absent field returns to the
/// default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningTermsInput {
    /// 0 to 365.
    pub hold_days: Option<i64>,
    /// 1 USD (1000000) to 100000 USD.
    pub minimum_payout_micros: Option<Micros>,
}

/// One movement on a publisher's earnings accounts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningsMovement {
    pub id: String,
    pub at: DateTime<Utc>,
    /// conversion, reversal, release, payout, payout_return.
    pub kind: String,
    /// PENDING or AVAILABLE: the balance it moved.
    pub balance: String,
    pub amount_micros: Micros,
    pub amount: String,
    /// The conversion, campaign or payout it belongs to.
    pub reference: String,
}

/// A page of movements, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningsMovements {
    pub items: Vec<EarningsMovement>,
    pub next_cursor: Option<String>,
}
