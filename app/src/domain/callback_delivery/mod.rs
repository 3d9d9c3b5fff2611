//! Reward-callback delivery: the outbox rows settlement writes ([`outbox`]), the claim,
//! signing and outcome bookkeeping of the delivery worker ([`dispatch`]), the publisher's
//! deliveries console ([`console`]), the receiver address rules ([`address`]) and the
//! receiver's settings and signing keys ([`setup`]). The HTTP
//! sending itself lives in the server crate's worker.
//!
//! Deliveries go out as fast as receivers take them: the worker claims due deliveries
//! fairly across placements (one placement's backlog never delays another's next event by
//! more than one round), sends up to a per-receiver limit concurrently over pooled
//! connections (a conversion's confirmation always before its reversal) and records
//! outcomes in batches. It wakes when a delivery becomes due ([`DueSignal`]: in process at
//! once; other processes through PostgreSQL `NOTIFY`), and polls every 100 ms otherwise.
//!
//! Delivery is at least once with a stable `Idempotency-Key` (the event id): a receiver that
//! answers 2xx has it; anything else is retried on [`RETRY_DELAYS_SECONDS`] (the Standard
//! Webhooks schedule, about three days) with ±10 % jitter, honouring `Retry-After` on 429
//! and 503, and is FAILED after [`MAX_ATTEMPTS`].

pub mod account_webhooks;
pub mod address;
pub mod backlog;
pub mod console;
pub mod dispatch;
pub mod outbox;
pub mod payload;
pub mod receivers;
pub mod setup;
pub mod transport;

use chrono::Duration;
use sea_orm::{ConnectionTrait, DatabaseBackend};
use tokio::sync::Notify;

use crate::domain::Ctx;

/// Delay before attempt n+1 after n failed attempts (n = 1..=9): 5 s, 5 min, 30 min, 2 h,
/// 5 h, 10 h, 14 h, 20 h, 24 h. The first attempt is immediate.
pub const RETRY_DELAYS_SECONDS: [i64; 9] =
    [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400];
/// Attempts before a delivery is FAILED (the first and nine retries).
pub const MAX_ATTEMPTS: i32 = 10;
/// The longest `Retry-After` honoured (a larger one is capped, not ignored).
pub const MAX_RETRY_AFTER_SECONDS: i64 = 86_400;
/// How long a worker's claim on a delivery lasts; a worker that dies mid-send loses its
/// claim after this and another worker (or the restarted one) sends again.
pub const LEASE_SECONDS: i64 = 60;
/// The PostgreSQL channel on which a process announces due deliveries to the others.
pub use crate::domain::changes::transport::DUE_CHANNEL;

/// Wakes this process's delivery worker when a delivery becomes due. A permit is kept when
/// the worker is busy, so an announcement is never lost.
#[derive(Debug, Default)]
pub struct DueSignal {
    notify: Notify,
}

impl DueSignal {
    /// Something became due (after the commit that made it so).
    pub fn announce(&self) {
        self.notify.notify_one();
    }

    /// Waits for the next announcement.
    pub async fn due(&self) {
        self.notify.notified().await;
    }
}

/// Announces due deliveries after a commit: to this process's worker at once and, on
/// PostgreSQL, to every other process's (a failed NOTIFY only costs them their poll delay).
pub async fn announce(ctx: &Ctx) {
    ctx.deliveries.announce();
    if ctx.db.get_database_backend() == DatabaseBackend::Postgres {
        if let Err(e) = ctx
            .db
            .execute_unprepared(&format!("NOTIFY {DUE_CHANNEL}"))
            .await
        {
            tracing::debug!(error = %e, "announcing due callbacks to other processes failed");
        }
    }
}

/// Inside a settlement transaction: on PostgreSQL a `NOTIFY` that reaches every process's
/// worker when (and only if) the transaction commits. This process's own worker is woken by
/// [`DueSignal::announce`] after the commit.
pub async fn notify_on_commit<C: ConnectionTrait>(db: &C) -> Result<(), sea_orm::DbErr> {
    if db.get_database_backend() == DatabaseBackend::Postgres {
        db.execute_unprepared(&format!("NOTIFY {DUE_CHANNEL}"))
            .await?;
    }
    Ok(())
}

/// When the next attempt is due after `attempts` failed ones, or `None` when the delivery
/// has failed for good. `jitter_permille` is in -100..=100 (±10 %); `retry_after` is the
/// receiver's `Retry-After` in seconds, which lengthens (never shortens) the wait.
pub fn next_delay(
    attempts: i32,
    jitter_permille: i64,
    retry_after: Option<i64>,
) -> Option<Duration> {
    if attempts >= MAX_ATTEMPTS || attempts < 1 {
        return None;
    }
    let base = RETRY_DELAYS_SECONDS[usize::try_from(attempts - 1).ok()?.min(8)];
    let jittered = base * 1_000 + base * jitter_permille.clamp(-100, 100);
    let millis = match retry_after {
        Some(s) => jittered.max(s.clamp(0, MAX_RETRY_AFTER_SECONDS) * 1_000),
        None => jittered,
    };
    Some(Duration::milliseconds(millis.max(1_000)))
}

/// A random jitter in -100..=100 permille.
pub fn random_jitter() -> i64 {
    let b = crate::domain::crypto::random_bytes::<2>();
    i64::from(u16::from_le_bytes(b) % 201) - 100
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_spans_about_three_days_then_fails() {
        assert_eq!(next_delay(1, 0, None), Some(Duration::seconds(5)));
        assert_eq!(next_delay(2, 0, None), Some(Duration::minutes(5)));
        assert_eq!(next_delay(9, 0, None), Some(Duration::hours(24)));
        assert_eq!(next_delay(10, 0, None), None);
        let total: i64 = RETRY_DELAYS_SECONDS.iter().sum();
        assert!((70 * 3600..80 * 3600).contains(&total), "{total}");
    }

    #[test]
    fn jitter_stays_within_ten_percent_and_retry_after_only_lengthens() {
        assert_eq!(next_delay(2, 100, None), Some(Duration::seconds(330)));
        assert_eq!(next_delay(2, -100, None), Some(Duration::seconds(270)));
        assert_eq!(next_delay(2, 500, None), Some(Duration::seconds(330)));
        assert_eq!(next_delay(1, 0, Some(120)), Some(Duration::seconds(120)));
        assert_eq!(next_delay(2, 0, Some(1)), Some(Duration::minutes(5)));
        assert_eq!(
            next_delay(1, 0, Some(10_000_000)),
            Some(Duration::hours(24))
        );
        for _ in 0..100 {
            assert!((-100..=100).contains(&random_jitter()));
        }
    }
}
