//! Evidence files (screenshots, receipts) that end users attach to a support case through
//! the SDK in development. The bytes live with the case so a publisher can open them from
//! the support inbox; at most 5 MiB each and a few per case (see `sdk_evidence`).
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0014_support_evidence");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("support_evidence"))
            .col(string(t("id")).primary_key())
            .col(string(t("support_case_id")))
            .col(string(t("placement_id")))
            .col(string(t("external_user_id")))
            .col(string_null(t("file_name")))
            .col(string(t("content_type")))
            .col(big_integer(t("byte_size")))
            .col(string(t("sha256")))
            .col(blob(t("content")))
            .col(string(t("idempotency_key")))
            .col(timestamp_with_time_zone(t("created_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("support_evidence"), t("support_case_id"))
                    .to(t("support_cases"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    // One upload per case and key: a retried upload finds the first one.
    m.create_index(
        Index::create()
            .name("idx_support_evidence_key")
            .table(t("support_evidence"))
            .col(t("support_case_id"))
            .col(t("idempotency_key"))
            .unique()
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.drop_table(Table::drop().table(t("support_evidence")).to_owned())
        .await
}
