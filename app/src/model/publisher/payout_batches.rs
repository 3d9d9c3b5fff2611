//! Batches of approved payouts on their way out (`/admin/v1/payout-batches`): by PayPal
//! Payouts or as an ISO 20022 `pain.001` bank file (docs/payments.md, "Payouts").

use super::payouts::Payout;
use crate::model::money::Micros;
use chrono::{DateTime, Utc};
pub use entity::values::{PayoutBatchStatus, PayoutRail};
use serde::{Deserialize, Serialize};

/// A batch and the payouts in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutBatch {
    pub batch_id: String,
    pub rail: PayoutRail,
    pub status: PayoutBatchStatus,
    /// PayPal's `payout_batch_id` once PayPal accepted the batch.
    pub provider_batch_id: Option<String>,
    /// The bank's reference given when the bank file was confirmed.
    pub reference: Option<String>,
    pub payout_count: i32,
    pub total_micros: Micros,
    pub total: String,
    pub currency: String,
    /// Why PayPal refused the batch, or the last failure reaching it.
    pub error: Option<String>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
    /// The payouts in it (a list returns them empty; read one batch for them).
    pub payouts: Vec<Payout>,
}

/// `{items}` of batches, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutBatchList {
    pub items: Vec<PayoutBatch>,
    pub next_cursor: Option<String>,
}

/// Sends approved payouts: every APPROVED payout whose method the rail serves (PAYPAL:
/// PAYMENT_SERVICE; BANK_FILE: BANK_TRANSFER), or only the listed ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutBatchRequest {
    pub rail: PayoutRail,
    /// Only these payouts (each APPROVED, of the rail's method); all of them when absent.
    #[serde(default)]
    pub payout_ids: Option<Vec<String>>,
}

/// A payout of a confirmed bank file that the bank did not pay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FailedPayout {
    pub payout_id: String,
    pub reason: String,
}

/// The operator took the bank file to the bank: its reference, and the payouts the bank
/// refused (the others are paid).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayoutBatchConfirmation {
    pub reference: String,
    #[serde(default)]
    pub failed: Vec<FailedPayout>,
}
