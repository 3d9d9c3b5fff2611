//! The monthly payout run as a job (issue 52): the request queues the run and a worker makes
//! its payouts, so a run over thousands of publishers is not cut by a request's deadline and
//! a worker that stopped is taken over when its lease runs out.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{string, string_null, timestamp_with_time_zone_null};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0036_payout_run_jobs"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // Runs made before this version ran in their request: they are done.
        m.alter_table(
            Table::alter()
                .table(Alias::new("payout_runs"))
                .add_column(string(Alias::new("status")).default("COMPLETED"))
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(Alias::new("payout_runs"))
                .add_column(string_null(Alias::new("lease_owner")))
                .to_owned(),
        )
        .await?;
        // One column per statement: SQLite alters one at a time.
        for column in ["lease_until", "finished_at"] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("payout_runs"))
                    .add_column(timestamp_with_time_zone_null(Alias::new(column)))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for column in ["status", "lease_owner", "lease_until", "finished_at"] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("payout_runs"))
                    .drop_column(Alias::new(column))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
