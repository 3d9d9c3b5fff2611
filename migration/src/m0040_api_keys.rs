//! API keys for the dashboard API (issue 54, part 5): named, scoped per area (read or
//! write), revocable, optionally expiring. Only the SHA-256 of a key is kept, with the first
//! characters of the key so a person can tell keys apart in a list.

use crate::kit::*;
use sea_orm_migration::schema::{string, timestamp_with_time_zone, timestamp_with_time_zone_null};

migration!("m0040_api_keys");

const TABLE: &str = "api_keys";
const UNIQUE: (&str, &str) = ("idx_api_keys_hash", "api_keys (key_hash)");
const INDEXES: [crate::PlainIndex; 1] = [(
    "idx_api_keys_account",
    "api_keys",
    &["account_id", "created_at"],
)];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t(TABLE))
            .col(string(t("id")).primary_key())
            .col(string(t("account_id")))
            .col(string(t("name")))
            .col(string(t("key_prefix")))
            .col(string(t("key_hash")))
            .col(string(t("scopes")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("expires_at")))
            .col(timestamp_with_time_zone_null(t("last_used_at")))
            .col(timestamp_with_time_zone_null(t("revoked_at")))
            .foreign_key(&mut fk((t(TABLE), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    m.get_connection()
        .execute_unprepared(&format!("CREATE UNIQUE INDEX {} ON {}", UNIQUE.0, UNIQUE.1))
        .await?;
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await?;
    m.get_connection()
        .execute_unprepared(&format!("DROP INDEX {}", UNIQUE.0))
        .await?;
    drop_tables(m, &[TABLE]).await
}
