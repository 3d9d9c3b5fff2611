//! An administrator's terms for one publisher's earnings; absent fields take the defaults.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "publisher_earning_terms")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub account_id: String,
    /// Days earnings stay pending; none = the default.
    pub hold_days: Option<i32>,
    /// The smallest payout; none = the default.
    pub minimum_payout_micros: Option<i64>,
    /// The share of each release held in the reserve, in percent; none = the default for
    /// new publishers (0 exempts the publisher).
    pub reserve_percent: Option<i32>,
    /// Days the reserve is held after the release; none = the default.
    pub reserve_days: Option<i32>,
    pub updated_by: String,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
