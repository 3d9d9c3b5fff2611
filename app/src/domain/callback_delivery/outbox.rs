//! Writing reward callbacks, always inside the settlement transaction that decides them:
//! a confirmation when an approved conversion is credited (held until the goal's pending
//! hold ends), a linked reversal when a credited conversion is reversed. A placement without
//! a receiver keeps its callbacks (`WAITING_RECEIVER`) until one is configured.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::payload::RewardPayload;
use crate::domain::ids::new_id;
use crate::error::AppError;
use crate::model::callback_delivery::DeliveryStatus;
use crate::model::publisher::RewardPreview;
use entity::{ad_slot, callback_delivery, placement};

/// How reward callbacks' ids begin (an account webhook's deliveries begin `msg_`).
pub const ID_PREFIX: &str = "dlv_";

/// Event type of a credited reward.
pub const CONFIRMED: &str = "reward.confirmed";
/// Event type of a reversed reward (carries `reversesEventId`).
pub const REVERSED: &str = "reward.reversed";

/// What a reward callback reports.
pub struct RewardEvent<'a> {
    pub placement: &'a placement::Model,
    pub slot: Option<&'a ad_slot::Model>,
    pub conversion_id: &'a str,
    pub campaign_id: &'a str,
    pub user: &'a str,
    pub goal_id: &'a str,
    pub reward: &'a RewardPreview,
    pub occurred_at: DateTime<Utc>,
}

async fn insert<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    ev: &RewardEvent<'_>,
    event: &str,
    due: DateTime<Utc>,
    depends_on: Option<String>,
) -> Result<String, AppError> {
    let id = new_id("dlv");
    let mut payload = RewardPayload {
        event_id: &id,
        event_type: event,
        test: false,
        transaction_id: ev.conversion_id,
        placement_id: &ev.placement.id,
        ad_slot_id: ev.slot.map(|s| s.id.as_str()),
        external_user_id: ev.user,
        campaign_id: ev.campaign_id,
        goal_id: ev.goal_id,
        reward: ev.reward,
        occurred_at: ev.occurred_at,
    }
    .to_json();
    if let Some(confirmation) = &depends_on {
        // Links the reversal to the confirmation it undoes (same transactionId too).
        payload["reversesEventId"] = serde_json::json!(confirmation);
    }
    let status = if ev.placement.callback_url.is_none() {
        DeliveryStatus::WaitingReceiver
    } else if due > now {
        DeliveryStatus::Held
    } else {
        DeliveryStatus::Pending
    };
    let row = callback_delivery::ActiveModel {
        id: Set(id.clone()),
        placement_id: Set(ev.placement.id.clone()),
        owner_account_id: Set(ev.placement.owner_account_id.clone()),
        conversion_id: Set(ev.conversion_id.to_owned()),
        event: Set(event.to_owned()),
        payload: Set(payload.to_string()),
        status: Set(status),
        attempts: Set(0),
        next_attempt_at: Set(due.max(now)),
        last_response_status: Set(None),
        last_error: Set(None),
        key_id: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        delivered_at: Set(None),
        external_user_id: Set(Some(ev.user.to_owned())),
        campaign_id: Set(Some(ev.campaign_id.to_owned())),
        depends_on: Set(depends_on),
        lease_owner: Set(None),
        lease_until: Set(None),
        replays: Set(0),
        failed_at: Set(None),
    };
    callback_delivery::Entity::insert(row)
        .exec_without_returning(db)
        .await?;
    if status == DeliveryStatus::Pending {
        super::notify_on_commit(db).await?;
    }
    Ok(id)
}

/// Queues the confirmation of a credited reward; it is sent at `credit_at` (the end of the
/// goal's pending hold, or now).
pub async fn confirm<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    ev: &RewardEvent<'_>,
    credit_at: DateTime<Utc>,
) -> Result<String, AppError> {
    insert(db, now, ev, CONFIRMED, credit_at, None).await
}

/// What happened to the publisher side of a reversed reward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reversal {
    /// The confirmation had not been sent: it is cancelled and no reversal is sent.
    Cancelled,
    /// A reversal is queued behind the confirmation (this delivery id).
    Queued(String),
    /// Nothing was ever queued for the conversion (no confirmation exists).
    Nothing,
}

/// Reverses the publisher side of a conversion: a confirmation that no attempt has touched
/// (held, waiting for a receiver, or due and unclaimed) is cancelled, so the publisher hears
/// nothing; otherwise a reversal is queued that is not sent before the confirmation has
/// been delivered.
pub async fn reverse<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    ev: &RewardEvent<'_>,
) -> Result<Reversal, AppError> {
    let Some(confirmation) = callback_delivery::Entity::find()
        .filter(callback_delivery::Column::ConversionId.eq(ev.conversion_id.to_owned()))
        .filter(callback_delivery::Column::Event.eq(CONFIRMED))
        .one(db)
        .await?
    else {
        return Ok(Reversal::Nothing);
    };
    let cancelled = callback_delivery::Entity::update_many()
        .col_expr(
            callback_delivery::Column::Status,
            Expr::value(DeliveryStatus::Cancelled.as_str()),
        )
        .col_expr(callback_delivery::Column::UpdatedAt, Expr::value(now))
        .filter(callback_delivery::Column::Id.eq(confirmation.id.clone()))
        .filter(callback_delivery::Column::Status.is_in([
            DeliveryStatus::Held.as_str(),
            DeliveryStatus::WaitingReceiver.as_str(),
            DeliveryStatus::Pending.as_str(),
        ]))
        .filter(callback_delivery::Column::Attempts.eq(0))
        .filter(callback_delivery::Column::LeaseOwner.is_null())
        .exec(db)
        .await?
        .rows_affected;
    if cancelled == 1 {
        return Ok(Reversal::Cancelled);
    }
    if confirmation.status == DeliveryStatus::Cancelled {
        return Ok(Reversal::Nothing);
    }
    let id = insert(db, now, ev, REVERSED, now, Some(confirmation.id)).await?;
    Ok(Reversal::Queued(id))
}

/// Releases the callbacks kept for a placement without a receiver (called when the
/// receiver is configured, in the same transaction): due ones become PENDING, those still
/// in their pending hold become HELD.
pub async fn release_waiting<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    placement_id: &str,
) -> Result<u64, AppError> {
    let mut released = 0;
    for (status, still_held) in [
        (DeliveryStatus::Held, true),
        (DeliveryStatus::Pending, false),
    ] {
        let mut q = callback_delivery::Entity::update_many()
            .col_expr(
                callback_delivery::Column::Status,
                Expr::value(status.as_str()),
            )
            .col_expr(callback_delivery::Column::UpdatedAt, Expr::value(now))
            .filter(callback_delivery::Column::PlacementId.eq(placement_id.to_owned()))
            .filter(callback_delivery::Column::Status.eq(DeliveryStatus::WaitingReceiver.as_str()));
        if still_held {
            q = q.filter(callback_delivery::Column::NextAttemptAt.gt(now));
        }
        released += q.exec(db).await?.rows_affected;
    }
    Ok(released)
}

/// The inverse of [`release_waiting`]: a placement's unsent callbacks wait again (its
/// receiver was removed). Rows a worker holds keep their lease: its outcome still records.
pub async fn hold_for_receiver<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    placement_id: &str,
) -> Result<u64, AppError> {
    Ok(callback_delivery::Entity::update_many()
        .col_expr(
            callback_delivery::Column::Status,
            Expr::value(DeliveryStatus::WaitingReceiver.as_str()),
        )
        .col_expr(callback_delivery::Column::UpdatedAt, Expr::value(now))
        .filter(callback_delivery::Column::PlacementId.eq(placement_id.to_owned()))
        .filter(callback_delivery::Column::Status.is_in([
            DeliveryStatus::Pending.as_str(),
            DeliveryStatus::Held.as_str(),
        ]))
        .exec(db)
        .await?
        .rows_affected)
}
