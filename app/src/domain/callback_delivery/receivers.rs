//! The health of each placement's callback receiver: a failure streak (since when every
//! attempt has failed) and a pause. A receiver that has failed for [`PAUSE_AFTER`] is
//! paused, as webhook services do with dead endpoints: its deliveries stay PENDING, no
//! attempt is made, the placement page and the deliveries console say so, and one click
//! (or `POST …/callback/resume`) resumes it and makes its pending deliveries due at once.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, PaginatorTrait, QueryFilter,
    Value,
};

use crate::domain::notices::{self, Notice};
use crate::domain::publisher::owned_placement;
use crate::domain::{Ctx, Principal, db, sql};
use crate::error::AppError;
use crate::model::NoticeTopic;
use crate::model::callback_delivery::{PausedReceiver, ReceiverResumed};
use entity::{account_webhook, callback_delivery, callback_receiver, placement};

/// How long a receiver may fail every attempt before delivery to it is paused.
pub const PAUSE_AFTER: Duration = Duration::hours(24);
/// How long a receiver may fail every attempt before its owner is told (once a streak).
pub const TELL_AFTER: Duration = Duration::hours(1);

/// Keeps the failure streaks after a batch of attempts: a success ends a placement's
/// streak, a failure starts one (or keeps it), and a streak older than [`PAUSE_AFTER`]
/// pauses the receiver.
pub(crate) async fn note_outcomes(
    ctx: &Ctx,
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    ok: &BTreeSet<&str>,
    failing: &BTreeSet<&str>,
) -> Result<(), AppError> {
    let backend = txn.get_database_backend();
    if !ok.is_empty() {
        let mut values: Vec<Value> = vec![now.into()];
        values.extend(ok.iter().map(|p| Value::from((*p).to_owned())));
        txn.execute_raw(sql::statement(
            backend,
            &format!(
                "UPDATE callback_receivers SET failing_since = NULL, told_failing_at = NULL, \
                 updated_at = ? WHERE placement_id IN ({}) AND failing_since IS NOT NULL",
                vec!["?"; ok.len()].join(", ")
            ),
            values,
        ))
        .await?;
    }
    for p in failing {
        txn.execute_raw(sql::statement(
            backend,
            "INSERT INTO callback_receivers (placement_id, failing_since, paused_at, updated_at) \
             VALUES (?, ?, NULL, ?) ON CONFLICT (placement_id) DO UPDATE \
             SET failing_since = COALESCE(callback_receivers.failing_since, excluded.failing_since), \
                 updated_at = excluded.updated_at",
            vec![(*p).to_owned().into(), now.into(), now.into()],
        ))
        .await?;
        let paused = txn
            .execute_raw(sql::statement(
                backend,
                "UPDATE callback_receivers SET paused_at = ? \
                 WHERE placement_id = ? AND paused_at IS NULL AND failing_since <= ?",
                vec![
                    now.into(),
                    (*p).to_owned().into(),
                    (now - PAUSE_AFTER).into(),
                ],
            ))
            .await?
            .rows_affected();
        if paused > 0 {
            tracing::warn!(receiver = %p, "callback receiver failed for 24 hours; delivery paused");
            tell(ctx, txn, now, p, true).await?;
            continue;
        }
        let told = txn
            .execute_raw(sql::statement(
                backend,
                "UPDATE callback_receivers SET told_failing_at = ? \
                 WHERE placement_id = ? AND told_failing_at IS NULL AND failing_since <= ?",
                vec![
                    now.into(),
                    (*p).to_owned().into(),
                    (now - TELL_AFTER).into(),
                ],
            ))
            .await?
            .rows_affected();
        if told > 0 {
            tell(ctx, txn, now, p, false).await?;
        }
    }
    Ok(())
}

/// Tells the owner of receiver `id` (a placement's, or an account webhook) that it has
/// failed for an hour (`paused` false) or was paused.
async fn tell(
    ctx: &Ctx,
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    id: &str,
    paused: bool,
) -> Result<(), AppError> {
    let (owner, what, link) = match placement::Entity::find_by_id(id.to_owned())
        .one(txn)
        .await?
    {
        Some(p) => (
            p.owner_account_id,
            format!("The callback receiver of placement “{}”", p.name),
            format!("/publisher/placements/{}#delivery-health", p.id),
        ),
        None => match account_webhook::Entity::find_by_id(id.to_owned())
            .one(txn)
            .await?
        {
            Some(h) => (
                h.account_id,
                format!("Your account webhook {}", h.url),
                "/account/notifications#webhooks".to_owned(),
            ),
            None => return Ok(()),
        },
    };
    let n = if paused {
        Notice::new(
            NoticeTopic::ReceiverPaused,
            format!("{what} is paused"),
            format!(
                "{what} has failed every attempt for a day, so delivery to it is paused. Its \
                 events wait and nothing is lost: fix the receiver and resume delivery."
            ),
        )
    } else {
        Notice::new(
            NoticeTopic::ReceiverFailing,
            format!("{what} is failing"),
            format!(
                "{what} has failed every attempt for an hour. Failed events are retried; after \
                 a day of failures delivery is paused until you resume it."
            ),
        )
    };
    notices::tell(ctx, txn, now, &owner, n.about("receiver", id, link)).await?;
    Ok(())
}

/// The receiver state of a placement (None: never failed).
pub async fn state<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
) -> Result<Option<callback_receiver::Model>, AppError> {
    Ok(
        callback_receiver::Entity::find_by_id(placement_id.to_owned())
            .one(db)
            .await?,
    )
}

/// Resumes delivery to a placement's receiver (the owner's publisher account): clears the
/// pause and the failure streak and makes every pending delivery due now. Resuming a
/// receiver that is not paused only makes its pending retries due (a "retry now").
pub async fn resume(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<ReceiverResumed, AppError> {
    let p = owned_placement(&ctx.db, actor, placement_id).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let pending = clear_pause(&txn, now, &p.id).await?;
    let detail = serde_json::json!({ "pending": pending });
    actor
        .audit(&txn, now, "callback.resume", ("placement", &p.id), detail)
        .await?;
    txn.commit().await?;
    super::announce(ctx).await;
    Ok(ReceiverResumed {
        placement_id: p.id,
        pending,
    })
}

/// Clears receiver `id`'s pause and failure streak and makes its pending deliveries due now;
/// returns how many are pending.
pub(crate) async fn clear_pause(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    id: &str,
) -> Result<u64, AppError> {
    let backend = txn.get_database_backend();
    txn.execute_raw(sql::statement(
        backend,
        "UPDATE callback_receivers SET paused_at = NULL, failing_since = NULL, \
         told_failing_at = NULL, updated_at = ? WHERE placement_id = ?",
        vec![now.into(), id.to_owned().into()],
    ))
    .await?;
    txn.execute_raw(sql::statement(
        backend,
        "UPDATE callback_deliveries SET next_attempt_at = ?, updated_at = ? \
         WHERE placement_id = ? AND status = 'PENDING' AND next_attempt_at > ?",
        vec![now.into(), now.into(), id.to_owned().into(), now.into()],
    ))
    .await?;
    Ok(callback_delivery::Entity::find()
        .filter(callback_delivery::Column::PlacementId.eq(id.to_owned()))
        .filter(callback_delivery::Column::Status.eq("PENDING"))
        .count(txn)
        .await?)
}

/// The caller's placements whose receiver is paused (the deliveries console's notice).
pub async fn paused(ctx: &Ctx, actor: &Principal) -> Result<Vec<PausedReceiver>, AppError> {
    actor.require_publisher()?;
    let rows = callback_receiver::Entity::find()
        .filter(callback_receiver::Column::PausedAt.is_not_null())
        .find_also_related(placement::Entity)
        .filter(placement::Column::OwnerAccountId.eq(actor.account_id.clone()))
        .all(&ctx.db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(r, p)| {
            Some(PausedReceiver {
                placement_id: r.placement_id,
                placement_name: p?.name,
                paused_at: r.paused_at?,
            })
        })
        .collect())
}
