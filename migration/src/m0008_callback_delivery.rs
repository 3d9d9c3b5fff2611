//! Reward-callback delivery: the outbox gains what the delivery worker and the deliveries
//! console need (a claim lease, the reversal's dependency on its confirmation, the
//! user and campaign for filtering, replays), every attempt gets a row, and a conversion
//! records when its pending hold ends (`credit_at`).
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// SQLite alters one column per statement, so each column is its own ALTER.
async fn add(m: &SchemaManager<'_>, table: &str, col: ColumnDef) -> Result<(), DbErr> {
    m.alter_table(
        Table::alter()
            .table(Alias::new(table))
            .add_column(col)
            .to_owned(),
    )
    .await
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let t = |n: &str| Alias::new(n);
        let d = "callback_deliveries";
        add(m, d, string_null(t("external_user_id")).to_owned()).await?;
        add(m, d, string_null(t("campaign_id")).to_owned()).await?;
        add(m, d, string_null(t("depends_on")).to_owned()).await?;
        add(m, d, string_null(t("lease_owner")).to_owned()).await?;
        add(
            m,
            d,
            timestamp_with_time_zone_null(t("lease_until")).to_owned(),
        )
        .await?;
        add(m, d, integer(t("replays")).default(0).to_owned()).await?;
        add(
            m,
            d,
            timestamp_with_time_zone_null(t("failed_at")).to_owned(),
        )
        .await?;
        add(
            m,
            "conversions",
            timestamp_with_time_zone_null(t("credit_at")).to_owned(),
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

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(
            Table::drop()
                .table(Alias::new("callback_delivery_attempts"))
                .to_owned(),
        )
        .await
    }
}
