//! One payout to a publisher. The payment details are copied from the profile (sealed again,
//! binding `payouts:<id>`) when it is requested, so a later profile edit cannot redirect it.
use crate::values::PayoutStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "payouts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub publisher_id: String,
    /// The monthly run that created it (none for a publisher's own request).
    pub run_id: Option<String>,
    /// REQUESTED, APPROVED, PAID, CANCELLED, REJECTED or FAILED.
    pub status: PayoutStatus,
    pub amount_micros: i64,
    pub currency: String,
    pub legal_name: String,
    pub country: String,
    pub method: String,
    pub details_sealed: String,
    pub details_hint: String,
    pub idempotency_key: Option<String>,
    /// The bank's or payment service's reference, given when marked paid.
    pub external_reference: Option<String>,
    /// Why it was rejected or failed.
    pub reason: Option<String>,
    pub requested_by: String,
    pub decided_by: Option<String>,
    /// The administrator who gave the first of two approvals (a payout at or above
    /// `APP_PAYOUT_SECOND_APPROVAL_MICROS`), and when.
    pub first_approved_by: Option<String>,
    pub first_approved_at: Option<DateTimeUtc>,
    /// The batch it left in (PayPal Payouts or a bank file), once sent.
    pub batch_id: Option<String>,
    /// PayPal's `payout_item_id` of it.
    pub provider_item_id: Option<String>,
    pub created_at: DateTimeUtc,
    pub approved_at: Option<DateTimeUtc>,
    pub paid_at: Option<DateTimeUtc>,
    /// When it was cancelled, rejected or failed.
    pub closed_at: Option<DateTimeUtc>,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
