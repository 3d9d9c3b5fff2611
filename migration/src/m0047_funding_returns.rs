//! Money that goes back to the payer after a provider funding was credited (issue 55): the
//! capture it was paid by (PayPal's refund and reversal events name the capture, not the
//! order) and how much of it has been returned so far.

use crate::kit::*;
use sea_orm_migration::schema::{big_integer, string_null};

migration!("m0047_funding_returns");

const INDEXES: [crate::PlainIndex; 1] = [(
    "idx_fundings_provider_capture",
    "fundings",
    &["provider_capture_id"],
)];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    add_column(m, "fundings", string_null(t("provider_capture_id"))).await?;
    add_column(m, "fundings", big_integer(t("returned_micros")).default(0)).await?;
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await?;
    drop_column(m, "fundings", "returned_micros").await?;
    drop_column(m, "fundings", "provider_capture_id").await
}
