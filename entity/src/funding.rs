//! A funding of an advertiser's wallet by wire (AWAITING_REVIEW until an administrator credits it) or payment provider (PENDING until captured).
use crate::values::FundingStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "fundings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub advertiser_id: String,
    pub method: String,
    pub status: FundingStatus,
    pub amount_micros: i64,
    pub currency: String,
    pub external_reference: Option<String>,
    pub idempotency_key: Option<String>,
    pub provider_order_id: Option<String>,
    /// The provider's capture that paid it (refunds and chargebacks name the capture).
    pub provider_capture_id: Option<String>,
    /// How much of it went back to the payer (refunds, chargebacks).
    pub returned_micros: i64,
    pub reviewed_by: Option<String>,
    pub ledger_transaction_id: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub credited_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
