//! Reward callbacks at machine speed: a partial index of the deliveries still to send, by
//! placement and due time, so the fair claim finds each placement's next due deliveries in
//! a few index probes however long one placement's backlog is; and one row per placement receiver recording since when its
//! attempts have all failed and whether delivery to it is paused (a receiver failing for
//! 24 hours is paused until the publisher resumes it).

use crate::kit::*;
use sea_orm_migration::schema::{string, timestamp_with_time_zone, timestamp_with_time_zone_null};

migration!("m0016_callback_receivers");

/// The same statement on SQLite and PostgreSQL (both support partial indexes).
const DUE_INDEX: &str = "CREATE INDEX idx_callback_deliveries_unsent ON callback_deliveries \
     (placement_id, next_attempt_at, id) WHERE status IN ('PENDING', 'HELD')";

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("callback_receivers"))
            .col(string(t("placement_id")).primary_key())
            .col(timestamp_with_time_zone_null(t("failing_since")))
            .col(timestamp_with_time_zone_null(t("paused_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .to_owned(),
    )
    .await?;
    m.get_connection().execute_unprepared(DUE_INDEX).await?;
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.get_connection()
        .execute_unprepared("DROP INDEX idx_callback_deliveries_unsent")
        .await?;
    m.drop_table(Table::drop().table(t("callback_receivers")).to_owned())
        .await
}
