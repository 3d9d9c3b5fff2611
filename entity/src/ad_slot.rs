//! An ad slot of a placement with its currency and delivery configuration (JSON sections as text).
use crate::values::SlotState;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "ad_slots")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub placement_id: String,
    pub name: String,
    pub r#type: String,
    pub state: SlotState,
    pub currency_name: String,
    pub currency_decimals: i32,
    pub rate_numerator_minor_units: i64,
    pub rate_denominator_usd_micros: i64,
    pub minimum_payout_minor_units: i64,
    pub rounding: String,
    pub design: String,
    pub exposure: String,
    pub policy: String,
    pub offer_delivery: String,
    pub configuration_version: i32,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub archived_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
