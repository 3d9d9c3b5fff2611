//! Payouts to publishers (issue 34): a payout profile per publisher (payment details sealed),
//! payouts moving through REQUESTED → APPROVED → PAID (or CANCELLED, REJECTED, FAILED), and
//! the administrator's monthly runs. At most one open payout per publisher is a database
//! rule (a partial unique index), so two concurrent requests cannot both hold money.

use crate::kit::*;
use sea_orm_migration::schema::{
    big_integer, integer, string, string_null, text, text_null, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

migration!("m0025_payouts");

const UNIQUE: [SqlIndex; 4] = [
    (
        "idx_payouts_idem",
        "payouts (publisher_id, idempotency_key)",
    ),
    ("idx_payouts_run", "payouts (run_id, publisher_id)"),
    (
        "idx_payouts_one_open",
        "payouts (publisher_id) WHERE status IN ('REQUESTED', 'APPROVED')",
    ),
    ("idx_payout_runs_period", "payout_runs (period)"),
];

const PLAIN: [crate::PlainIndex; 2] = [
    ("idx_payouts_status", "payouts", &["status", "created_at"]),
    (
        "idx_payouts_publisher",
        "payouts",
        &["publisher_id", "created_at"],
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("payout_profiles"))
            .col(string(t("account_id")).primary_key())
            .col(string(t("legal_name")))
            .col(string(t("country")))
            .col(string(t("method")))
            .col(text(t("details_sealed")))
            .col(string(t("details_hint")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("payouts"))
            .col(string(t("id")).primary_key())
            .col(string(t("publisher_id")))
            .col(string_null(t("run_id")))
            .col(string(t("status")))
            .col(big_integer(t("amount_micros")))
            .col(string(t("currency")))
            .col(string(t("legal_name")))
            .col(string(t("country")))
            .col(string(t("method")))
            .col(text(t("details_sealed")))
            .col(string(t("details_hint")))
            .col(string_null(t("idempotency_key")))
            .col(string_null(t("external_reference")))
            .col(text_null(t("reason")))
            .col(string(t("requested_by")))
            .col(string_null(t("decided_by")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("approved_at")))
            .col(timestamp_with_time_zone_null(t("paid_at")))
            .col(timestamp_with_time_zone_null(t("closed_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("payout_runs"))
            .col(string(t("id")).primary_key())
            .col(string(t("period")))
            .col(string(t("created_by")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(integer(t("created_count")))
            .col(integer(t("skipped_count")))
            .to_owned(),
    )
    .await?;
    create_unique_sql_indexes(m, &UNIQUE).await?;
    crate::create_indexes(m, &PLAIN).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &PLAIN).await?;
    drop_sql_indexes(m, &UNIQUE).await?;
    drop_tables(m, &["payout_runs", "payouts", "payout_profiles"]).await
}
