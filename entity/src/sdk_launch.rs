//! A launch (click): the signed, five-minute redirect to the advertiser with its click id.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sdk_launches")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub click_id: String,
    pub session_id: String,
    pub impression_id: String,
    pub placement_id: String,
    pub ad_slot_id: String,
    pub campaign_id: String,
    pub campaign_revision: i64,
    pub external_user_id: String,
    pub idempotency_key: String,
    pub trace_id: String,
    pub destination_url: String,
    pub created_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    pub opened_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
