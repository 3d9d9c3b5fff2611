//! An uploaded creative (development only): the bytes are kept in the database.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "creatives")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub advertiser_id: String,
    pub asset_id: String,
    pub name: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub sha256: String,
    #[sea_orm(column_type = "Blob")]
    pub content: Vec<u8>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
