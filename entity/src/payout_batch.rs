//! A batch of approved payouts sent together: by PayPal Payouts (PayPal's batch id kept for
//! polling) or as a `pain.001` bank file (the operator's reference kept on confirmation).
use crate::values::{PayoutBatchStatus, PayoutRail};
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "payout_batches")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub rail: PayoutRail,
    pub status: PayoutBatchStatus,
    /// PayPal's `payout_batch_id` once PayPal accepted the batch.
    pub provider_batch_id: Option<String>,
    /// The bank's or operator's reference given when a bank file was confirmed.
    pub reference: Option<String>,
    pub payout_count: i32,
    pub total_micros: i64,
    pub currency: String,
    /// Why PayPal refused the batch, or the last error reaching it.
    pub error: Option<String>,
    pub created_by: String,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// When PayPal was last asked about its items.
    pub checked_at: Option<DateTimeUtc>,
    pub completed_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
