//! An administrator's payout run for one month: one payout per eligible publisher.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "payout_runs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// `YYYY-MM`, unique.
    pub period: String,
    pub created_by: String,
    pub created_at: DateTimeUtc,
    pub created_count: i32,
    pub skipped_count: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
