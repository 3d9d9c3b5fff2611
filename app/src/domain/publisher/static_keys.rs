//! Static feed keys: STATIC_API slots only, expiring within a year, one active key per slot,
//! shown once and stored as SHA-256.

use chrono::Months;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QuerySelect, Set};

use super::owned_slot;
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, crypto, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::publisher::*;
use entity::static_key;

/// Prefix of static feed keys.
pub const PREFIX: &str = "mkt_sfk";

/// Issues a key for a STATIC_API slot and deactivates the slot's earlier keys.
pub async fn issue(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
    req: StaticKeyRequest,
) -> Result<StaticKeyIssued, AppError> {
    crate::domain::db::retry_on_race(|| issue_once(ctx, actor, placement_id, slot_id, req.clone()))
        .await
}

async fn issue_once(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
    req: StaticKeyRequest,
) -> Result<StaticKeyIssued, AppError> {
    let now = ctx.now();
    let mut errs = FieldErrors::new();
    let expires_at = crate::domain::clock::truncate_micros(req.expires_at);
    if expires_at <= now {
        errs.add("expiresAt", "must be in the future");
    } else if now
        .checked_add_months(Months::new(12))
        .is_some_and(|limit| expires_at > limit)
    {
        errs.add("expiresAt", "must be at most one year ahead");
    }
    let reason = req.reason.trim().to_owned();
    if reason.chars().count() < 3 || reason.chars().count() > 200 {
        errs.add("reason", "must be 3 to 200 characters");
    }
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let (_, slot) = owned_slot(&txn, actor, placement_id, slot_id).await?;
    // Issuers of one slot take turns (the row lock), so each revokes the key before it.
    entity::ad_slot::Entity::find_by_id(slot.id.clone())
        .lock_exclusive()
        .one(&txn)
        .await?;
    if SlotType::parse(&slot.r#type) != Some(SlotType::StaticApi) {
        return Err(AppError::conflict(format!(
            "static keys are issued for STATIC_API slots; this slot is {}",
            slot.r#type
        )));
    }
    errs.finish()?;
    static_key::Entity::update_many()
        .col_expr(static_key::Column::DeactivatedAt, Expr::value(Some(now)))
        .filter(static_key::Column::AdSlotId.eq(slot.id.clone()))
        .filter(static_key::Column::DeactivatedAt.is_null())
        .exec(&txn)
        .await?;
    let token = crypto::random_token(PREFIX);
    let id = new_id("sfk");
    static_key::ActiveModel {
        id: Set(id.clone()),
        ad_slot_id: Set(slot.id.clone()),
        key_hash: Set(crypto::sha256_hex(&token)),
        reason: Set(reason.clone()),
        expires_at: Set(expires_at),
        created_at: Set(now),
        deactivated_at: Set(None),
    }
    .insert(&txn)
    .await
    // Two issuers at once: the database keeps one active key; the loser runs again.
    .map_err(crate::domain::db::race_on_unique)?;
    let detail = serde_json::json!({"staticKeyId": id, "reason": reason});
    actor
        .audit(&txn, now, "static_key.issue", ("ad_slot", slot_id), detail)
        .await?;
    // The slot's earlier keys were deactivated: no cached copy may still open the feed.
    ctx.commit_and_announce(txn, [Change::StaticKeys]).await?;
    Ok(StaticKeyIssued {
        static_key_id: id,
        token,
        expires_at,
        displayed_once: true,
    })
}
