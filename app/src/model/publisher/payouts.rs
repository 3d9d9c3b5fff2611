//! Payouts to publishers: the payout profile, payouts and the administrator's runs.

use crate::model::money::Micros;
use chrono::{DateTime, Utc};
pub use entity::values::{PayoutRunStatus, PayoutStatus};
use serde::{Deserialize, Serialize};

wire_enum!(
    /// How a publisher is paid.
    PayoutMethod { BankTransfer = "BANK_TRANSFER", PaymentService = "PAYMENT_SERVICE" }
);

/// A publisher's payout profile as shown (the details only as a hint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutProfile {
    pub legal_name: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    pub method: PayoutMethod,
    /// The end of the account number or the service account, e.g. "IBAN ••••4321".
    pub details_hint: String,
    pub updated_at: DateTime<Utc>,
}

/// Sets the payout profile. `details` is the IBAN (bank transfer) or the payment-service
/// account (an e-mail address or account id); it is stored sealed and never shown again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutProfileInput {
    pub legal_name: Option<String>,
    pub country: Option<String>,
    /// BANK_TRANSFER or PAYMENT_SERVICE.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<PayoutMethod>))]
    pub method: Option<String>,
    pub details: Option<String>,
}

/// One payout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Payout {
    pub id: String,
    pub publisher_id: String,
    pub status: PayoutStatus,
    pub amount_micros: Micros,
    pub amount: String,
    pub currency: String,
    pub method: PayoutMethod,
    pub details_hint: String,
    /// The monthly run that created it.
    pub run_id: Option<String>,
    pub external_reference: Option<String>,
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub approved_at: Option<DateTime<Utc>>,
    pub paid_at: Option<DateTime<Utc>>,
    pub closed_at: Option<DateTime<Utc>>,
    /// A large payout's first approval (a second administrator gives the second): who
    /// gave it and when.
    #[serde(default)]
    pub first_approved_by: Option<String>,
    #[serde(default)]
    pub first_approved_at: Option<DateTime<Utc>>,
    /// The batch it left in (PayPal Payouts or a bank file) once SENDING.
    #[serde(default)]
    pub batch_id: Option<String>,
}

/// A payout's payment details, opened by an administrator to send the money
/// (`POST /admin/v1/payouts/{payoutId}/details`): the copy taken when the payout was
/// requested, so a later profile edit cannot redirect it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutDetails {
    pub payout_id: String,
    pub publisher_id: String,
    pub status: PayoutStatus,
    pub amount_micros: Micros,
    pub amount: String,
    pub currency: String,
    /// The account holder's legal name.
    pub legal_name: String,
    pub country: String,
    pub method: PayoutMethod,
    /// The IBAN (BANK_TRANSFER) or payment-service account (PAYMENT_SERVICE), in full.
    pub details: String,
}

/// A page of payouts, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutList {
    pub items: Vec<Payout>,
    pub next_cursor: Option<String>,
}

/// A publisher's payout request; without an amount, the whole available balance.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutRequestInput {
    pub amount_micros: Option<Micros>,
}

/// An administrator's decision: the reason of a rejection or failure, the external
/// reference of a payment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutDecision {
    pub reason: Option<String>,
    pub external_reference: Option<String>,
}

/// Starts the monthly run of `period` (`YYYY-MM`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutRunInput {
    pub period: Option<String>,
}

/// A monthly run and what it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutRun {
    pub id: String,
    pub period: String,
    pub status: PayoutRunStatus,
    pub created_at: DateTime<Utc>,
    /// When its last pass ended (null while queued or running).
    pub finished_at: Option<DateTime<Utc>>,
    /// Payouts created (over every call for the period).
    pub created_count: i64,
    /// Publishers with money available that could not be paid: no complete profile, an open
    /// payout already, less than their minimum, or disabled (last pass).
    pub skipped_count: i64,
}

/// The latest monthly runs, newest first (at most 24).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PayoutRunList {
    pub items: Vec<PayoutRun>,
}
