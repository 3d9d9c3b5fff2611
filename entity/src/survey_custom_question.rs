//! A custom screening question of a survey campaign; controls and answer options are JSON
//! text (options are edited one by one through their `option_id`).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "survey_custom_questions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub campaign_id: String,
    #[sea_orm(column_type = "Text")]
    pub display_text: String,
    pub question_type_id: i32,
    pub sort_order: i32,
    #[sea_orm(column_type = "Text")]
    pub controls: String,
    #[sea_orm(column_type = "Text")]
    pub options: String,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
