//! Publisher console rules: placements and their review, ad slots, static keys, reward
//! callback settings and survey app keys.

pub mod app_keys;
pub mod bans;
pub mod blacklists;
pub mod delivery_config;
pub mod gallery;
pub mod placements;
pub mod retire;
pub mod review;
pub mod slots;
pub mod static_keys;
pub mod user_identity;

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter};

use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use entity::{ad_slot, placement};

/// A non-archived placement the actor may act on; anything else is "not found", so another
/// publisher's placements do not even reveal their existence.
pub async fn owned_placement<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    id: &str,
) -> Result<placement::Model, AppError> {
    actor.require_publisher()?;
    let p = placement::Entity::find_by_id(id.to_owned())
        .filter(placement::Column::ArchivedAt.is_null())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("placement"))?;
    actor.require_owner(&p.owner_account_id, "placement")?;
    Ok(p)
}

/// A non-archived slot of an owned placement.
pub async fn owned_slot<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
) -> Result<(placement::Model, ad_slot::Model), AppError> {
    let p = owned_placement(db, actor, placement_id).await?;
    let s = ad_slot::Entity::find_by_id(slot_id.to_owned())
        .filter(ad_slot::Column::PlacementId.eq(p.id.clone()))
        .filter(ad_slot::Column::ArchivedAt.is_null())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("ad slot"))?;
    Ok((p, s))
}

/// Audits `action` on a placement (by whom, when) and commits the change, announcing it so
/// every process reloads the placement's delivery configuration.
pub(crate) async fn commit_placement(
    ctx: &Ctx,
    txn: DatabaseTransaction,
    by: (&Principal, DateTime<Utc>),
    action: &str,
    placement_id: &str,
    detail: serde_json::Value,
) -> Result<(), AppError> {
    let (actor, now) = by;
    actor
        .audit(&txn, now, action, ("placement", placement_id), detail)
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig]).await
}
