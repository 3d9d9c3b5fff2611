//! Who did what to which object, and when. Append-only.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "audit_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub actor_account_id: Option<String>,
    /// Dotted action name such as `advertiser.approve`.
    pub action: String,
    pub subject_type: String,
    pub subject_id: String,
    /// JSON text with action-specific detail (never secrets).
    pub detail: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
