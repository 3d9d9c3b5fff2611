//! What an organisation was told: one row per event, read by every member whose preferences
//! show its topic on the dashboard.
use crate::values::NoticeTopic;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "notices")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The organisation (the account row that registered).
    pub account_id: String,
    pub topic: NoticeTopic,
    pub title: String,
    pub body: String,
    /// The dashboard page where the reader acts (a path).
    pub link: String,
    /// What the notice is about (`campaign`, `placement`, `payout`, …) and its id.
    pub subject_type: Option<String>,
    pub subject_id: Option<String>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
