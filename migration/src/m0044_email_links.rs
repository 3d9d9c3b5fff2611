//! Verified e-mail addresses (issue 54, part 2): an account records when its address was
//! shown to work (`email_verified_at`; accounts made before this are counted as verified:
//! they predate the check, and nothing of theirs changes), and `email_links` holds the links
//! mailed to verify an address or to confirm a change to a new one (only the SHA-256 of each
//! token; each works once, until it expires).

use crate::kit::*;
use sea_orm_migration::schema::{string, timestamp_with_time_zone, timestamp_with_time_zone_null};

migration!("m0044_email_links");

const TABLE: &str = "email_links";
const UNIQUE: SqlIndex = ("idx_email_links_hash", "email_links (token_hash)");
const INDEXES: [crate::PlainIndex; 1] = [(
    "idx_email_links_account",
    "email_links",
    &["account_id", "created_at"],
)];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    add_column(
        m,
        "accounts",
        timestamp_with_time_zone_null(t("email_verified_at")),
    )
    .await?;
    m.get_connection()
        .execute_unprepared("UPDATE accounts SET email_verified_at = created_at")
        .await?;
    m.create_table(
        Table::create()
            .table(t(TABLE))
            .col(string(t("id")).primary_key())
            .col(string(t("account_id")))
            .col(string(t("purpose")))
            .col(string(t("email")))
            .col(string(t("token_hash")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("expires_at")))
            .col(timestamp_with_time_zone_null(t("used_at")))
            .foreign_key(&mut fk((t(TABLE), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    create_unique_sql_indexes(m, &[UNIQUE]).await?;
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await?;
    drop_sql_indexes(m, &[UNIQUE]).await?;
    drop_tables(m, &[TABLE]).await?;
    drop_column(m, "accounts", "email_verified_at").await
}
