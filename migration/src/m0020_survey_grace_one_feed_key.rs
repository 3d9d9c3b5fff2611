//! Two rules the database now keeps:
//! - A closed survey keeps paying the completes that were in the field: `closed_at` records
//!   when it closed, so the reservation kept for open entries is released once the grace
//!   period after it has passed (`app::domain::surveys::grace`).
//! - One active static feed key per slot and one app key per placement, as for the other
//!   keys (m0010): concurrent issuers could otherwise leave two working keys behind. Creating
//!   the indexes fails if a database already holds two active keys of one slot or placement;
//!   deactivate the older one first.

use crate::kit::*;
use sea_orm_migration::schema::timestamp_with_time_zone_null;

migration!("m0020_survey_grace_one_feed_key");

const INDEXES: [SqlIndex; 2] = [
    (
        "idx_static_keys_active",
        "static_keys (ad_slot_id) WHERE deactivated_at IS NULL",
    ),
    (
        "idx_app_keys_active",
        "app_keys (placement_id) WHERE revoked_at IS NULL",
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    add_column(
        m,
        "survey_campaigns",
        timestamp_with_time_zone_null(t("closed_at")),
    )
    .await?;
    create_unique_sql_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_sql_indexes(m, &INDEXES).await?;
    drop_column(m, "survey_campaigns", "closed_at").await
}
