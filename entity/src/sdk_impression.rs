//! An offer shown to a session user; a launch needs an unexpired one (ten minutes).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sdk_impressions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub session_id: String,
    pub placement_id: String,
    pub ad_slot_id: String,
    pub campaign_id: String,
    pub external_user_id: String,
    pub idempotency_key: String,
    pub duplicate: bool,
    pub recorded_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
