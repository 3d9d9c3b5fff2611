//! Support cases opened by end users through the SDK and handled in the publisher console.
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0003_support_cases");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("support_cases"))
            .col(string(t("id")).primary_key())
            .col(string(t("placement_id")))
            .col(string_null(t("ad_slot_id")))
            .col(string(t("session_id")))
            .col(string(t("external_user_id")))
            .col(string_null(t("offer_id")))
            .col(string(t("reason_code")))
            .col(text(t("message")))
            .col(string(t("status")))
            .col(text_null(t("publisher_note")))
            .col(string_null(t("idempotency_key")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("support_cases"), t("placement_id"))
                    .to(t("placements"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_support_cases_placement")
            .table(t("support_cases"))
            .col(t("placement_id"))
            .col(t("created_at"))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_blacklists_unique")
            .table(t("blacklists"))
            .col(t("owner_account_id"))
            .col(t("kind"))
            .col(t("value"))
            .col(t("placement_id"))
            .unique()
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.drop_index(
        Index::drop()
            .name("idx_blacklists_unique")
            .table(t("blacklists"))
            .to_owned(),
    )
    .await?;
    m.drop_table(Table::drop().table(t("support_cases")).to_owned())
        .await
}
