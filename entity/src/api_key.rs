//! An API key for the dashboard API: named, scoped, revocable. Only the SHA-256 of the key
//! is stored, with its first characters (`key_prefix`) to tell keys apart in a list.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "api_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub account_id: String,
    pub name: String,
    /// The first characters of the key (`mkt_key_` and four more), shown in lists.
    pub key_prefix: String,
    /// Lower-case hex SHA-256 of the key.
    #[sea_orm(unique)]
    pub key_hash: String,
    /// Space-separated `area:access` grants, in the canonical order (`placements:write`).
    pub scopes: String,
    pub created_at: DateTimeUtc,
    pub expires_at: Option<DateTimeUtc>,
    /// Updated at most once a minute (a write per request would cost every call).
    pub last_used_at: Option<DateTimeUtc>,
    pub revoked_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
