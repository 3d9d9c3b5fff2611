//! The monthly payout run as a job (issue 52): the request queues the run and a worker makes
//! its payouts, so a run over thousands of publishers is not cut by a request's deadline and
//! a worker that stopped is taken over when its lease runs out.

use crate::kit::*;
use sea_orm_migration::schema::{string, string_null, timestamp_with_time_zone_null};

migration!("m0036_payout_run_jobs");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    // Runs made before this version ran in their request: they are done.
    add_column(m, "payout_runs", string(t("status")).default("COMPLETED")).await?;
    add_column(m, "payout_runs", string_null(t("lease_owner"))).await?;
    // One column per statement: SQLite alters one at a time.
    for column in ["lease_until", "finished_at"] {
        add_column(m, "payout_runs", timestamp_with_time_zone_null(t(column))).await?;
    }
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    for column in ["status", "lease_owner", "lease_until", "finished_at"] {
        m.alter_table(
            Table::alter()
                .table(t("payout_runs"))
                .drop_column(t(column))
                .to_owned(),
        )
        .await?;
    }
    Ok(())
}
