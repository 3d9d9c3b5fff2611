//! Survey API signatures in the timestamped modes work once: each used `enc` is kept until
//! its five-minute window has passed (so a captured request cannot be sent again), in the
//! database so every process refuses it.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{string, timestamp_with_time_zone};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0019_survey_signature_uses"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Alias::new("survey_signature_uses"))
                .col(string(Alias::new("digest")).primary_key())
                .col(timestamp_with_time_zone(Alias::new("expires_at")))
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

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(
            Table::drop()
                .table(Alias::new("survey_signature_uses"))
                .to_owned(),
        )
        .await
    }
}
