//! Indexes of the fraud controls (issue 51), built without blocking writes (conversions grow
//! with traffic): recent conversions by the click's address range and by device (the
//! shared-address and shared-device signals read them once per settlement batch), a
//! placement's conversions by time (its held and reversed share, the publisher's rates),
//! and the held conversions (the review queues and the end of pixel review windows), a
//! partial index that stays as small as the queue.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::DbBackend;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0033_fraud_indexes"
    }
}

const INDEXES: [crate::PlainIndex; 3] = [
    (
        "idx_conversions_network",
        "conversions",
        &["click_network", "created_at"],
    ),
    (
        "idx_conversions_device",
        "conversions",
        &["device_id", "created_at"],
    ),
    (
        "idx_conversions_placement_time",
        "conversions",
        &["placement_id", "created_at"],
    ),
];

/// The held conversions by placement and id.
const HELD: &str = "idx_conversions_held";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    /// `CREATE INDEX CONCURRENTLY` cannot run inside a transaction.
    fn use_transaction(&self) -> Option<bool> {
        Some(false)
    }

    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        crate::create_indexes_concurrently(m, &INDEXES).await?;
        let concurrently = if m.get_database_backend() == DbBackend::Postgres {
            "CONCURRENTLY "
        } else {
            ""
        };
        m.get_connection()
            .execute_unprepared(&format!(
                "CREATE INDEX {concurrently}IF NOT EXISTS \"{HELD}\" ON \"conversions\" \
                 (\"placement_id\", \"id\") WHERE \"settlement\" = 'HELD'"
            ))
            .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.get_connection()
            .execute_unprepared(&format!("DROP INDEX IF EXISTS \"{HELD}\""))
            .await?;
        crate::drop_indexes(m, &INDEXES).await
    }
}
