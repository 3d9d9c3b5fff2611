//! A provider callback fixture accepted by the sandbox (development only). It records what
//! the real route would have accepted; it is never settled, ledgered or sent anywhere.
//! Unique per (scope, idempotency_key); `request_hash` tells an exact retry from a reuse.
use crate::values::ReportedStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sandbox_callbacks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The advertiser account id of the caller's bearer, or `anonymous`.
    pub scope: String,
    pub idempotency_key: String,
    /// SHA-256 of the fixture as canonical JSON (object keys sorted).
    pub request_hash: String,
    /// `CUSTOM_S2S`, `DIRECT`, `MANAGED` or `MMP:<CODE>`.
    pub provider: String,
    pub campaign_id: Option<String>,
    pub click_id: String,
    pub transaction_id: String,
    pub goal_id: String,
    pub status: ReportedStatus,
    pub occurred_at: String,
    /// The fixture as received (canonical JSON).
    pub fixture: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
