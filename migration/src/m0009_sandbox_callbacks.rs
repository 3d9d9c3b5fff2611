//! Sandbox provider callback fixtures: one row per accepted fixture, unique per caller scope
//! and Idempotency-Key, with the request hash that tells a retry from a reuse.
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0009_sandbox_callbacks");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("sandbox_callbacks"))
            .col(string(t("id")).primary_key())
            .col(string(t("scope")))
            .col(string(t("idempotency_key")))
            .col(string(t("request_hash")))
            .col(string(t("provider")))
            .col(string_null(t("campaign_id")))
            .col(string(t("click_id")))
            .col(string(t("transaction_id")))
            .col(string(t("goal_id")))
            .col(string(t("status")))
            .col(string(t("occurred_at")))
            .col(text(t("fixture")))
            .col(timestamp_with_time_zone(t("created_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_sandbox_callbacks_key")
            .table(t("sandbox_callbacks"))
            .col(t("scope"))
            .col(t("idempotency_key"))
            .unique()
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.drop_table(Table::drop().table(t("sandbox_callbacks")).to_owned())
        .await
}
