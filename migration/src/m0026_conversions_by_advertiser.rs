//! The advertiser's conversion list pages by advertiser and id, and finds a transaction id
//! across the advertiser's campaigns (issue 34); the existing indexes lead with the campaign.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0026_conversions_by_advertiser"
    }
}

const INDEXES: [crate::PlainIndex; 2] = [
    (
        "idx_conversions_advertiser",
        "conversions",
        &["advertiser_id", "id"],
    ),
    (
        "idx_conversions_advertiser_tx",
        "conversions",
        &["advertiser_id", "transaction_id"],
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    /// `CREATE INDEX CONCURRENTLY` cannot run inside a transaction (conversions grow with
    /// traffic, so the build must not block writes).
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
