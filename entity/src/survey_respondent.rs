//! A survey respondent: one end user of one placement (`external_user_id` is the publisher's
//! UserId) with the profile the last survey fetch sent.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "survey_respondents")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub placement_id: String,
    pub external_user_id: String,
    pub locale_code: String,
    pub date_of_birth: Option<Date>,
    pub gender: Option<String>,
    pub zip_code: Option<String>,
    pub city: String,
    pub gps_id: Option<String>,
    pub last_ip: String,
    pub risk_score: i32,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
