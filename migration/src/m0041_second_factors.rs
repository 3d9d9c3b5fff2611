//! A second factor (issue 54, part 4): an account's TOTP secret (RFC 6238), sealed with the
//! service key because the server recomputes codes with it, the last time step it accepted
//! (a code works once), and single-use recovery codes, of which only the SHA-256 is kept.

use crate::kit::*;
use sea_orm_migration::schema::{
    big_integer_null, string, string_null, timestamp_with_time_zone, timestamp_with_time_zone_null,
};

migration!("m0041_second_factors");

const FACTORS: &str = "second_factors";
const CODES: &str = "recovery_codes";
const UNIQUE: (&str, &str) = (
    "idx_recovery_codes_hash",
    "recovery_codes (account_id, code_hash)",
);

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t(FACTORS))
            .col(string(t("account_id")).primary_key())
            // Sealed secrets: the confirmed one, and one being enrolled (not yet confirmed).
            .col(string_null(t("secret_sealed")))
            .col(string_null(t("pending_sealed")))
            .col(timestamp_with_time_zone_null(t("enabled_at")))
            .col(big_integer_null(t("last_step")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .foreign_key(&mut fk((t(FACTORS), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t(CODES))
            .col(string(t("id")).primary_key())
            .col(string(t("account_id")))
            .col(string(t("code_hash")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("used_at")))
            .foreign_key(&mut fk((t(CODES), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    m.get_connection()
        .execute_unprepared(&format!("CREATE UNIQUE INDEX {} ON {}", UNIQUE.0, UNIQUE.1))
        .await?;
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.get_connection()
        .execute_unprepared(&format!("DROP INDEX {}", UNIQUE.0))
        .await?;
    drop_tables(m, &[CODES, FACTORS]).await
}
