//! An organisation's endpoint for account events (Standard Webhooks). Its deliveries are rows
//! of `callback_deliveries` under this id; its signing secret is sealed here.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "account_webhooks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The organisation.
    pub account_id: String,
    pub url: String,
    /// The topics it gets, space-separated (`*`: every topic).
    pub topics: String,
    pub description: String,
    /// The signing secret, sealed with the master key (bound to the row).
    pub secret_sealed: String,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// Set when the organisation removed it: nothing more is written for it.
    pub disabled_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
