//! A second administrator's approval of large payouts (issue 55, item 2): a payout at or
//! above `APP_PAYOUT_SECOND_APPROVAL_MICROS` records who gave the first approval and when;
//! it becomes APPROVED only when another administrator approves it too.

use crate::kit::*;
use sea_orm_migration::schema::{string_null, timestamp_with_time_zone_null};

migration!("m0046_payout_second_approval");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    add_column(m, "payouts", string_null(t("first_approved_by"))).await?;
    add_column(
        m,
        "payouts",
        timestamp_with_time_zone_null(t("first_approved_at")),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_column(m, "payouts", "first_approved_at").await?;
    drop_column(m, "payouts", "first_approved_by").await
}
