//! The stored answer of an idempotent creating request: unique per (account, key);
//! `request_hash` (method, path and body) tells an exact retry from a reuse of the key.
//! In progress while `status_code` is empty and `locked_until` is ahead.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "idempotent_requests")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub account_id: String,
    pub idempotency_key: String,
    /// SHA-256 hex of the method, the path and the body.
    pub request_hash: String,
    pub status_code: Option<i32>,
    pub content_type: Option<String>,
    #[sea_orm(column_type = "Text", nullable)]
    pub response: Option<String>,
    pub created_at: DateTimeUtc,
    pub locked_until: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
