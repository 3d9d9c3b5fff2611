//! Browser sessions (tower-sessions records), kept in the database so they survive restarts.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "web_sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// JSON of the session record.
    pub data: String,
    pub expires_at: DateTimeUtc,
    /// The signed-in account (from the record's `account_id`), null while signed out.
    pub account_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
