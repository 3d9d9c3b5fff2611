//! An administrator's payout run for one month: one payout per eligible publisher, made by
//! a worker (`payouts::runs`).
use crate::values::PayoutRunStatus;
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
    /// QUEUED, RUNNING or COMPLETED (`PayoutRunStatus`).
    pub status: PayoutRunStatus,
    /// The worker making the run's payouts, and until when it holds the run.
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTimeUtc>,
    pub finished_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
