//! The advertiser's conversion list pages by advertiser and id, and finds a transaction id
//! across the advertiser's campaigns (issue 34); the existing indexes lead with the campaign.

use crate::kit::*;

// `CREATE INDEX CONCURRENTLY` cannot run inside a transaction (conversions grow with
// traffic, so the build must not block writes).
migration!("m0026_conversions_by_advertiser", no_transaction);

const INDEXES: [crate::PlainIndex; 2] = [
    (
        "idx_conversions_advertiser",
        "conversions",
        &["advertiser_id", "id"],
    ),
    (
        "idx_conversions_advertiser_tx",
        "conversions",
        &["advertiser_id", "transaction_id"],
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::create_indexes_concurrently(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await
}
