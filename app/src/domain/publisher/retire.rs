//! What a publisher retires: an ad slot it no longer uses (archived). With a removed reward
//! callback receiver (`callback_delivery::setup::remove`) it is what a placement's deletion
//! waits for ("no active or disabled slot, no configured callback"), so without them a
//! placement that ever served could never be deleted. History is never erased: sessions,
//! deliveries and audit records keep naming the slot and the placement.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::owned_placement;
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::publisher::SlotState;
use entity::{ad_slot, static_key};

/// Archives an ad slot: it leaves lists, delivery and the placement's obligations, and its
/// static keys stop opening the feed. An ACTIVE slot is serving users and must be disabled
/// first (409 `slot_active`).
pub async fn archive_slot(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
) -> Result<(), AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    let slot = ad_slot::Entity::find_by_id(slot_id.to_owned())
        .filter(ad_slot::Column::PlacementId.eq(p.id.clone()))
        .filter(ad_slot::Column::ArchivedAt.is_null())
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("ad slot"))?;
    if slot.state == SlotState::Active {
        return Err(AppError::conflict(
            "the ad slot is active and serving users; disable it before archiving it",
        )
        .with_code("slot_active"));
    }
    let mut am: ad_slot::ActiveModel = slot.into();
    am.archived_at = Set(Some(now));
    am.updated_at = Set(now);
    am.update(&txn).await?;
    static_key::Entity::update_many()
        .col_expr(static_key::Column::DeactivatedAt, Expr::value(now))
        .filter(static_key::Column::AdSlotId.eq(slot_id.to_owned()))
        .filter(static_key::Column::DeactivatedAt.is_null())
        .exec(&txn)
        .await?;
    let audited = serde_json::json!({"placementId": p.id});
    actor
        .audit(&txn, now, "ad_slot.archive", ("ad_slot", slot_id), audited)
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig, Change::StaticKeys])
        .await?;
    Ok(())
}
