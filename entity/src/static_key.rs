//! A STATIC_API slot key; only its SHA-256 is stored.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "static_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub ad_slot_id: String,
    pub key_hash: String,
    pub reason: String,
    pub expires_at: DateTimeUtc,
    pub created_at: DateTimeUtc,
    pub deactivated_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
