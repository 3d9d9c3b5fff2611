//! Claiming due deliveries fairly. One claim takes, for every placement with due work, its
//! next few deliveries in due order, and fills the batch round by round (every placement's
//! first, then every placement's second, …), so one placement's backlog of any size delays
//! another placement's next delivery by at most one round.
//!
//! The query does not scan a backlog: a recursive walk over the partial index of unsent
//! deliveries (`idx_callback_deliveries_unsent`: placement, due time) visits each placement
//! with unsent work once, and a per-placement subquery reads only that placement's first
//! due rows from the same index. Its cost grows with the number of placements that have
//! work and the batch size, not with the number of waiting deliveries.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, DatabaseBackend, EntityTrait, QueryFilter, Value};

use super::{Claimed, KeyState, SigningKey};
use crate::domain::{Ctx, db, sql};
use crate::error::AppError;
use entity::{callback_delivery, callback_key, placement};

/// What one claim may take.
#[derive(Debug, Clone, Copy)]
pub struct ClaimRequest<'a> {
    /// The claiming worker (unique per process start).
    pub owner: &'a str,
    /// Deliveries at most.
    pub limit: usize,
    /// Deliveries of one placement at most.
    pub per_placement: usize,
    /// Placements not to claim for now (this worker still holds enough of their work).
    pub exclude: &'a [String],
    /// How long the claim lasts.
    pub lease: Duration,
}

/// A reversal may go once its confirmation was delivered: DELIVERED, or delivered once and
/// then FAILED on a replay (a failed replay must not strand the reversal). While a replay
/// of the confirmation is pending, the reversal waits, so the receiver hears them in order.
const DEPENDENCY_MET: &str = "(x.depends_on IS NULL OR EXISTS (SELECT 1 FROM callback_deliveries dep \
     WHERE dep.id = x.depends_on AND (dep.status = 'DELIVERED' \
     OR (dep.status = 'FAILED' AND dep.delivered_at IS NOT NULL))))";

/// Claims due deliveries for `req.owner` (see the module comment for the order). A delivery
/// is due when it is PENDING (or HELD and its hold has ended), its time has come, no live
/// lease holds it, its receiver is not paused and, for a reversal, its confirmation was
/// delivered.
pub async fn claim(ctx: &Ctx, req: ClaimRequest<'_>) -> Result<Vec<Claimed>, AppError> {
    if req.limit == 0 || req.per_placement == 0 {
        return Ok(Vec::new());
    }
    let now = ctx.now();
    let backend = ctx.db.get_database_backend();
    let excluded = if req.exclude.is_empty() {
        String::new()
    } else {
        format!(
            "AND p.pid NOT IN ({})",
            vec!["?"; req.exclude.len()].join(", ")
        )
    };
    let select = |lock: &str| format!(
        "WITH RECURSIVE p(pid) AS ( \
           SELECT MIN(placement_id) FROM callback_deliveries WHERE status IN ('PENDING', 'HELD') \
           UNION ALL \
           SELECT (SELECT MIN(c.placement_id) FROM callback_deliveries c \
                   WHERE c.status IN ('PENDING', 'HELD') AND c.placement_id > p.pid) \
           FROM p WHERE p.pid IS NOT NULL \
         ), ranked AS ( \
           SELECT y.id, y.next_attempt_at, \
                  ROW_NUMBER() OVER (PARTITION BY y.placement_id ORDER BY y.next_attempt_at, y.id) AS rn \
           FROM p JOIN callback_deliveries y ON y.id IN ( \
               SELECT x.id FROM callback_deliveries x \
               WHERE x.placement_id = p.pid AND x.status IN ('PENDING', 'HELD') \
                 AND x.next_attempt_at <= ? AND (x.lease_until IS NULL OR x.lease_until < ?) \
                 AND {DEPENDENCY_MET} \
               ORDER BY x.next_attempt_at, x.id LIMIT ?) \
           WHERE p.pid IS NOT NULL {excluded} \
             AND NOT EXISTS (SELECT 1 FROM callback_receivers r \
                             WHERE r.placement_id = p.pid AND r.paused_at IS NOT NULL) \
         ) \
         SELECT d.* FROM callback_deliveries d \
         WHERE d.id IN (SELECT id FROM ranked ORDER BY rn, next_attempt_at, id LIMIT ?) \
           AND d.status IN ('PENDING', 'HELD') AND (d.lease_until IS NULL OR d.lease_until < ?) \
         {lock}"
    );
    let mut values: Vec<Value> = vec![now.into(), now.into(), as_i64(req.per_placement)];
    values.extend(req.exclude.iter().map(|p| Value::from(p.clone())));
    values.extend([as_i64(req.limit), now.into()]);
    // A plain read first: when nothing is due (the common case of an idle poll) no write
    // lock is taken, which on SQLite would queue behind settlement's writes.
    let peek = callback_delivery::Entity::find()
        .from_raw_sql(sql::statement(backend, &select(""), values.clone()))
        .all(&ctx.db)
        .await?;
    if peek.is_empty() {
        return Ok(Vec::new());
    }
    let lock = if backend == DatabaseBackend::Postgres {
        "FOR UPDATE SKIP LOCKED"
    } else {
        ""
    };
    let txn = db::begin(&ctx.db).await?;
    let chosen = callback_delivery::Entity::find()
        .from_raw_sql(sql::statement(backend, &select(lock), values))
        .all(&txn)
        .await?;
    if chosen.is_empty() {
        txn.commit().await?;
        return Ok(Vec::new());
    }
    let until = now + req.lease;
    let ids: Vec<String> = chosen.iter().map(|d| d.id.clone()).collect();
    let mut values: Vec<Value> = vec![req.owner.into(), until.into()];
    values.extend(ids.iter().map(|id| Value::from(id.clone())));
    txn.execute_raw(sql::statement(
        backend,
        &format!(
            "UPDATE callback_deliveries SET lease_owner = ?, lease_until = ? WHERE id IN ({})",
            vec!["?"; ids.len()].join(", ")
        ),
        values,
    ))
    .await?;
    txn.commit().await?;
    receivers_of(ctx, chosen, req.owner, until).await
}

/// Adds each claimed delivery's receiver URL and signing key (two queries for the batch).
async fn receivers_of(
    ctx: &Ctx,
    chosen: Vec<callback_delivery::Model>,
    owner: &str,
    until: DateTime<Utc>,
) -> Result<Vec<Claimed>, AppError> {
    let placement_ids: Vec<String> = chosen
        .iter()
        .map(|d| d.placement_id.clone())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let urls: HashMap<String, Option<String>> = placement::Entity::find()
        .filter(placement::Column::Id.is_in(placement_ids.clone()))
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|p| (p.id, p.callback_url))
        .collect();
    let keys: HashMap<String, KeyState> = callback_key::Entity::find()
        .filter(callback_key::Column::PlacementId.is_in(placement_ids))
        .filter(callback_key::Column::State.eq("CURRENT"))
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|k| {
            let state = match crate::domain::publisher::callbacks::open_secret(ctx, &k) {
                Ok(secret) => KeyState::Ready(SigningKey {
                    id: k.id.clone(),
                    secret,
                }),
                Err(_) => {
                    tracing::error!(placement = %k.placement_id, key = %k.id, "a callback signing key cannot be opened");
                    KeyState::Unreadable
                }
            };
            (k.placement_id, state)
        })
        .collect();
    Ok(chosen
        .into_iter()
        .map(|mut d| {
            d.lease_owner = Some(owner.to_owned());
            d.lease_until = Some(until);
            Claimed {
                url: urls.get(&d.placement_id).cloned().flatten(),
                key: keys
                    .get(&d.placement_id)
                    .cloned()
                    .unwrap_or(KeyState::Missing),
                delivery: d,
            }
        })
        .collect())
}

/// Extends the lease of `ids` that `owner` still holds to `now + lease`; returns those it
/// extended (a delivery whose lease ran out may be another worker's now and must not be
/// sent by this one).
pub async fn renew(
    ctx: &Ctx,
    owner: &str,
    ids: &[String],
    lease: Duration,
) -> Result<(HashSet<String>, DateTime<Utc>), AppError> {
    let now = ctx.now();
    let until = now + lease;
    if ids.is_empty() {
        return Ok((HashSet::new(), until));
    }
    let backend = ctx.db.get_database_backend();
    let mut values: Vec<Value> = vec![until.into()];
    values.extend(ids.iter().map(|id| Value::from(id.clone())));
    values.extend([owner.into(), now.into()]);
    let rows = ctx
        .db
        .query_all_raw(sql::statement(
            backend,
            &format!(
                "UPDATE callback_deliveries SET lease_until = ? WHERE id IN ({}) \
                 AND lease_owner = ? AND lease_until > ? RETURNING id",
                vec!["?"; ids.len()].join(", ")
            ),
            values,
        ))
        .await?;
    let kept = rows
        .into_iter()
        .filter_map(|r| r.try_get::<String>("", "id").ok())
        .collect();
    Ok((kept, until))
}

/// Releases rewards left WAITING_RECEIVER on a placement that has a receiver now. Settling
/// a reward reads the placement without locking it, so a reward settled while the
/// publisher configures the first receiver can be written as waiting after the
/// configuration released the others; the worker runs this on every idle tick, so such a
/// reward waits one tick, not forever.
pub async fn release_orphans(ctx: &Ctx) -> Result<u64, AppError> {
    let now = ctx.now();
    let backend = ctx.db.get_database_backend();
    let res = ctx
        .db
        .execute_raw(sql::statement(
            backend,
            "UPDATE callback_deliveries \
             SET status = CASE WHEN next_attempt_at > ? THEN 'HELD' ELSE 'PENDING' END, updated_at = ? \
             WHERE status = 'WAITING_RECEIVER' AND placement_id IN \
               (SELECT pl.id FROM placements pl WHERE pl.callback_url IS NOT NULL \
                AND EXISTS (SELECT 1 FROM callback_keys k WHERE k.placement_id = pl.id AND k.state = 'CURRENT'))",
            vec![now.into(), now.into()],
        ))
        .await?;
    Ok(res.rows_affected())
}

fn as_i64(n: usize) -> Value {
    Value::from(i64::try_from(n).unwrap_or(i64::MAX))
}
