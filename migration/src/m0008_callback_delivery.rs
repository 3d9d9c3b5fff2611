//! Reward-callback delivery: the outbox gains what the delivery worker and the deliveries
//! console need (a claim lease, the reversal's dependency on its confirmation, the
//! user and campaign for filtering, replays), every attempt gets a row, and a conversion
//! records when its pending hold ends (`credit_at`).
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0008_callback_delivery");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    let d = "callback_deliveries";
    add_column(m, d, string_null(t("external_user_id"))).await?;
    add_column(m, d, string_null(t("campaign_id"))).await?;
    add_column(m, d, string_null(t("depends_on"))).await?;
    add_column(m, d, string_null(t("lease_owner"))).await?;
    add_column(m, d, timestamp_with_time_zone_null(t("lease_until"))).await?;
    add_column(m, d, integer(t("replays")).default(0)).await?;
    add_column(m, d, timestamp_with_time_zone_null(t("failed_at"))).await?;
    add_column(
        m,
        "conversions",
        timestamp_with_time_zone_null(t("credit_at")),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_callback_deliveries_owner")
            .table(t(d))
            .col(t("owner_account_id"))
            .col(t("created_at"))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_callback_deliveries_placement")
            .table(t(d))
            .col(t("placement_id"))
            .col(t("status"))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("callback_delivery_attempts"))
            .col(string(t("id")).primary_key())
            .col(string(t("delivery_id")))
            .col(integer(t("attempt")))
            .col(string(t("url")))
            .col(string_null(t("key_id")))
            .col(string(t("nonce")))
            .col(string(t("signed_timestamp")))
            .col(timestamp_with_time_zone(t("started_at")))
            .col(big_integer(t("latency_ms")))
            .col(integer_null(t("response_status")))
            .col(string_null(t("error_class")))
            .col(text_null(t("error_message")))
            .col(text_null(t("response_excerpt")))
            .col(boolean(t("replay")))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_callback_delivery_attempts_delivery")
            .table(t("callback_delivery_attempts"))
            .col(t("delivery_id"))
            .col(t("attempt"))
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.drop_table(
        Table::drop()
            .table(t("callback_delivery_attempts"))
            .to_owned(),
    )
    .await
}
