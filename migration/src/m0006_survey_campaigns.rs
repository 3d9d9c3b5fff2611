//! Survey campaigns (created through the signed survey API) and their wallet allocations.
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0006_survey_campaigns");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("survey_campaigns"))
            .col(string(t("id")).primary_key())
            .col(string(t("advertiser_id")))
            .col(string(t("name")))
            .col(string(t("status")))
            .col(string(t("payment_status")))
            .col(string(t("country_language_id")))
            .col(big_integer_null(t("cpi_micros")))
            .col(big_integer_null(t("length_of_interview")))
            .col(big_integer_null(t("conversion")))
            .col(date_null(t("start_date")))
            .col(date_null(t("end_date")))
            .col(text(t("survey_live_link")))
            .col(text(t("survey_test_link")))
            .col(big_integer_null(t("max_daily_completes")))
            .col(big_integer_null(t("total_completes")))
            .col(text(t("supported_devices")))
            .col(text(t("metadata")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("survey_campaigns"), t("advertiser_id"))
                    .to(t("accounts"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_survey_campaigns_owner")
            .table(t("survey_campaigns"))
            .col(t("advertiser_id"))
            .col(t("created_at"))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("allocations"))
            .col(string(t("id")).primary_key())
            .col(string(t("advertiser_id")))
            .col(string_uniq(t("survey_campaign_id")))
            .col(big_integer(t("amount_micros")))
            .col(string(t("ledger_transaction_id")))
            .col(string(t("created_by")))
            .col(timestamp_with_time_zone(t("created_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("allocations"), t("survey_campaign_id"))
                    .to(t("survey_campaigns"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_allocations_owner")
            .table(t("allocations"))
            .col(t("advertiser_id"))
            .col(t("created_at"))
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_tables(m, &["allocations", "survey_campaigns"]).await
}
