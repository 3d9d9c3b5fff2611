//! Bulk reconciliation of conversions by their advertiser (issue 34): a batch of up to
//! 10,000 transaction ids to approve or reverse, previewed when it is created and applied
//! by a worker in small transactions, with one result per line. The same idempotency key
//! answers the same batch.

use crate::kit::*;
use sea_orm_migration::schema::{
    big_integer, integer, string, string_null, text, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

migration!("m0027_reconciliation");

const UNIQUE: [SqlIndex; 2] = [
    (
        "idx_reconciliations_idem",
        "reconciliation_batches (advertiser_id, idempotency_key)",
    ),
    (
        "idx_reconciliation_lines_no",
        "reconciliation_lines (batch_id, line_no)",
    ),
];

const PLAIN: [crate::PlainIndex; 2] = [
    (
        "idx_reconciliations_status",
        "reconciliation_batches",
        &["status", "queued_at"],
    ),
    (
        "idx_reconciliations_advertiser",
        "reconciliation_batches",
        &["advertiser_id", "id"],
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("reconciliation_batches"))
            .col(string(t("id")).primary_key())
            .col(string(t("advertiser_id")))
            .col(string(t("idempotency_key")))
            .col(string(t("action")))
            .col(text(t("reason")))
            .col(string(t("status")))
            .col(integer(t("line_count")))
            .col(string(t("created_by")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("queued_at")))
            .col(timestamp_with_time_zone_null(t("finished_at")))
            .col(string_null(t("lease_owner")))
            .col(timestamp_with_time_zone_null(t("lease_until")))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("reconciliation_lines"))
            .col(string(t("id")).primary_key())
            .col(string(t("batch_id")))
            .col(integer(t("line_no")))
            .col(string(t("transaction_id")))
            .col(string_null(t("campaign_id")))
            .col(string_null(t("conversion_id")))
            .col(string(t("preview")))
            .col(string_null(t("result")))
            .col(big_integer(t("payout_micros")))
            .col(timestamp_with_time_zone_null(t("applied_at")))
            .to_owned(),
    )
    .await?;
    create_unique_sql_indexes(m, &UNIQUE).await?;
    crate::create_indexes(m, &PLAIN).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &PLAIN).await?;
    drop_sql_indexes(m, &UNIQUE).await?;
    drop_tables(m, &["reconciliation_lines", "reconciliation_batches"]).await
}
