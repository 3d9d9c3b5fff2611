//! A respondent's entry into a survey through the hosted SurveyUrl: the transaction the
//! supplier's return reports on. ENTERED, then COMPLETE (settled, `conversion_id` set),
//! TERMINATED, OVERQUOTA or QUALITY_FAIL.
use crate::values::EntryStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "survey_entries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub campaign_id: String,
    pub respondent_id: String,
    pub placement_id: String,
    pub ad_slot_id: Option<String>,
    pub quota_id: Option<String>,
    pub status: EntryStatus,
    pub test: bool,
    pub verification: String,
    pub cpi_micros: i64,
    pub reward_minor_units: i64,
    pub conversion_id: Option<String>,
    pub created_at: DateTimeUtc,
    pub finished_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
