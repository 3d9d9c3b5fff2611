//! The reward-callback delivery worker: claims due deliveries fairly across placements
//! (`app::domain::callback_delivery::dispatch`), POSTs each signed event to the publisher's
//! HTTPS receiver with up to `APP_CALLBACK_CONCURRENCY` requests in flight per receiver,
//! and records outcomes in batches.
//!
//! - [`dispatcher`]: the long-running loop of `server serve` (per-placement queues, fair
//!   refills, lease renewal, batched recording).
//! - Waking: this process's own settlements wake the loop directly; another process's
//!   settlement wakes it through `NOTIFY callback_deliveries_due`, heard by the process's one
//!   listening connection (`app::domain::changes::transport`).
//! - [`sender`]: the HTTP client and how an attempt's outcome is classified.

pub mod dispatcher;

use std::collections::HashMap;

use app::domain::callback_delivery::LEASE_SECONDS;
use app::domain::callback_delivery::dispatch::record::Recorded;
use app::domain::callback_delivery::dispatch::{self, ClaimRequest, Claimed, Finished, Outcome};
use futures::StreamExt;

pub use crate::callback_sender::Sender;

use crate::state::AppState;

/// This process's claim owner: unique per start, so a restarted process does not mistake
/// a dead process's claims for its own.
pub(crate) fn owner_id() -> String {
    format!("wrk_{}", uuid::Uuid::now_v7().simple())
}

/// The lease every claim takes.
pub(crate) fn lease() -> chrono::Duration {
    chrono::Duration::seconds(LEASE_SECONDS)
}

/// Signs and sends one claimed delivery; None when it waits for a receiver (parked).
pub(crate) async fn attempt(state: &AppState, owner: &str, c: Claimed) -> Option<Finished> {
    let ctx = &state.ctx;
    if c.waits_for_receiver() {
        if let Err(e) = dispatch::park(ctx, owner, &c).await {
            tracing::warn!(delivery = %c.delivery.id, error = %e, "parking a reward callback failed");
        }
        return None;
    }
    match c.sign(ctx.now()) {
        Some(attempt) => {
            let url = c.url.clone().unwrap_or_default();
            let outcome = state.callbacks.send(ctx, &url, &attempt).await;
            Some(Finished::sent(c, &attempt, outcome))
        }
        None => Some(Finished {
            outcome: Outcome::unreadable_key(ctx.now()),
            claimed: c,
            sent: None,
        }),
    }
}

/// Counts and logs what a recorded batch became.
pub(crate) fn observe(recorded: &[Recorded], now: chrono::DateTime<chrono::Utc>) {
    for r in recorded {
        crate::metrics::callback_attempt(r.status.as_str());
        if r.status == app::model::callback_delivery::DeliveryStatus::Delivered {
            let lag = now
                .signed_duration_since(r.created_at)
                .num_milliseconds()
                .max(0) as f64
                / 1_000.0;
            crate::metrics::callback_delivered_after(lag);
        }
        tracing::debug!(
            delivery = %r.delivery_id,
            placement = %r.placement_id,
            status = r.status.as_str(),
            "reward callback attempt"
        );
    }
}

/// Delivers everything due now (tests drive this with the test clock): releases rewards
/// left waiting on placements that have a receiver, then claims, sends and records until
/// nothing due is left (a reversal whose confirmation was just delivered is picked up by
/// the next round). Returns how many deliveries it claimed.
pub async fn run_once(state: &AppState) -> anyhow::Result<usize> {
    let ctx = &state.ctx;
    let owner = owner_id();
    dispatch::release_orphans(ctx).await?;
    let per_receiver = state.callbacks.per_receiver;
    let mut claimed_total = 0;
    for _ in 0..50 {
        let claimed = dispatch::claim(
            ctx,
            ClaimRequest {
                owner: &owner,
                limit: 512,
                per_placement: 512,
                exclude: &[],
                lease: lease(),
                after: None,
            },
        )
        .await?;
        if claimed.is_empty() {
            break;
        }
        claimed_total += claimed.len();
        let mut by_placement: HashMap<String, Vec<Claimed>> = HashMap::new();
        for c in claimed {
            by_placement
                .entry(c.delivery.placement_id.clone())
                .or_default()
                .push(c);
        }
        // Placements side by side; each receiver gets at most `per_receiver` at once.
        let finished: Vec<Finished> = futures::stream::iter(by_placement.into_values())
            .map(|batch| {
                let owner = owner.clone();
                async move {
                    futures::stream::iter(batch)
                        .map(|c| attempt(state, &owner, c))
                        .buffer_unordered(per_receiver)
                        .filter_map(|f| async move { f })
                        .collect::<Vec<_>>()
                        .await
                }
            })
            .buffer_unordered(64)
            .flat_map(futures::stream::iter)
            .collect()
            .await;
        let recorded = dispatch::record_batch(ctx, &owner, finished).await?;
        observe(&recorded, ctx.now());
    }
    Ok(claimed_total)
}
