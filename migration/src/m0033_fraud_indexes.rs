//! Indexes of the fraud controls (issue 51), built without blocking writes (conversions grow
//! with traffic):
//! - the first sightings of a user on an address range and on a device (a conversion keeps
//!   its click's network and device only when the same user, placement and address or device
//!   were not seen that day), partial and covering, so the shared-address and shared-device
//!   signals read one small index range per batch and a repeat conversion adds no entry;
//! - a placement's conversions by time (its held and reversed share, the publisher's rates);
//! - the held conversions (the review queues and the end of pixel review windows), a
//!   partial index as small as the queue.

use crate::kit::*;

// `CREATE INDEX CONCURRENTLY` cannot run inside a transaction.
migration!("m0033_fraud_indexes", no_transaction);

const PLAIN: [crate::PlainIndex; 1] = [(
    "idx_conversions_placement_time",
    "conversions",
    &["placement_id", "created_at"],
)];

/// (name, columns and condition) of the partial indexes.
const PARTIAL: [SqlIndex; 3] = [
    (
        "idx_conversions_network",
        "(\"click_network\", \"created_at\", \"click_ip\", \"placement_id\", \"external_user_id\") \
         WHERE \"click_network\" IS NOT NULL",
    ),
    (
        "idx_conversions_device",
        "(\"device_id\", \"created_at\", \"placement_id\", \"external_user_id\") \
         WHERE \"device_id\" IS NOT NULL",
    ),
    (
        "idx_conversions_held",
        "(\"placement_id\", \"id\") WHERE \"settlement\" = 'HELD'",
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::create_indexes_concurrently(m, &PLAIN).await?;
    crate::create_partial_indexes_concurrently(m, "conversions", &PARTIAL).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    for (name, _) in PARTIAL {
        m.get_connection()
            .execute_unprepared(&format!("DROP INDEX IF EXISTS \"{name}\""))
            .await?;
    }
    crate::drop_indexes(m, &PLAIN).await
}
