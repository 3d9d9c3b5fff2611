//! A respondent's stored answer to one profiling question (answer ids as a JSON list); a
//! repeated question overwrites it.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "survey_respondent_answers")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub respondent_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub question_id: String,
    #[sea_orm(column_type = "Text")]
    pub answer_ids: String,
    pub partner_code: String,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
