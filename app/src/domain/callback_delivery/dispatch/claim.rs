//! Claiming due deliveries fairly. One claim takes, for every placement with due work, its
//! next few deliveries in due order, and fills the batch round by round (every placement's
//! first, then every placement's second, …), so one placement's backlog of any size delays
//! another placement's next delivery by at most one round.
//!
//! No query scans a backlog: a recursive walk over the placements that have unsent
//! deliveries (one index probe per placement) finds who has work, then one statement reads
//! each placement's first due rows from the partial index of unsent deliveries
//! (`idx_callback_deliveries_unsent`: placement, due time). The cost grows with the number
//! of placements that have work and the batch size, not with the number of waiting
//! deliveries. Only then are the chosen rows locked and leased.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseBackend, EntityTrait, QueryFilter, QuerySelect, Value,
};

use super::{Claimed, KeyState};
use crate::domain::callback_delivery::account_webhooks;
use crate::domain::callback_delivery::setup::{CallbackKeyState, KeySecrets, open_secret};
use crate::domain::{Ctx, db, sql};
use crate::error::AppError;
use entity::{account_webhook, callback_delivery, callback_key, callback_receiver, placement};

/// Placements one claim considers at most (walked in id order from [`ClaimRequest::after`]).
pub const WALK_LIMIT: usize = 512;

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
    /// Start the walk after this placement id (the last one the previous claim reached,
    /// when more than [`WALK_LIMIT`] placements have work), so every placement gets turns.
    pub after: Option<&'a str>,
}

/// A reversal may go once its confirmation was delivered: DELIVERED, or delivered once and
/// then FAILED on a replay (a failed replay must not strand the reversal). While a replay
/// of the confirmation is pending, the reversal waits, so the receiver hears them in order.
/// Written as a scalar subquery by primary key so that it is a lookup per row: as `EXISTS`
/// PostgreSQL may hash every delivered delivery ever made to answer it.
const DEPENDENCY_MET: &str = "(x.depends_on IS NULL OR (SELECT dep.status = 'DELIVERED' \
     OR (dep.status = 'FAILED' AND dep.delivered_at IS NOT NULL) \
     FROM callback_deliveries dep WHERE dep.id = x.depends_on))";

/// Claims due deliveries for `req.owner` (see the module comment for the order). A delivery
/// is due when it is PENDING (or HELD and its hold has ended), its time has come, no live
/// lease holds it, its receiver is not paused and, for a reversal, its confirmation was
/// delivered.
pub async fn claim(ctx: &Ctx, req: ClaimRequest<'_>) -> Result<Vec<Claimed>, AppError> {
    if req.limit == 0 || req.per_placement == 0 {
        return Ok(Vec::new());
    }
    let placements = with_work(ctx, &req).await?;
    if placements.is_empty() {
        return Ok(Vec::new());
    }
    let order = next_due(ctx, &placements, &req).await?;
    if order.is_empty() {
        return Ok(Vec::new());
    }
    let now = ctx.now();
    let backend = ctx.db.get_database_backend();
    let lock = if backend == DatabaseBackend::Postgres {
        "FOR UPDATE SKIP LOCKED"
    } else {
        ""
    };
    let list = vec!["?"; order.len()].join(", ");
    let mut values: Vec<Value> = order.iter().map(|id| Value::from(id.clone())).collect();
    values.push(now.into());
    let txn = db::begin(&ctx.db).await?;
    // Locked and re-checked: another worker may have taken some since they were read.
    let chosen = callback_delivery::Entity::find()
        .from_raw_sql(sql::statement(
            backend,
            &format!(
                "SELECT d.* FROM callback_deliveries d WHERE d.id IN ({list}) \
                 AND d.status IN ('PENDING', 'HELD') AND (d.lease_until IS NULL OR d.lease_until < ?) {lock}"
            ),
            values,
        ))
        .all(&txn)
        .await?;
    if chosen.is_empty() {
        txn.commit().await?;
        return Ok(Vec::new());
    }
    let until = now + req.lease;
    let mut values: Vec<Value> = vec![req.owner.into(), until.into()];
    values.extend(chosen.iter().map(|d| Value::from(d.id.clone())));
    txn.execute_raw(sql::statement(
        backend,
        &format!(
            "UPDATE callback_deliveries SET lease_owner = ?, lease_until = ? WHERE id IN ({})",
            vec!["?"; chosen.len()].join(", ")
        ),
        values,
    ))
    .await?;
    txn.commit().await?;
    // Back into the round-robin order.
    let rank: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let mut chosen = chosen;
    chosen.sort_by_key(|d| rank.get(d.id.as_str()).copied().unwrap_or(usize::MAX));
    receivers_of(ctx, chosen, req.owner, until).await
}

/// The placements that have unsent deliveries, in id order from `req.after` (wrapping
/// around), without excluded and paused ones.
async fn with_work(ctx: &Ctx, req: &ClaimRequest<'_>) -> Result<Vec<String>, AppError> {
    let mut found = walk(ctx, req.after, WALK_LIMIT).await?;
    if let Some(after) = req.after.filter(|_| found.len() < WALK_LIMIT) {
        let wrapped = walk(ctx, None, WALK_LIMIT - found.len()).await?;
        found.extend(wrapped.into_iter().filter(|p| p.as_str() <= after));
    }
    found.retain(|p| !req.exclude.contains(p));
    if found.is_empty() {
        return Ok(found);
    }
    let paused: HashSet<String> = callback_receiver::Entity::find()
        .select_only()
        .column(callback_receiver::Column::PlacementId)
        .filter(callback_receiver::Column::PlacementId.is_in(found.clone()))
        .filter(callback_receiver::Column::PausedAt.is_not_null())
        .into_tuple()
        .all(&ctx.db)
        .await?
        .into_iter()
        .collect();
    found.retain(|p| !paused.contains(p));
    Ok(found)
}

/// Up to `limit` placement ids with unsent deliveries, ascending, after `after`: one index
/// probe per placement (a loose index scan).
async fn walk(ctx: &Ctx, after: Option<&str>, limit: usize) -> Result<Vec<String>, AppError> {
    let backend = ctx.db.get_database_backend();
    // `ORDER BY placement_id, next_attempt_at LIMIT 1` rather than `MIN(placement_id)`: the
    // order only the partial index of unsent rows gives, so PostgreSQL does not walk the
    // (placement, status) index through every delivered row instead (measured: 40,000 heap
    // fetches for one step behind 40,000 delivered callbacks).
    let next = "SELECT c.placement_id FROM callback_deliveries c \
                WHERE c.status IN ('PENDING', 'HELD') AND c.placement_id > {after} \
                ORDER BY c.placement_id, c.next_attempt_at LIMIT 1";
    let text = format!(
        "WITH RECURSIVE p(pid, n) AS ( \
           SELECT ({first}), 1 \
           UNION ALL \
           SELECT ({step}), p.n + 1 FROM p WHERE p.pid IS NOT NULL AND p.n < ? \
         ) SELECT pid FROM p WHERE pid IS NOT NULL",
        first = next.replace("{after}", "?"),
        step = next.replace("{after}", "p.pid"),
    );
    let rows = ctx
        .db
        .query_all_raw(sql::statement(
            backend,
            &text,
            vec![after.unwrap_or("").into(), as_i64(limit)],
        ))
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|r| r.try_get::<String>("", "pid").ok())
        .collect())
}

/// The ids of each placement's next due deliveries, in round-robin order: every placement's
/// first, then every placement's second, … up to `req.limit`.
async fn next_due(
    ctx: &Ctx,
    placements: &[String],
    req: &ClaimRequest<'_>,
) -> Result<Vec<String>, AppError> {
    let now = ctx.now();
    let backend = ctx.db.get_database_backend();
    let each = req
        .per_placement
        .min(req.limit.div_ceil(placements.len()).max(1));
    let branch = format!(
        "SELECT * FROM (SELECT x.id, x.placement_id, x.next_attempt_at FROM callback_deliveries x \
         WHERE x.placement_id = ? AND x.status IN ('PENDING', 'HELD') AND x.next_attempt_at <= ? \
           AND (x.lease_until IS NULL OR x.lease_until < ?) AND {DEPENDENCY_MET} \
         ORDER BY x.next_attempt_at, x.id LIMIT ?) t"
    );
    let text = vec![branch; placements.len()].join(" UNION ALL ");
    let mut values: Vec<Value> = Vec::with_capacity(placements.len() * 4);
    for p in placements {
        values.extend([p.clone().into(), now.into(), now.into(), as_i64(each)]);
    }
    let rows = ctx
        .db
        .query_all_raw(sql::statement(backend, &text, values))
        .await?;
    let mut per: HashMap<String, Vec<(DateTime<Utc>, String)>> = HashMap::new();
    let mut seen: Vec<String> = Vec::new();
    for r in rows {
        let (Ok(id), Ok(p), Ok(due)) = (
            r.try_get::<String>("", "id"),
            r.try_get::<String>("", "placement_id"),
            r.try_get::<DateTime<Utc>>("", "next_attempt_at"),
        ) else {
            continue;
        };
        if !per.contains_key(&p) {
            seen.push(p.clone());
        }
        per.entry(p).or_default().push((due, id));
    }
    for rows in per.values_mut() {
        rows.sort();
    }
    let mut order = Vec::new();
    for round in 0..each {
        for p in &seen {
            if let Some((_, id)) = per.get(p).and_then(|ids| ids.get(round)) {
                order.push(id.clone());
                if order.len() == req.limit {
                    return Ok(order);
                }
            }
        }
    }
    Ok(order)
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
    let mut urls: HashMap<String, Option<String>> = placement::Entity::find()
        .filter(placement::Column::Id.is_in(placement_ids.clone()))
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|p| (p.id, p.callback_url))
        .collect();
    // The rest are account webhooks (a removed one has no URL: its deliveries are parked).
    let mut hook_keys: HashMap<String, KeyState> = HashMap::new();
    let hooks: Vec<String> = placement_ids
        .iter()
        .filter(|id| !urls.contains_key(*id))
        .cloned()
        .collect();
    if !hooks.is_empty() {
        let live = account_webhook::Entity::find()
            .filter(account_webhook::Column::Id.is_in(hooks))
            .filter(account_webhook::Column::DisabledAt.is_null())
            .all(&ctx.db)
            .await?;
        for h in live {
            let state = match account_webhooks::open_secret(ctx, &h) {
                Ok(secret) => KeyState::Ready(KeySecrets {
                    id: h.id.clone(),
                    secret,
                    next_secret: None,
                }),
                Err(_) => {
                    tracing::error!(webhook = %h.id, "an account webhook's secret cannot be opened");
                    KeyState::Unreadable
                }
            };
            hook_keys.insert(h.id.clone(), state);
            urls.insert(h.id, Some(h.url));
        }
    }
    let mut keys: HashMap<String, KeyState> = hook_keys;
    let rows = callback_key::Entity::find()
        .filter(callback_key::Column::PlacementId.is_in(placement_ids))
        .filter(
            callback_key::Column::State.is_in([CallbackKeyState::Current, CallbackKeyState::Next]),
        )
        .all(&ctx.db)
        .await?;
    let (current, next): (Vec<_>, Vec<_>) = rows
        .into_iter()
        .partition(|k| k.state == CallbackKeyState::Current);
    for k in current {
        let state = match open_secret(ctx, &k) {
            Ok(secret) => KeyState::Ready(KeySecrets {
                id: k.id.clone(),
                secret,
                next_secret: None,
            }),
            Err(_) => {
                tracing::error!(placement = %k.placement_id, key = %k.id, "a callback signing key cannot be opened");
                KeyState::Unreadable
            }
        };
        keys.insert(k.placement_id, state);
    }
    // During a rotation the NEXT key signs the Standard Webhooks header too.
    for k in next {
        if let Some(KeyState::Ready(ready)) = keys.get_mut(&k.placement_id) {
            ready.next_secret = open_secret(ctx, &k).ok();
        }
    }
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
