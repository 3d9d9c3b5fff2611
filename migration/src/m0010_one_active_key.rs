//! "One active key" becomes a database rule: partial unique indexes on the active
//! credential of a campaign (per kind), the current and next callback key of a placement,
//! and the active survey API credential of an advertiser. Concurrent issuers can no longer
//! leave two active keys behind (check-then-insert races on PostgreSQL); the loser gets a
//! unique violation that the domain maps to its idempotent answer. Both backends accept the
//! same `CREATE UNIQUE INDEX … WHERE` statement.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const INDEXES: [(&str, &str); 4] = [
    (
        "idx_campaign_credentials_active",
        "campaign_credentials (campaign_id, kind) WHERE status = 'ACTIVE'",
    ),
    (
        "idx_callback_keys_current",
        "callback_keys (placement_id) WHERE state = 'CURRENT'",
    ),
    (
        "idx_callback_keys_next",
        "callback_keys (placement_id) WHERE state = 'NEXT'",
    ),
    (
        "idx_survey_api_credentials_active",
        "survey_api_credentials (account_id) WHERE revoked_at IS NULL",
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        for (name, on) in INDEXES {
            db.execute_unprepared(&format!("CREATE UNIQUE INDEX {name} ON {on}"))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        for (name, _) in INDEXES {
            db.execute_unprepared(&format!("DROP INDEX {name}")).await?;
        }
        Ok(())
    }
}
