//! A support case opened by an end user through the SDK. Status: OPEN, IN_PROGRESS, RESOLVED, REJECTED.
use crate::values::SupportStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "support_cases")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub placement_id: String,
    pub ad_slot_id: Option<String>,
    pub session_id: String,
    pub external_user_id: String,
    pub offer_id: Option<String>,
    pub reason_code: String,
    pub message: String,
    pub status: SupportStatus,
    pub publisher_note: Option<String>,
    pub idempotency_key: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
