//! Survey API signatures in the timestamped modes work once: each used `enc` is kept until
//! its five-minute window has passed (so a captured request cannot be sent again), in the
//! database so every process refuses it.

use crate::kit::*;
use sea_orm_migration::schema::{string, timestamp_with_time_zone};

migration!("m0019_survey_signature_uses");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("survey_signature_uses"))
            .col(string(t("digest")).primary_key())
            .col(timestamp_with_time_zone(t("expires_at")))
            .to_owned(),
    )
    .await?;
    crate::create_indexes(
        m,
        &[(
            "idx_survey_signature_uses_expiry",
            "survey_signature_uses",
            &["expires_at"],
        )],
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.drop_table(Table::drop().table(t("survey_signature_uses")).to_owned())
        .await
}
