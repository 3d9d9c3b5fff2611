//! Removing a placement's reward callback receiver: with its slots archived, what a
//! placement's deletion waits for ("no configured callback"). History is never erased:
//! deliveries and audit records keep naming the placement.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::CallbackKeyState;
use crate::domain::callback_delivery::outbox;
use crate::domain::publisher::{commit_placement, owned_placement};
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::callback_delivery::CallbackRemoved;
use entity::{callback_key, callback_receiver, placement};

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
        .col_expr(
            callback_key::Column::State,
            Expr::value(CallbackKeyState::Retired),
        )
        .col_expr(callback_key::Column::RetiredAt, Expr::value(now))
        .filter(callback_key::Column::PlacementId.eq(p.id.clone()))
        .filter(
            callback_key::Column::State.is_in([CallbackKeyState::Current, CallbackKeyState::Next]),
        )
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
