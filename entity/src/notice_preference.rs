//! A member's choice for one topic: by e-mail, on the dashboard. No row: the role's default.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "notice_preferences")]
pub struct Model {
    /// The member (their own account row).
    #[sea_orm(primary_key, auto_increment = false)]
    pub account_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    /// A `NoticeTopic`'s text (a key column: sea-orm keys are plain values).
    pub topic: String,
    pub email: bool,
    pub dashboard: bool,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
