//! The index of ledger entries by account alone is redundant since m0028's index by account
//! and time, which serves every query by account as well. Each settlement writes five
//! entries since publisher earnings (issue 34), so every index they maintain costs a write
//! per entry on the hot path: this one is dropped.

use crate::kit::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

// `DROP INDEX CONCURRENTLY` cannot run inside a transaction; it waits for running
// statements instead of blocking new writes to the table.
migration!("m0029_drop_ledger_entries_account", no_transaction);

const INDEX: crate::PlainIndex = (
    "idx_ledger_entries_account",
    "ledger_entries",
    &["ledger_account_id"],
);

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    let db = m.get_connection();
    let concurrently = if m.get_database_backend() == DbBackend::Postgres {
        "CONCURRENTLY "
    } else {
        ""
    };
    db.execute_unprepared(&format!(
        "DROP INDEX {concurrently}IF EXISTS \"{}\"",
        INDEX.0
    ))
    .await?;
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::create_indexes_concurrently(m, &[INDEX]).await
}
