//! The delivery worker's bookkeeping: claiming due callbacks under a lease (PostgreSQL
//! `FOR UPDATE SKIP LOCKED`, so any number of `server` processes can run the worker and
//! each delivery is claimed by one; SQLite has a single writer), signing each attempt with
//! a fresh timestamp and nonce, and recording its outcome with the retry schedule.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, LockBehavior, LockType, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    Set,
};

use super::{LEASE_SECONDS, PER_PLACEMENT_BATCH, next_delay, random_jitter};
use crate::domain::publisher::callbacks::{SignedDelivery, sign_delivery};
use crate::domain::{Ctx, crypto, db, ids::new_id};
use crate::error::AppError;
use crate::model::callback_delivery::DeliveryStatus;
use entity::{callback_delivery, callback_delivery_attempt, callback_key, placement};

/// A claimed delivery with what sending it needs.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery: callback_delivery::Model,
    /// The placement's receiver (None: configured nowhere, the delivery is parked).
    pub url: Option<String>,
    /// The CURRENT signing key: id and secret.
    key: Option<(String, String)>,
}

/// How an attempt ended, as the sender observed it.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub started_at: DateTime<Utc>,
    pub latency_ms: i64,
    pub response_status: Option<u16>,
    /// `http_status`, `timeout`, `connect`, `tls`, `address_refused`, `redirect`, `other`.
    pub error_class: Option<String>,
    pub error_message: Option<String>,
    /// The first KiB of the response body.
    pub response_excerpt: Option<String>,
    /// `Retry-After` in seconds (honoured on 429 and 503).
    pub retry_after: Option<i64>,
}

impl Outcome {
    /// Whether the receiver accepted the event (2xx).
    pub fn delivered(&self) -> bool {
        self.response_status
            .is_some_and(|s| (200..300).contains(&s))
    }
}

/// The headers and body of one attempt.
pub struct Attempt {
    pub signed: SignedDelivery,
    pub key_id: String,
    pub nonce: String,
    pub timestamp: String,
}

/// Claims up to `limit` due deliveries for `owner`, at most [`PER_PLACEMENT_BATCH`] per
/// placement and none of the placements in `busy` (those this worker is still sending to).
/// A delivery is due when it is PENDING (or HELD and its hold has ended), its time has
/// come, no live lease holds it, and, for a reversal, its confirmation was delivered.
pub async fn claim(
    ctx: &Ctx,
    owner: &str,
    limit: usize,
    busy: &[String],
) -> Result<Vec<Claimed>, AppError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let now = ctx.now();
    let dep = Alias::new("dep");
    let confirmation_delivered = Query::select()
        .expr(Expr::val(1))
        .from_as(callback_delivery::Entity, dep.clone())
        .and_where(
            Expr::col((dep.clone(), callback_delivery::Column::Id)).equals((
                callback_delivery::Entity,
                callback_delivery::Column::DependsOn,
            )),
        )
        .and_where(
            Expr::col((dep, callback_delivery::Column::Status))
                .eq(DeliveryStatus::Delivered.as_str()),
        )
        .to_owned();
    let mut q = callback_delivery::Entity::find()
        .filter(callback_delivery::Column::Status.is_in([
            DeliveryStatus::Pending.as_str(),
            DeliveryStatus::Held.as_str(),
        ]))
        .filter(callback_delivery::Column::NextAttemptAt.lte(now))
        .filter(
            Condition::any()
                .add(callback_delivery::Column::LeaseUntil.is_null())
                .add(callback_delivery::Column::LeaseUntil.lt(now)),
        )
        .filter(
            Condition::any()
                .add(callback_delivery::Column::DependsOn.is_null())
                .add(Expr::exists(confirmation_delivered)),
        );
    if !busy.is_empty() {
        q = q.filter(callback_delivery::Column::PlacementId.is_not_in(busy.iter().cloned()));
    }
    let txn = db::begin(&ctx.db).await?;
    let candidates = q
        .order_by_asc(callback_delivery::Column::NextAttemptAt)
        .order_by_asc(callback_delivery::Column::Id)
        .limit(u64::try_from(limit * PER_PLACEMENT_BATCH).unwrap_or(u64::MAX))
        .lock_with_behavior(LockType::Update, LockBehavior::SkipLocked)
        .all(&txn)
        .await?;
    let mut per_placement: HashMap<String, usize> = HashMap::new();
    let chosen: Vec<callback_delivery::Model> = candidates
        .into_iter()
        .filter(|d| {
            let n = per_placement.entry(d.placement_id.clone()).or_default();
            *n += 1;
            *n <= PER_PLACEMENT_BATCH
        })
        .take(limit)
        .collect();
    if chosen.is_empty() {
        txn.commit().await?;
        return Ok(Vec::new());
    }
    let until = now + chrono::Duration::seconds(LEASE_SECONDS);
    callback_delivery::Entity::update_many()
        .col_expr(callback_delivery::Column::LeaseOwner, Expr::value(owner))
        .col_expr(callback_delivery::Column::LeaseUntil, Expr::value(until))
        .filter(callback_delivery::Column::Id.is_in(chosen.iter().map(|d| d.id.clone())))
        .exec(&txn)
        .await?;
    txn.commit().await?;

    let placement_ids: Vec<String> = per_placement.into_keys().collect();
    let placements: HashMap<String, placement::Model> = placement::Entity::find()
        .filter(placement::Column::Id.is_in(placement_ids.clone()))
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect();
    let keys: HashMap<String, callback_key::Model> = callback_key::Entity::find()
        .filter(callback_key::Column::PlacementId.is_in(placement_ids))
        .filter(callback_key::Column::State.eq("CURRENT"))
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|k| (k.placement_id.clone(), k))
        .collect();
    let mut out = Vec::with_capacity(chosen.len());
    for mut d in chosen {
        d.lease_owner = Some(owner.to_owned());
        d.lease_until = Some(until);
        let url = placements
            .get(&d.placement_id)
            .and_then(|p| p.callback_url.clone());
        let key = match keys.get(&d.placement_id) {
            Some(k) => Some((
                k.id.clone(),
                crate::domain::publisher::callbacks::open_secret(ctx, k)?,
            )),
            None => None,
        };
        out.push(Claimed {
            delivery: d,
            url,
            key,
        });
    }
    Ok(out)
}

impl Claimed {
    /// Whether the delivery can be sent (a receiver and a signing key exist).
    pub fn sendable(&self) -> bool {
        self.url.is_some() && self.key.is_some()
    }

    /// Signs one attempt: the canonical body, a fresh timestamp and nonce, the CURRENT key.
    pub fn sign(&self, now: DateTime<Utc>) -> Option<Attempt> {
        let (key_id, secret) = self.key.as_ref()?;
        let payload: serde_json::Value = serde_json::from_str(&self.delivery.payload).ok()?;
        let nonce = hex::encode(crypto::random_bytes::<16>());
        let signed = sign_delivery(key_id, secret, &payload, now, &nonce, &self.delivery.id);
        let timestamp = signed
            .headers
            .get("X-Service-Timestamp")
            .cloned()
            .unwrap_or_default();
        Some(Attempt {
            signed,
            key_id: key_id.clone(),
            nonce,
            timestamp,
        })
    }
}

/// Parks a claimed delivery whose placement has no receiver (or key) any more: it waits,
/// without an attempt, until a receiver is configured.
pub async fn park(ctx: &Ctx, owner: &str, c: &Claimed) -> Result<(), AppError> {
    let now = ctx.now();
    callback_delivery::Entity::update_many()
        .col_expr(
            callback_delivery::Column::Status,
            Expr::value(DeliveryStatus::WaitingReceiver.as_str()),
        )
        .col_expr(
            callback_delivery::Column::LeaseOwner,
            Expr::value(None::<String>),
        )
        .col_expr(
            callback_delivery::Column::LeaseUntil,
            Expr::value(None::<DateTime<Utc>>),
        )
        .col_expr(callback_delivery::Column::UpdatedAt, Expr::value(now))
        .filter(callback_delivery::Column::Id.eq(c.delivery.id.clone()))
        .filter(callback_delivery::Column::LeaseOwner.eq(owner))
        .exec(&ctx.db)
        .await?;
    Ok(())
}

/// Records one attempt and moves the delivery on: DELIVERED on 2xx, otherwise the next
/// retry (or FAILED after the last). Only the lease holder may record; a worker whose lease
/// expired (another worker took over) records nothing.
pub async fn record(
    ctx: &Ctx,
    owner: &str,
    c: &Claimed,
    attempt: &Attempt,
    outcome: &Outcome,
) -> Result<DeliveryStatus, AppError> {
    let now = ctx.now();
    let d = &c.delivery;
    let txn = db::begin(&ctx.db).await?;
    let Some(current) = callback_delivery::Entity::find_by_id(d.id.clone())
        .filter(callback_delivery::Column::LeaseOwner.eq(owner))
        .one(&txn)
        .await?
    else {
        txn.commit().await?;
        return Ok(DeliveryStatus::parse(&d.status).unwrap_or(DeliveryStatus::Pending));
    };
    let number = current.attempts + 1;
    let replay = current.delivered_at.is_some() || current.failed_at.is_some();
    callback_delivery_attempt::ActiveModel {
        id: Set(new_id("dat")),
        delivery_id: Set(d.id.clone()),
        attempt: Set(number),
        url: Set(c.url.clone().unwrap_or_default()),
        key_id: Set(Some(attempt.key_id.clone())),
        nonce: Set(attempt.nonce.clone()),
        signed_timestamp: Set(attempt.timestamp.clone()),
        started_at: Set(crate::domain::clock::truncate_micros(outcome.started_at)),
        latency_ms: Set(outcome.latency_ms),
        response_status: Set(outcome.response_status.map(i32::from)),
        error_class: Set(outcome.error_class.clone()),
        error_message: Set(outcome.error_message.clone()),
        response_excerpt: Set(outcome.response_excerpt.clone()),
        replay: Set(replay),
    }
    .insert(&txn)
    .await?;
    let error = match (&outcome.error_class, &outcome.error_message) {
        (Some(class), Some(msg)) => Some(format!("{class}: {msg}")),
        (Some(class), None) => Some(class.clone()),
        _ => None,
    };
    let mut am: callback_delivery::ActiveModel = current.into();
    am.attempts = Set(number);
    am.last_response_status = Set(outcome.response_status.map(i32::from));
    am.last_error = Set(error);
    am.key_id = Set(Some(attempt.key_id.clone()));
    am.lease_owner = Set(None);
    am.lease_until = Set(None);
    am.updated_at = Set(now);
    let status = if outcome.delivered() {
        am.delivered_at = Set(Some(now));
        am.failed_at = Set(None);
        DeliveryStatus::Delivered
    } else {
        let honoured = outcome
            .retry_after
            .filter(|_| matches!(outcome.response_status, Some(429 | 503)));
        match next_delay(number, random_jitter(), honoured) {
            Some(wait) => {
                am.next_attempt_at = Set(now + wait);
                DeliveryStatus::Pending
            }
            None => {
                am.failed_at = Set(Some(now));
                DeliveryStatus::Failed
            }
        }
    };
    am.status = Set(status.as_str().to_owned());
    am.update(&txn).await?;
    txn.commit().await?;
    Ok(status)
}
