//! Ledger exports and monthly statements read an owner's entries by account and time
//! (issue 34); the existing index leads with the account only.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0028_ledger_entries_by_account_time"
    }
}

const INDEXES: [crate::PlainIndex; 1] = [(
    "idx_ledger_entries_account_time",
    "ledger_entries",
    &["ledger_account_id", "created_at"],
)];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    /// `CREATE INDEX CONCURRENTLY` cannot run inside a transaction (entries grow with every
    /// settlement, so the build must not block writes).
    fn use_transaction(&self) -> Option<bool> {
        Some(false)
    }

    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        crate::create_indexes_concurrently(m, &INDEXES).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_indexes(m, &INDEXES).await
    }
}
