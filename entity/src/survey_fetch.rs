//! One survey fetch: who asked, from where, the risk score it got and its outcome. Feeds the
//! velocity checks of the fraud score.
use crate::values::FetchOutcome;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "survey_fetches")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub respondent_id: String,
    pub placement_id: String,
    pub ip: String,
    pub gps_id: Option<String>,
    pub risk_score: i32,
    pub outcome: FetchOutcome,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
