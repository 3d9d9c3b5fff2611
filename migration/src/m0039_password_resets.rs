//! Account recovery (issue 54, part 2): password-reset links (only their SHA-256 is kept;
//! single use, short-lived) and the generation of an account's browser sessions
//! (`session_generation`: a password reset or "sign out everywhere" moves it on, and every
//! session signed in under an earlier one is signed out, in every process).

use crate::kit::*;
use sea_orm_migration::schema::{
    integer, string, timestamp_with_time_zone, timestamp_with_time_zone_null,
};

migration!("m0039_password_resets");

const TABLE: &str = "password_resets";
const UNIQUE: (&str, &str) = ("idx_password_resets_token", "password_resets (token_hash)");
const INDEXES: [crate::PlainIndex; 1] = [(
    "idx_password_resets_account",
    "password_resets",
    &["account_id", "created_at"],
)];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t(TABLE))
            .col(string(t("id")).primary_key())
            .col(string(t("account_id")))
            .col(string(t("token_hash")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("expires_at")))
            .col(timestamp_with_time_zone_null(t("used_at")))
            .foreign_key(&mut fk((t(TABLE), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    m.get_connection()
        .execute_unprepared(&format!("CREATE UNIQUE INDEX {} ON {}", UNIQUE.0, UNIQUE.1))
        .await?;
    crate::create_indexes(m, &INDEXES).await?;
    add_column(m, "accounts", integer(t("session_generation")).default(0)).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_column(m, "accounts", "session_generation").await?;
    crate::drop_indexes(m, &INDEXES).await?;
    m.get_connection()
        .execute_unprepared(&format!("DROP INDEX {}", UNIQUE.0))
        .await?;
    drop_tables(m, &[TABLE]).await
}
