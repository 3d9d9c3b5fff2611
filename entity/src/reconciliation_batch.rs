//! An advertiser's bulk reconciliation: transaction ids to approve or reverse, previewed
//! when created and applied by a worker (QUEUED → APPLYING → DONE).
use crate::values::ReconciliationStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "reconciliation_batches")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub advertiser_id: String,
    /// Unique per advertiser: the same key answers the same batch.
    pub idempotency_key: String,
    /// `approve` or `reverse`.
    pub action: String,
    pub reason: String,
    /// PREVIEWED, QUEUED, APPLYING or DONE.
    pub status: ReconciliationStatus,
    pub line_count: i32,
    pub created_by: String,
    pub created_at: DateTimeUtc,
    pub queued_at: Option<DateTimeUtc>,
    pub finished_at: Option<DateTimeUtc>,
    /// The worker applying it and until when (another takes over after a crash).
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
