//! Publisher earnings in the ledger (issue 34): each paid conversion records whose earnings
//! it made and where they stand (PENDING in the hold, AVAILABLE after it, REVERSED), and an
//! administrator may set a publisher's hold and minimum payout. The partial indexes cover
//! only the conversions still in the hold, so they stay small however large the table grows.

use crate::kit::*;
use sea_orm_migration::schema::{
    big_integer_null, integer_null, string, string_null, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

migration!("m0024_publisher_earnings");

const PARTIAL_INDEXES: [SqlIndex; 2] = [
    (
        "idx_conversions_earnings_due",
        "conversions (earnings_at) WHERE earnings_state = 'PENDING'",
    ),
    (
        "idx_conversions_publisher_pending",
        "conversions (publisher_id, earnings_at) WHERE earnings_state = 'PENDING'",
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    // One column per statement: SQLite alters one column at a time.
    for col in [
        string_null(t("publisher_id")),
        string_null(t("earnings_state")),
        timestamp_with_time_zone_null(t("earnings_at")),
        timestamp_with_time_zone_null(t("reversed_at")),
    ] {
        add_column(m, "conversions", col).await?;
    }
    m.create_table(
        Table::create()
            .table(t("publisher_earning_terms"))
            .col(string(t("account_id")).primary_key())
            .col(integer_null(t("hold_days")))
            .col(big_integer_null(t("minimum_payout_micros")))
            .col(string(t("updated_by")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .to_owned(),
    )
    .await?;
    create_sql_indexes(m, &PARTIAL_INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_sql_indexes(m, &PARTIAL_INDEXES).await?;
    m.drop_table(Table::drop().table(t("publisher_earning_terms")).to_owned())
        .await?;
    for col in [
        "reversed_at",
        "earnings_at",
        "earnings_state",
        "publisher_id",
    ] {
        m.alter_table(
            Table::alter()
                .table(t("conversions"))
                .drop_column(t(col))
                .to_owned(),
        )
        .await?;
    }
    Ok(())
}
