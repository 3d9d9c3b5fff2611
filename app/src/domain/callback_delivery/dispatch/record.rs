//! Recording attempts in batches: one transaction for many outcomes, so the receiver's
//! speed, not the database's commit rate, bounds delivery. Every update is conditional on
//! the lease (`lease_owner = me AND lease_until > now`): a worker whose lease ran out
//! records nothing, since another worker may already have sent the delivery again.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction, EntityTrait, Set, Value};

use super::{Attempt, Claimed, Outcome};
use crate::domain::callback_delivery::{next_delay, random_jitter, receivers};
use crate::domain::{Ctx, clock::truncate_micros, db, ids::new_id, sql};
use crate::error::AppError;
use crate::model::callback_delivery::DeliveryStatus;
use entity::callback_delivery_attempt;

/// One finished attempt (or a delivery that could not be signed) waiting to be recorded.
pub struct Finished {
    pub claimed: Claimed,
    /// Key id, nonce and signed timestamp of the request sent (None: nothing was sent).
    pub sent: Option<(String, String, String)>,
    pub outcome: Outcome,
}

impl Finished {
    /// A sent attempt.
    pub fn sent(claimed: Claimed, attempt: &Attempt, outcome: Outcome) -> Self {
        Self {
            claimed,
            sent: Some((
                attempt.key_id.clone(),
                attempt.nonce.clone(),
                attempt.timestamp.clone(),
            )),
            outcome,
        }
    }
}

/// What became of one recorded delivery.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub delivery_id: String,
    pub placement_id: String,
    pub status: DeliveryStatus,
    /// When settlement created the delivery (for the settlement-to-delivery metric).
    pub created_at: DateTime<Utc>,
}

/// Records a batch of attempts in one transaction and moves each delivery on: DELIVERED on
/// 2xx, otherwise the next retry (or FAILED after the last). Attempts whose lease was lost
/// are left out. Also keeps each receiver's failure streak and pauses a receiver that has
/// failed for [`receivers::PAUSE_AFTER`].
pub async fn record_batch(
    ctx: &Ctx,
    owner: &str,
    batch: Vec<Finished>,
) -> Result<Vec<Recorded>, AppError> {
    if batch.is_empty() {
        return Ok(Vec::new());
    }
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let mut kept: HashSet<String> = HashSet::new();
    // Successes in groups of equal column values: one UPDATE per group.
    let mut groups: BTreeMap<(Option<u16>, Option<String>), Vec<String>> = BTreeMap::new();
    for f in batch.iter().filter(|f| f.outcome.delivered()) {
        groups
            .entry((
                f.outcome.response_status,
                f.sent.as_ref().map(|s| s.0.clone()),
            ))
            .or_default()
            .push(f.claimed.delivery.id.clone());
    }
    for ((status, key_id), ids) in groups {
        kept.extend(delivered(&txn, now, owner, status, key_id, &ids).await?);
    }
    let mut out = Vec::with_capacity(batch.len());
    for f in batch.iter().filter(|f| !f.outcome.delivered()) {
        if let Some(status) = failed(&txn, now, owner, f).await? {
            kept.insert(f.claimed.delivery.id.clone());
            out.push(recorded(f, status));
        }
    }
    let attempts: Vec<callback_delivery_attempt::ActiveModel> = batch
        .iter()
        .filter(|f| kept.contains(&f.claimed.delivery.id))
        .map(attempt_row)
        .collect();
    if !attempts.is_empty() {
        callback_delivery_attempt::Entity::insert_many(attempts)
            .exec_without_returning(&txn)
            .await?;
    }
    let ok: BTreeSet<&str> = batch
        .iter()
        .filter(|f| f.outcome.delivered() && kept.contains(&f.claimed.delivery.id))
        .map(|f| f.claimed.delivery.placement_id.as_str())
        .collect();
    let failing: BTreeSet<&str> = batch
        .iter()
        .filter(|f| !f.outcome.delivered() && kept.contains(&f.claimed.delivery.id))
        .map(|f| f.claimed.delivery.placement_id.as_str())
        .filter(|p| !ok.contains(p))
        .collect();
    receivers::note_outcomes(ctx, &txn, now, &ok, &failing).await?;
    txn.commit().await?;
    out.extend(
        batch
            .iter()
            .filter(|f| f.outcome.delivered() && kept.contains(&f.claimed.delivery.id))
            .map(|f| recorded(f, DeliveryStatus::Delivered)),
    );
    Ok(out)
}

fn recorded(f: &Finished, status: DeliveryStatus) -> Recorded {
    Recorded {
        delivery_id: f.claimed.delivery.id.clone(),
        placement_id: f.claimed.delivery.placement_id.clone(),
        status,
        created_at: f.claimed.delivery.created_at,
    }
}

/// Marks `ids` DELIVERED where this worker still holds the lease; returns those it marked.
async fn delivered(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    owner: &str,
    status: Option<u16>,
    key_id: Option<String>,
    ids: &[String],
) -> Result<Vec<String>, AppError> {
    let backend = txn.get_database_backend();
    let mut values: Vec<Value> = vec![
        now.into(),
        status.map(i32::from).into(),
        key_id.into(),
        now.into(),
    ];
    values.extend(ids.iter().map(|id| Value::from(id.clone())));
    values.extend([owner.into(), now.into()]);
    let rows = txn
        .query_all_raw(sql::statement(
            backend,
            &format!(
                "UPDATE callback_deliveries SET status = 'DELIVERED', attempts = attempts + 1, \
                 delivered_at = ?, failed_at = NULL, last_response_status = ?, last_error = NULL, \
                 key_id = ?, lease_owner = NULL, lease_until = NULL, updated_at = ? \
                 WHERE id IN ({}) AND lease_owner = ? AND lease_until > ? RETURNING id",
                vec!["?"; ids.len()].join(", ")
            ),
            values,
        ))
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|r| r.try_get::<String>("", "id").ok())
        .collect())
}

/// Records a failed attempt: the next retry or FAILED. None when the lease was lost.
async fn failed(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    owner: &str,
    f: &Finished,
) -> Result<Option<DeliveryStatus>, AppError> {
    let d = &f.claimed.delivery;
    let o = &f.outcome;
    let number = d.attempts + 1;
    let honoured = o
        .retry_after
        .filter(|_| matches!(o.response_status, Some(429 | 503)));
    let (status, next_at, failed_at) = match next_delay(number, random_jitter(), honoured) {
        Some(wait) => (DeliveryStatus::Pending, now + wait, None),
        None => (DeliveryStatus::Failed, d.next_attempt_at, Some(now)),
    };
    let error = match (&o.error_class, &o.error_message) {
        (Some(class), Some(msg)) => Some(format!("{class}: {msg}")),
        (Some(class), None) => Some(class.clone()),
        _ => None,
    };
    let backend = txn.get_database_backend();
    let rows = txn
        .query_all_raw(sql::statement(
            backend,
            "UPDATE callback_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, \
             failed_at = ?, last_response_status = ?, last_error = ?, \
             key_id = COALESCE(?, key_id), lease_owner = NULL, lease_until = NULL, updated_at = ? \
             WHERE id = ? AND lease_owner = ? AND lease_until > ? RETURNING id",
            vec![
                status.as_str().into(),
                number.into(),
                next_at.into(),
                failed_at.into(),
                o.response_status.map(i32::from).into(),
                error.into(),
                f.sent.as_ref().map(|s| s.0.clone()).into(),
                now.into(),
                d.id.clone().into(),
                owner.into(),
                now.into(),
            ],
        ))
        .await?;
    Ok((!rows.is_empty()).then_some(status))
}

fn attempt_row(f: &Finished) -> callback_delivery_attempt::ActiveModel {
    let d = &f.claimed.delivery;
    let o = &f.outcome;
    let (key_id, nonce, timestamp) = match &f.sent {
        Some((k, n, t)) => (Some(k.clone()), n.clone(), t.clone()),
        None => (None, String::new(), String::new()),
    };
    callback_delivery_attempt::ActiveModel {
        id: Set(new_id("dat")),
        delivery_id: Set(d.id.clone()),
        attempt: Set(d.attempts + 1),
        url: Set(f.claimed.url.clone().unwrap_or_default()),
        key_id: Set(key_id),
        nonce: Set(nonce),
        signed_timestamp: Set(timestamp),
        started_at: Set(truncate_micros(o.started_at)),
        latency_ms: Set(o.latency_ms),
        response_status: Set(o.response_status.map(i32::from)),
        error_class: Set(o.error_class.clone()),
        error_message: Set(o.error_message.clone()),
        response_excerpt: Set(o.response_excerpt.clone()),
        replay: Set(d.delivered_at.is_some() || d.failed_at.is_some()),
    }
}

/// Parks a claimed delivery whose placement has no receiver (or key) any more: it waits,
/// without an attempt, until a receiver is configured. Only while the lease is held.
pub async fn park(ctx: &Ctx, owner: &str, c: &Claimed) -> Result<(), AppError> {
    let now = ctx.now();
    let backend = ctx.db.get_database_backend();
    ctx.db
        .execute_raw(sql::statement(
            backend,
            "UPDATE callback_deliveries SET status = 'WAITING_RECEIVER', lease_owner = NULL, \
             lease_until = NULL, updated_at = ? WHERE id = ? AND lease_owner = ? AND lease_until > ?",
            vec![
                now.into(),
                c.delivery.id.clone().into(),
                owner.into(),
                now.into(),
            ],
        ))
        .await?;
    Ok(())
}
