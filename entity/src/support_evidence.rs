//! A file an end user attached to a support case (development only): an image or a PDF,
//! its type checked by content.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "support_evidence")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub support_case_id: String,
    pub placement_id: String,
    pub external_user_id: String,
    pub file_name: Option<String>,
    pub content_type: String,
    pub byte_size: i64,
    pub sha256: String,
    #[sea_orm(column_type = "Blob")]
    pub content: Vec<u8>,
    pub idempotency_key: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
