//! What a publisher retires: an ad slot it no longer uses (archived) and a reward callback
//! receiver (removed). Both are what a placement's deletion waits for ("no active or
//! disabled slot, no configured callback"), so without them a placement that ever served
//! could never be deleted. History is never erased: sessions, deliveries and audit records
//! keep naming the slot and the placement.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::callbacks::{CURRENT, NEXT, RETIRED};
use super::{commit_placement, owned_placement};
use crate::domain::callback_delivery::outbox;
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::callback_delivery::CallbackRemoved;
use crate::model::publisher::SlotState;
use entity::{ad_slot, callback_key, callback_receiver, placement, static_key};

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
    if SlotState::parse(&slot.state) == Some(SlotState::Active) {
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

/// Removes a placement's reward callback receiver: the URL is cleared, its signing keys are
/// retired (configuring a receiver again creates a new key, shown once), its pause record is
/// dropped, and unsent callbacks wait (WAITING_RECEIVER) until a receiver is configured again,
/// as rewards earned before the first configuration do. 404 when none is configured.
pub async fn remove_callback(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<CallbackRemoved, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    if p.callback_url.is_none() {
        return Err(AppError::not_found("callback receiver"));
    }
    callback_key::Entity::update_many()
        .col_expr(callback_key::Column::State, Expr::value(RETIRED))
        .col_expr(callback_key::Column::RetiredAt, Expr::value(now))
        .filter(callback_key::Column::PlacementId.eq(p.id.clone()))
        .filter(callback_key::Column::State.is_in([CURRENT, NEXT]))
        .exec(&txn)
        .await?;
    callback_receiver::Entity::delete_by_id(p.id.clone())
        .exec(&txn)
        .await?;
    let waiting = outbox::hold_for_receiver(&txn, now, &p.id).await?;
    let id = p.id.clone();
    let mut am: placement::ActiveModel = p.into();
    am.callback_url = Set(None);
    am.updated_at = Set(now);
    am.update(&txn).await?;
    let detail = serde_json::json!({"waiting": waiting});
    commit_placement(ctx, txn, (actor, now), "callback.remove", &id, detail).await?;
    Ok(CallbackRemoved {
        placement_id: id,
        waiting,
    })
}
