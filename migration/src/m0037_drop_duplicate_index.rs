//! Drops `idx_conversions_placement_time`: issue 51 created it on (`placement_id`,
//! `created_at`), the columns `idx_conversions_report` has indexed since the conversions
//! table was made. Every conversion insert and settlement update kept both up to date for
//! nothing (the planner uses either for a placement's conversions by time).

use crate::kit::*;

// `DROP INDEX CONCURRENTLY` (and the rebuild in `down`) cannot run in a transaction.
migration!("m0037_drop_duplicate_index", no_transaction);

const DUPLICATE: [crate::PlainIndex; 1] = [(
    "idx_conversions_placement_time",
    "conversions",
    &["placement_id", "created_at"],
)];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    let postgres = m.get_database_backend() == sea_orm_migration::sea_orm::DbBackend::Postgres;
    // On PostgreSQL without blocking the writes of a table that grows with traffic.
    let concurrently = if postgres { "CONCURRENTLY " } else { "" };
    m.get_connection()
        .execute_unprepared(&format!(
            "DROP INDEX {concurrently}IF EXISTS \"{}\"",
            DUPLICATE[0].0
        ))
        .await?;
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::create_indexes_concurrently(m, &DUPLICATE).await
}
