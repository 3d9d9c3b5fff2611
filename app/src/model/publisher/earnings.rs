//! A publisher's earnings: the balance by state and the terms that govern it.

use crate::model::money::Micros;
use chrono::{DateTime, Utc};
pub use entity::values::EarningsState;
use serde::{Deserialize, Serialize};

wire_enum!(
    /// What a movement on a publisher's earnings accounts was.
    MovementKind {
        Conversion = "conversion", Reversal = "reversal", Release = "release", Payout = "payout",
        PayoutReturn = "payout_return", ReserveRelease = "reserve_release",
        Adjustment = "adjustment"
    }
);
wire_enum!(
    /// A monthly statement: OPEN for the current month (figures up to now), CLOSED after it.
    StatementStatus { Open = "OPEN", Closed = "CLOSED" }
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
    /// Released but held longer in the reserve (new publishers).
    pub reserve_micros: Micros,
    pub reserve: String,
    /// What reversals after a payout took beyond the available balance: netted from the
    /// next payouts (0 when the available balance is not negative).
    pub debt_micros: Micros,
    pub debt: String,
    /// When the earliest reserve is made available (none when nothing is reserved).
    pub next_reserve_release: Option<chrono::NaiveDate>,
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
    /// The share of each release held in the reserve (percent; 0: none) and for how many
    /// days after the release. New publishers have one by default (docs/fraud.md).
    pub reserve_percent: i64,
    pub reserve_days: i64,
    /// When a new publisher's default reserve ends (none when the terms set it).
    pub reserve_until: Option<DateTime<Utc>>,
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
    /// 0 to 50 (0 exempts the publisher from the reserve); absent: 10 while the publisher
    /// is new (its first 90 days), else none.
    pub reserve_percent: Option<i64>,
    /// 1 to 365 (default 60).
    pub reserve_days: Option<i64>,
}

/// One movement on a publisher's earnings accounts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningsMovement {
    pub id: String,
    pub at: DateTime<Utc>,
    /// conversion, reversal, release, payout, payout_return.
    #[cfg_attr(feature = "ssr", schema(value_type = MovementKind))]
    pub kind: String,
    /// PENDING, AVAILABLE or RESERVE: the balance it moved.
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

/// Balances by state at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningsSnapshot {
    pub pending_micros: Micros,
    pub available_micros: Micros,
    pub held_for_payout_micros: Micros,
    /// Released into the reserve and not yet available (new publishers).
    #[serde(default)]
    pub reserve_micros: Micros,
    /// pending + available + reserve + held: what the platform owes the publisher.
    pub total_micros: Micros,
}

/// A publisher's monthly statement (`GET /publisher/v2/earnings/statements/{period}`):
/// opening + earned + reversed − paid out + adjustments = closing, to the micro, and the
/// same figures as the ledger export of the month.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningsStatement {
    pub publisher_id: String,
    /// `YYYY-MM` (UTC).
    pub period: String,
    /// OPEN for the current month (figures up to now), CLOSED after it.
    #[cfg_attr(feature = "ssr", schema(value_type = StatementStatus))]
    pub status: String,
    pub currency: String,
    pub opening: EarningsSnapshot,
    /// The publisher's share of the month's paid conversions and survey completes.
    pub earned_micros: Micros,
    /// Earnings taken back by the month's reversals (negative or zero).
    pub reversed_micros: Micros,
    /// Payouts paid in the month (negative or zero; a payout returned by the bank counts
    /// back).
    pub paid_out_micros: Micros,
    /// Anything else that changed the total (zero unless an operator adjusted the ledger).
    pub adjustments_micros: Micros,
    pub closing: EarningsSnapshot,
    pub conversions: u64,
    pub reversals: u64,
}

/// The months a publisher has a statement for, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StatementPeriods {
    pub periods: Vec<String>,
}

impl EarningsStatement {
    /// The statement as CSV: one line per figure (`item,amount_micros,amount`).
    pub fn to_csv(&self) -> String {
        let mut out = String::from("item,amount_micros,amount\r\n");
        let mut line = |item: &str, m: i64| {
            out.push_str(&format!(
                "{item},{m},{}\r\n",
                crate::model::money::format_micros(m)
            ));
        };
        line("opening_pending", self.opening.pending_micros.get());
        line("opening_available", self.opening.available_micros.get());
        line(
            "opening_held_for_payout",
            self.opening.held_for_payout_micros.get(),
        );
        line("opening_total", self.opening.total_micros.get());
        line("earned", self.earned_micros.get());
        line("reversed", self.reversed_micros.get());
        line("paid_out", self.paid_out_micros.get());
        line("adjustments", self.adjustments_micros.get());
        line("closing_pending", self.closing.pending_micros.get());
        line("closing_available", self.closing.available_micros.get());
        line(
            "closing_held_for_payout",
            self.closing.held_for_payout_micros.get(),
        );
        line("closing_total", self.closing.total_micros.get());
        out.push_str(&format!(
            "conversions,{},\r\nreversals,{},\r\n",
            self.conversions, self.reversals
        ));
        out
    }
}

/// One day of a publisher's earnings (`GET /publisher/v2/earnings/daily`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningsDay {
    pub day: chrono::NaiveDate,
    /// The share of the day's paid conversions and completes.
    pub earned_micros: Micros,
    /// Taken back by the day's reversals (negative or zero).
    pub reversed_micros: Micros,
    pub conversions: u64,
    pub reversals: u64,
}

/// Every day of a range, oldest first (days without earnings included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EarningsDaily {
    pub currency: String,
    pub days: Vec<EarningsDay>,
}
