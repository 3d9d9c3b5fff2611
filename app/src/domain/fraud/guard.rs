//! Pausing a placement whose conversions are too often held or reversed (issue 51): past
//! [`PauseLimits`] (by default 30 % of at least 20 conversions over 7 days) its delivery
//! stops (offer lists and feeds come back empty, launches are refused) until an
//! administrator resumes it, and the administrators' fraud queue shows it. Counting starts
//! again at a resumption, so a resumed placement is judged by what it does afterwards.
//!
//! Settlements, decisions and reversals mark the placements they touched ([`Watch`]); the
//! fraud worker checks the marked placements every minute (and in `workers::run_once`),
//! one grouped query per placement. Pausing writes the placement and its audit entry in one
//! transaction and announces `Change::DeliveryConfig`, so every process stops delivering
//! within the change door's bound (2 s).

use std::collections::HashSet;
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QuerySelect, Set,
};

use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::campaign::conversions::Settlement;
use crate::model::fraud::DeliveryPauseInput;
use entity::{conversion, placement};

/// Audit subject of placements.
const SUBJECT: &str = "placement";

/// When a placement is paused.
#[derive(Debug, Clone, Copy)]
pub struct PauseLimits {
    /// Held and reversed share, in basis points.
    pub share_bps: i64,
    pub min_conversions: i64,
    pub window_days: i64,
}

impl Default for PauseLimits {
    fn default() -> Self {
        Self {
            share_bps: 3_000,
            min_conversions: 20,
            window_days: 7,
        }
    }
}

/// Placements whose conversions changed since the last check.
#[derive(Default)]
pub struct Watch {
    marked: Mutex<HashSet<String>>,
}

impl Watch {
    /// Marks a placement for the next check.
    pub fn touched(&self, placement_id: &str) {
        if let Ok(mut m) = self.marked.lock() {
            m.insert(placement_id.to_owned());
        }
    }

    fn take(&self) -> Vec<String> {
        self.marked
            .lock()
            .map(|mut m| m.drain().collect())
            .unwrap_or_default()
    }
}

/// A placement's attributed, held and reversed conversions since `since`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shares {
    pub conversions: i64,
    pub held: i64,
    pub reversed: i64,
}

impl Shares {
    /// The held and reversed share in basis points.
    pub fn bad_bps(&self) -> i64 {
        (self.held + self.reversed) * 10_000 / self.conversions.max(1)
    }
}

/// Counts a placement's conversions since `since` (one grouped query).
pub async fn shares<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
    since: DateTime<Utc>,
) -> Result<Shares, AppError> {
    let rows: Vec<(Settlement, i64)> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::Settlement)
        .column_as(Expr::cust("COUNT(*)"), "n")
        .filter(conversion::Column::PlacementId.eq(placement_id.to_owned()))
        .filter(conversion::Column::CreatedAt.gte(since))
        .group_by(conversion::Column::Settlement)
        .into_tuple()
        .all(db)
        .await?;
    let mut s = Shares::default();
    for (settlement, n) in rows {
        match settlement {
            Settlement::Held => s.held += n,
            Settlement::Reversed => s.reversed += n,
            Settlement::UnmatchedClick | Settlement::UnknownGoal | Settlement::OutOfWindow => {
                continue;
            }
            _ => {}
        }
        s.conversions += n;
    }
    Ok(s)
}

/// Checks the marked placements; returns how many it paused. A placement whose check
/// failed (the database went away) stays marked for the next round.
pub async fn run_once(ctx: &Ctx) -> Result<usize, AppError> {
    let mut paused = 0;
    let marked = ctx.fraud.watch.take();
    for (i, id) in marked.iter().enumerate() {
        match check(ctx, id).await {
            Ok(true) => paused += 1,
            Ok(false) => {}
            Err(e) => {
                for left in &marked[i..] {
                    ctx.fraud.watch.touched(left);
                }
                return Err(e);
            }
        }
    }
    Ok(paused)
}

/// Pauses one placement when its share passed the limit; whether it did.
async fn check(ctx: &Ctx, id: &str) -> Result<bool, AppError> {
    let limits = ctx.fraud.limits;
    let now = ctx.now();
    let Some(p) = placement::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
    else {
        return Ok(false);
    };
    if p.delivery_paused_at.is_some() {
        return Ok(false);
    }
    let window = now - Duration::days(limits.window_days);
    let since = p.delivery_resumed_at.map_or(window, |r| r.max(window));
    let s = shares(&ctx.db, &p.id, since).await?;
    if s.conversions < limits.min_conversions || s.bad_bps() < limits.share_bps {
        return Ok(false);
    }
    let reason = format!(
        "{} of {} conversions held or reversed ({} held, {} reversed) since {}",
        s.held + s.reversed,
        s.conversions,
        s.held,
        s.reversed,
        since.format("%Y-%m-%d %H:%M UTC")
    );
    let paused = pause(ctx, None, &p.id, &reason).await?;
    if paused {
        tracing::warn!(placement = %p.id, %reason, "placement paused for fraud review");
    }
    Ok(paused)
}

/// The placement, locked until `txn` ends (a pause and a resumption one after the other).
async fn locked(
    txn: &sea_orm::DatabaseTransaction,
    placement_id: &str,
) -> Result<placement::Model, AppError> {
    placement::Entity::find_by_id(placement_id.to_owned())
        .lock_exclusive()
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("placement"))
}

/// Pauses a placement's delivery (`actor` none: the guard). Returns whether it changed.
async fn pause(
    ctx: &Ctx,
    actor: Option<&Principal>,
    placement_id: &str,
    reason: &str,
) -> Result<bool, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let p = locked(&txn, placement_id).await?;
    if p.delivery_paused_at.is_some() {
        return Ok(false);
    }
    let mut a = p.into_active_model();
    a.delivery_paused_at = Set(Some(now));
    a.delivery_paused_reason = Set(Some(reason.to_owned()));
    a.updated_at = Set(now);
    a.update(&txn).await?;
    crate::domain::audit::record(
        &txn,
        now,
        actor.map(|a| a.account_id.as_str()),
        "placement.delivery_paused",
        (SUBJECT, placement_id),
        serde_json::json!({"reason": reason, "by": if actor.is_some() { "administrator" } else { "fraud guard" }}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    Ok(true)
}

fn note_of(input: &DeliveryPauseInput) -> Result<String, AppError> {
    let note = input.note.as_deref().map(str::trim).unwrap_or_default();
    if note.is_empty() || note.chars().count() > 500 {
        return Err(AppError::field(
            "note",
            "is required, at most 500 characters",
        ));
    }
    Ok(note.to_owned())
}

/// `POST /admin/v1/placements/{id}/pause-delivery`.
pub async fn pause_by_admin(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    input: DeliveryPauseInput,
) -> Result<(), AppError> {
    actor.require_admin()?;
    let note = note_of(&input)?;
    if !pause(ctx, Some(actor), placement_id, &note).await? {
        return Err(
            AppError::conflict("the placement's delivery is already paused")
                .with_code("already_paused"),
        );
    }
    Ok(())
}

/// `POST /admin/v1/placements/{id}/resume-delivery`: delivery resumes, and the held and
/// reversed share counts from now.
pub async fn resume(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    input: DeliveryPauseInput,
) -> Result<(), AppError> {
    actor.require_admin()?;
    let note = note_of(&input)?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let p = locked(&txn, placement_id).await?;
    if p.delivery_paused_at.is_none() {
        return Err(
            AppError::conflict("the placement's delivery is not paused").with_code("not_paused")
        );
    }
    let was = p.delivery_paused_reason.clone();
    let mut a = p.into_active_model();
    a.delivery_paused_at = Set(None);
    a.delivery_paused_reason = Set(None);
    a.delivery_resumed_at = Set(Some(now));
    a.updated_at = Set(now);
    a.update(&txn).await?;
    actor
        .audit(
            &txn,
            now,
            "placement.delivery_resumed",
            (SUBJECT, placement_id),
            serde_json::json!({"note": note, "pausedFor": was}),
        )
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig]).await
}
