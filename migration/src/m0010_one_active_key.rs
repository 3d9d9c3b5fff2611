//! "One active key" becomes a database rule: partial unique indexes on the active
//! credential of a campaign (per kind), the current and next callback key of a placement,
//! and the active survey API credential of an advertiser. Concurrent issuers can no longer
//! leave two active keys behind (check-then-insert races on PostgreSQL); the loser gets a
//! unique violation that the domain maps to its idempotent answer. Both backends accept the
//! same `CREATE UNIQUE INDEX … WHERE` statement.
use crate::kit::*;

migration!("m0010_one_active_key");

const INDEXES: [SqlIndex; 4] = [
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

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    create_unique_sql_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_sql_indexes(m, &INDEXES).await
}
