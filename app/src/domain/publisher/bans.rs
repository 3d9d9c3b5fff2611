//! User bans: an end user of a placement gets no SDK sessions and no launches while a ban is
//! ACTIVE and unexpired. Lifting keeps the record.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::owned_placement;
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::publisher::ops::*;
use entity::user_ban;

fn check_reason(errs: &mut FieldErrors, reason: &str) -> String {
    let r = reason.trim().to_owned();
    if r.chars().count() < 3 || r.chars().count() > 500 {
        errs.add("reason", "must be 3 to 500 characters");
    }
    r
}

/// Bans a user of one of the actor's placements; a second active ban is a conflict.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    input: CreateUserBan,
) -> Result<UserBan, AppError> {
    let now = ctx.now();
    let mut errs = FieldErrors::new();
    let user = input.external_user_id.trim().to_owned();
    if user.is_empty() || user.chars().count() > 128 {
        errs.add("externalUserId", "must be 1 to 128 characters");
    }
    let reason = check_reason(&mut errs, &input.reason);
    if input.expires_at.is_some_and(|e| e <= now) {
        errs.add("expiresAt", "must be in the future");
    }
    errs.finish()?;
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, &input.placement_id)
        .await
        .map_err(|_| AppError::field("placementId", "no such placement"))?;
    if active_ban(&txn, &p.id, &user, now).await?.is_some() {
        return Err(AppError::conflict(
            "this user already has an active ban on the placement",
        ));
    }
    let id = new_id("ban");
    let row = user_ban::ActiveModel {
        id: Set(id.clone()),
        owner_account_id: Set(p.owner_account_id.clone()),
        placement_id: Set(p.id.clone()),
        external_user_id: Set(user),
        reason: Set(reason),
        status: Set(BanStatus::Active),
        expires_at: Set(input.expires_at.map(crate::domain::clock::truncate_micros)),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    let detail = serde_json::json!({"placementId": p.id});
    actor
        .audit(&txn, now, "user_ban.create", ("user_ban", &id), detail)
        .await?;
    let key = crate::domain::hot_cache::user_key(&row.placement_id, &row.external_user_id);
    ctx.commit_and_announce(txn, [Change::Ban(key)]).await?;
    Ok(view(&row, now))
}

/// The actor's bans, filtered by placement, user and status (`ACTIVE` means in force now).
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: Option<&str>,
    external_user_id: Option<&str>,
    status: Option<&str>,
    page: &crate::domain::paging::Page,
) -> Result<UserBanList, AppError> {
    actor.require_publisher()?;
    let now = ctx.now();
    let status = match status.filter(|s| !s.is_empty()) {
        Some("ACTIVE") => Some(true),
        Some("LIFTED") => Some(false),
        Some(_) => return Err(AppError::field("status", "must be ACTIVE or LIFTED")),
        None => None,
    };
    let mut q = user_ban::Entity::find();
    if !actor.role.is_admin() {
        q = q.filter(user_ban::Column::OwnerAccountId.eq(actor.account_id.clone()));
    }
    if let Some(p) = placement_id {
        q = q.filter(user_ban::Column::PlacementId.eq(p.to_owned()));
    }
    if let Some(u) = external_user_id {
        q = q.filter(user_ban::Column::ExternalUserId.eq(u.to_owned()));
    }
    // In force now: active and not expired (the same rule as `view`), decided in SQL so
    // pages stay full.
    let in_force = sea_orm::Condition::all()
        .add(user_ban::Column::Status.eq(BanStatus::Active.as_str()))
        .add(
            sea_orm::Condition::any()
                .add(user_ban::Column::ExpiresAt.is_null())
                .add(user_ban::Column::ExpiresAt.gt(now)),
        );
    match status {
        Some(true) => q = q.filter(in_force),
        Some(false) => q = q.filter(in_force.not()),
        None => {}
    }
    let rows = page.select(q, user_ban::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |r| &r.id);
    let items: Vec<UserBan> = rows.iter().map(|r| view(r, now)).collect();
    Ok(UserBanList {
        count: items.len(),
        items,
        next_cursor,
    })
}

/// Lifts or reinstates a ban, or changes its reason or expiry.
pub async fn patch(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    input: PatchUserBan,
) -> Result<UserBan, AppError> {
    actor.require_publisher()?;
    let now = ctx.now();
    let mut errs = FieldErrors::new();
    let reason = input.reason.as_deref().map(|r| check_reason(&mut errs, r));
    if let Some(Some(e)) = input.expires_at {
        if e <= now {
            errs.add("expiresAt", "must be in the future");
        }
    }
    errs.finish()?;
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let row = user_ban::Entity::find_by_id(id.to_owned())
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("user ban"))?;
    actor.require_owner(&row.owner_account_id, "user ban")?;
    if input.status == Some(BanStatus::Active) && row.status != BanStatus::Active {
        if let Some(other) = active_ban(&txn, &row.placement_id, &row.external_user_id, now).await?
        {
            if other.id != row.id {
                return Err(AppError::conflict(
                    "this user already has another active ban",
                ));
            }
        }
    }
    let mut am: user_ban::ActiveModel = row.into();
    if let Some(s) = input.status {
        am.status = Set(s);
    }
    if let Some(r) = reason {
        am.reason = Set(r);
    }
    if let Some(e) = input.expires_at {
        am.expires_at = Set(e.map(crate::domain::clock::truncate_micros));
    }
    am.updated_at = Set(now);
    let row = am.update(&txn).await?;
    let detail = serde_json::json!({"status": row.status});
    actor
        .audit(&txn, now, "user_ban.update", ("user_ban", id), detail)
        .await?;
    let key = crate::domain::hot_cache::user_key(&row.placement_id, &row.external_user_id);
    ctx.commit_and_announce(txn, [Change::Ban(key)]).await?;
    Ok(view(&row, now))
}

/// The ban in force for a user of a placement, if any (sessions and launches check this).
pub async fn active_ban<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
    external_user_id: &str,
    now: DateTime<Utc>,
) -> Result<Option<user_ban::Model>, AppError> {
    Ok(active_bans(db, placement_id, external_user_id)
        .await?
        .into_iter()
        .find(|r| r.expires_at.is_none_or(|e| e > now)))
}

/// A user's ACTIVE bans on a placement, expired or not (the hot cache keeps their expiries
/// and compares them with the clock on every request).
pub async fn active_bans<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
    external_user_id: &str,
) -> Result<Vec<user_ban::Model>, AppError> {
    Ok(user_ban::Entity::find()
        .filter(user_ban::Column::PlacementId.eq(placement_id.to_owned()))
        .filter(user_ban::Column::ExternalUserId.eq(external_user_id.to_owned()))
        .filter(user_ban::Column::Status.eq(BanStatus::Active.as_str()))
        .all(db)
        .await?)
}

fn view(r: &user_ban::Model, now: DateTime<Utc>) -> UserBan {
    let status = if r.status == BanStatus::Active {
        BanStatus::Active
    } else {
        BanStatus::Lifted
    };
    UserBan {
        ban_id: r.id.clone(),
        placement_id: r.placement_id.clone(),
        external_user_id: r.external_user_id.clone(),
        reason: r.reason.clone(),
        status,
        effective: status == BanStatus::Active && r.expires_at.is_none_or(|e| e > now),
        expires_at: r.expires_at,
        created_at: r.created_at,
        updated_at: r.updated_at,
    }
}
