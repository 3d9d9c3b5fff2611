//! Indexes the delivery hot paths need once a placement has history: a user's counted
//! conversions on a placement (every offer list, single offer, impression and launch), a
//! campaign's approved conversions by day (caps at launch and settlement), and launches by
//! campaign and time (the inventory snapshot's ranking counters).

use crate::kit::*;

migration!("m0013_delivery_indexes");

const INDEXES: [crate::PlainIndex; 3] = [
    (
        "idx_conversions_user",
        "conversions",
        &["placement_id", "external_user_id"],
    ),
    (
        "idx_conversions_campaign_settlement",
        "conversions",
        &["campaign_id", "settlement", "created_at"],
    ),
    (
        "idx_sdk_launches_campaign",
        "sdk_launches",
        &["campaign_id", "created_at"],
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await
}
