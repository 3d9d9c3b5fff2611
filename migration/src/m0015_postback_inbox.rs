//! Indexes of the conversion inbox as a queue: reports accepted during a burst wait as
//! `QUEUED` rows that the settler takes oldest first, and a report's transaction is checked
//! against every earlier report of it at acceptance (conflicting click or goal is refused
//! before it is queued). And a user's paid conversions of a goal, which settlement counts
//! for the per-user cap on every report: without this index PostgreSQL counted them by
//! scanning every approved conversion of the campaign, a cost that grew with its success.

use crate::kit::*;

migration!("m0015_postback_inbox");

const INDEXES: [crate::PlainIndex; 3] = [
    (
        "idx_postback_events_queue",
        "postback_events",
        &["outcome", "received_at"],
    ),
    (
        "idx_postback_events_transaction",
        "postback_events",
        &["campaign_id", "transaction_id"],
    ),
    (
        "idx_conversions_user_goal",
        "conversions",
        &["campaign_id", "external_user_id", "goal_id", "placement_id"],
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await
}
