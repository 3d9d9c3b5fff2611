//! Payouts that pay (issue 55, item 2): approved payouts leave in batches, by PayPal Payouts
//! (one PayPal batch, `sender_batch_id` = the batch id) or as an ISO 20022 `pain.001` file
//! the operator takes to the platform's bank. A payout remembers its batch and PayPal's item
//! id; the batch its rail, PayPal's batch id, the operator's reference and its totals.

use crate::kit::*;
use sea_orm_migration::schema::{
    big_integer, integer, string, string_null, text_null, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

migration!("m0048_payout_batches");

const INDEXES: [crate::PlainIndex; 2] = [
    ("idx_payouts_batch", "payouts", &["batch_id"]),
    (
        "idx_payout_batches_status",
        "payout_batches",
        &["status", "updated_at"],
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("payout_batches"))
            .col(string(t("id")).primary_key())
            .col(string(t("rail")))
            .col(string(t("status")))
            .col(string_null(t("provider_batch_id")))
            .col(string_null(t("reference")))
            .col(integer(t("payout_count")))
            .col(big_integer(t("total_micros")))
            .col(string(t("currency")))
            .col(text_null(t("error")))
            .col(string(t("created_by")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .col(timestamp_with_time_zone_null(t("checked_at")))
            .col(timestamp_with_time_zone_null(t("completed_at")))
            .to_owned(),
    )
    .await?;
    add_column(m, "payouts", string_null(t("batch_id"))).await?;
    add_column(m, "payouts", string_null(t("provider_item_id"))).await?;
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await?;
    drop_column(m, "payouts", "provider_item_id").await?;
    drop_column(m, "payouts", "batch_id").await?;
    drop_tables(m, &["payout_batches"]).await
}
