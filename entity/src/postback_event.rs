//! One accepted conversion callback (the processing inbox); its id is the receipt id.
use crate::values::{PostbackOutcome, ReportedStatus};
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "postback_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub campaign_id: String,
    pub source: String,
    pub transaction_id: String,
    pub click_id: String,
    pub goal_id: String,
    pub status: ReportedStatus,
    pub occurred_at: String,
    pub event_hash: String,
    pub outcome: PostbackOutcome,
    pub conversion_id: Option<String>,
    pub received_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
