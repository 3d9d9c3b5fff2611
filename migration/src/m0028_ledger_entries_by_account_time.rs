//! Ledger exports and monthly statements read an owner's entries by account and time
//! (issue 34); the existing index leads with the account only.

use crate::kit::*;

// `CREATE INDEX CONCURRENTLY` cannot run inside a transaction (entries grow with every
// settlement, so the build must not block writes).
migration!("m0028_ledger_entries_by_account_time", no_transaction);

const INDEXES: [crate::PlainIndex; 1] = [(
    "idx_ledger_entries_account_time",
    "ledger_entries",
    &["ledger_account_id", "created_at"],
)];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::create_indexes_concurrently(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await
}
