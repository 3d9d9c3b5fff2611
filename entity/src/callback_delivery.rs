//! A signed reward callback to a publisher (the outbox), written with the conversion it reports.
use crate::values::DeliveryStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "callback_deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub placement_id: String,
    pub owner_account_id: String,
    pub conversion_id: String,
    pub event: String,
    pub payload: String,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub next_attempt_at: DateTimeUtc,
    pub last_response_status: Option<i32>,
    pub last_error: Option<String>,
    pub key_id: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub delivered_at: Option<DateTimeUtc>,
    pub external_user_id: Option<String>,
    pub campaign_id: Option<String>,
    /// A reversal waits until the confirmation it reverses (this id) is DELIVERED.
    pub depends_on: Option<String>,
    /// The worker holding the claim, until `lease_until`.
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTimeUtc>,
    pub replays: i32,
    pub failed_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
