//! The publisher's deliveries console: the callback log with filters and cursor paging,
//! one delivery with its attempts, replays and the per-placement delivery health. Another
//! publisher's delivery is "not found".

use std::collections::BTreeMap;

use chrono::Duration;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};

use super::outbox;
use super::setup as callbacks;
use crate::domain::publisher::owned_placement;
use crate::domain::{Ctx, Policy, Principal};
use crate::error::{AppError, FieldErrors};
use crate::model::callback_delivery::*;
use entity::{callback_delivery, callback_delivery_attempt};

/// Largest page of the delivery log.
pub const MAX_PAGE: u64 = 100;

fn summary(d: &callback_delivery::Model) -> DeliverySummary {
    let status = d.status;
    let due = matches!(status, DeliveryStatus::Held | DeliveryStatus::Pending);
    DeliverySummary {
        delivery_id: d.id.clone(),
        event_id: d.id.clone(),
        event_type: d.event.clone(),
        status,
        placement_id: d.placement_id.clone(),
        transaction_id: d.conversion_id.clone(),
        external_user_id: d.external_user_id.clone(),
        campaign_id: d.campaign_id.clone(),
        attempt_count: d.attempts,
        replays: d.replays,
        next_attempt_at: due.then_some(d.next_attempt_at),
        last_response_status: d.last_response_status,
        last_error: d.last_error.clone(),
        waits_for: d.depends_on.clone(),
        created_at: d.created_at,
        delivered_at: d.delivered_at,
        failed_at: d.failed_at,
    }
}

/// `GET /publisher/v2/callback-deliveries`: newest first, `limit` 1-100 (default 50).
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    q: &DeliveryListQuery,
) -> Result<DeliveryList, AppError> {
    actor.require_publisher()?;
    let mut errs = FieldErrors::new();
    let status = q.status.as_deref().filter(|s| !s.is_empty()).and_then(|s| {
        let parsed = DeliveryStatus::parse(s);
        if parsed.is_none() {
            errs.add(
                "status",
                "must be HELD, WAITING_RECEIVER, PENDING, DELIVERED, FAILED or CANCELLED",
            );
        }
        parsed
    });
    let limit = q.limit.unwrap_or(50);
    if !(1..=MAX_PAGE).contains(&limit) {
        errs.add("limit", "must be 1 to 100");
    }
    let cursor = q.cursor.as_deref().filter(|c| !c.is_empty());
    if cursor.is_some_and(|c| !c.starts_with("dlv_") || c.len() > 64) {
        errs.add("cursor", "must be the nextCursor of the previous page");
    }
    errs.finish()?;
    // Reward callbacks only: an account webhook's deliveries (`msg_…`) share the table and
    // are listed on the account's webhooks card.
    let mut find = callback_delivery::Entity::find()
        .filter(callback_delivery::Column::Id.starts_with(outbox::ID_PREFIX));
    if !actor.role.is_admin() {
        find = find.filter(callback_delivery::Column::OwnerAccountId.eq(actor.account_id.clone()));
    }
    if let Some(s) = status {
        find = find.filter(callback_delivery::Column::Status.eq(s.as_str()));
    }
    if let Some(p) = q.placement_id.as_deref().filter(|s| !s.is_empty()) {
        find = find.filter(callback_delivery::Column::PlacementId.eq(p.to_owned()));
    }
    if let Some(from) = q.from {
        find = find.filter(callback_delivery::Column::CreatedAt.gte(from));
    }
    if let Some(to) = q.to {
        find = find.filter(callback_delivery::Column::CreatedAt.lt(to));
    }
    if let Some(u) = q.external_user_id.as_deref().filter(|s| !s.is_empty()) {
        find = find.filter(callback_delivery::Column::ExternalUserId.eq(u.to_owned()));
    }
    if let Some(t) = q.transaction_id.as_deref().filter(|s| !s.is_empty()) {
        find = find.filter(callback_delivery::Column::ConversionId.eq(t.to_owned()));
    }
    if let Some(c) = cursor {
        // Ids are time-ordered (UUIDv7), so "older than the cursor" is "id below it".
        find = find.filter(callback_delivery::Column::Id.lt(c.to_owned()));
    }
    let mut rows = find
        .order_by_desc(callback_delivery::Column::Id)
        .limit(limit + 1)
        .all(&ctx.db)
        .await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let items: Vec<DeliverySummary> = rows.iter().map(summary).collect();
    Ok(DeliveryList {
        count: items.len(),
        next_cursor: if more {
            items.last().map(|i| i.delivery_id.clone())
        } else {
            None
        },
        items,
    })
}

async fn owned<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    id: &str,
) -> Result<callback_delivery::Model, AppError> {
    actor.require_publisher()?;
    let d = callback_delivery::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("callback delivery"))?;
    actor.require_owner(&d.owner_account_id, "callback delivery")?;
    Ok(d)
}

/// `GET /publisher/v2/callback-deliveries/{deliveryId}`: payload, the headers every attempt
/// carries (the signature is per attempt and the secret never leaves the service) and
/// every attempt.
pub async fn read(ctx: &Ctx, actor: &Principal, id: &str) -> Result<DeliveryDetail, AppError> {
    let d = owned(&ctx.db, actor, id).await?;
    let attempts = callback_delivery_attempt::Entity::find()
        .filter(callback_delivery_attempt::Column::DeliveryId.eq(d.id.clone()))
        .order_by_asc(callback_delivery_attempt::Column::Attempt)
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|a| DeliveryAttempt {
            attempt: a.attempt,
            started_at: a.started_at,
            url: a.url,
            key_id: a.key_id,
            nonce: a.nonce,
            timestamp: a.signed_timestamp,
            latency_ms: a.latency_ms,
            response_status: a.response_status,
            error_class: a.error_class,
            error_message: a.error_message,
            response_excerpt: a.response_excerpt,
            replay: a.replay,
        })
        .collect();
    let payload: serde_json::Value = serde_json::from_str(&d.payload).unwrap_or_default();
    let headers = BTreeMap::from([
        ("Content-Type".to_owned(), "application/json".to_owned()),
        ("Idempotency-Key".to_owned(), d.id.clone()),
        (
            "X-Service-Key-Id".to_owned(),
            d.key_id
                .clone()
                .unwrap_or_else(|| "(the CURRENT key when sent)".to_owned()),
        ),
        (
            "X-Service-Nonce".to_owned(),
            "(fresh per attempt)".to_owned(),
        ),
        (
            "X-Service-Signature".to_owned(),
            "(HMAC-SHA256 of timestamp.nonce.body, per attempt)".to_owned(),
        ),
        (
            "X-Service-Timestamp".to_owned(),
            "(RFC 3339 UTC, per attempt)".to_owned(),
        ),
    ]);
    Ok(DeliveryDetail {
        summary: summary(&d),
        body: callbacks::canonical_json(&payload),
        payload,
        headers,
        attempts,
    })
}

/// `POST …/{deliveryId}/replay`: sends the same event again (same `Idempotency-Key`, fresh
/// signature) at once. DELIVERED and FAILED deliveries only; 10 replays at once, then one
/// every 6 seconds per publisher. Replaying a confirmation whose reversal was already sent
/// (or failed) sends the reversal again after it, so the receiver ends on the reversal.
pub async fn replay(ctx: &Ctx, actor: &Principal, id: &str) -> Result<DeliverySummary, AppError> {
    let d = owned(&ctx.db, actor, id).await?;
    let status = d.status;
    if !matches!(status, DeliveryStatus::Delivered | DeliveryStatus::Failed) {
        return Err(AppError::conflict(format!(
            "only DELIVERED or FAILED callbacks can be replayed; this one is {}",
            status.as_str()
        ))
        .with_code("delivery_not_replayable"));
    }
    ctx.limits
        .check(Policy::CallbackReplay, &actor.account_id)?;
    let now = ctx.now();
    let requeue = |filter: sea_orm::Condition| {
        callback_delivery::Entity::update_many()
            .col_expr(
                callback_delivery::Column::Status,
                Expr::value(DeliveryStatus::Pending.as_str()),
            )
            .col_expr(callback_delivery::Column::NextAttemptAt, Expr::value(now))
            .col_expr(
                callback_delivery::Column::Replays,
                Expr::col(callback_delivery::Column::Replays).add(1),
            )
            .col_expr(callback_delivery::Column::UpdatedAt, Expr::value(now))
            .filter(filter)
    };
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let updated = requeue(
        sea_orm::Condition::all()
            .add(callback_delivery::Column::Id.eq(d.id.clone()))
            .add(callback_delivery::Column::Status.eq(d.status.clone())),
    )
    .exec(&txn)
    .await?
    .rows_affected;
    if updated == 0 {
        return Err(AppError::conflict(
            "the delivery changed meanwhile; try again",
        ));
    }
    // The reversal waits for the replayed confirmation again (see dispatch::claim).
    requeue(
        sea_orm::Condition::all()
            .add(callback_delivery::Column::DependsOn.eq(d.id.clone()))
            .add(callback_delivery::Column::Status.is_in([
                DeliveryStatus::Delivered.as_str(),
                DeliveryStatus::Failed.as_str(),
            ])),
    )
    .exec(&txn)
    .await?;
    txn.commit().await?;
    super::announce(ctx).await;
    let d = owned(&ctx.db, actor, id).await?;
    Ok(summary(&d))
}

/// The delivery health card of a placement: attempts and successes over 24 hours, the last
/// failure, the next retry, and how many rewards wait for a receiver or a hold.
pub async fn health(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<DeliveryHealth, AppError> {
    let p = owned_placement(&ctx.db, actor, placement_id).await?;
    let now = ctx.now();
    let of_placement = || {
        callback_delivery::Entity::find()
            .filter(callback_delivery::Column::PlacementId.eq(p.id.clone()))
    };
    let count = |s: DeliveryStatus| {
        of_placement()
            .filter(callback_delivery::Column::Status.eq(s.as_str()))
            .count(&ctx.db)
    };
    let waiting_for_receiver = count(DeliveryStatus::WaitingReceiver).await?;
    let due = of_placement()
        .filter(callback_delivery::Column::Status.is_in([
            DeliveryStatus::Pending.as_str(),
            DeliveryStatus::Held.as_str(),
        ]))
        .filter(callback_delivery::Column::NextAttemptAt.lte(now))
        .count(&ctx.db)
        .await?;
    let receiver = super::receivers::state(&ctx.db, &p.id).await?;
    let held = count(DeliveryStatus::Held).await?;
    let failed = count(DeliveryStatus::Failed).await?;
    let next_retry_at = of_placement()
        .filter(callback_delivery::Column::Status.eq(DeliveryStatus::Pending.as_str()))
        .filter(callback_delivery::Column::Attempts.gt(0))
        .order_by_asc(callback_delivery::Column::NextAttemptAt)
        .one(&ctx.db)
        .await?
        .map(|d| d.next_attempt_at);
    let attempts_of = || {
        callback_delivery_attempt::Entity::find()
            .inner_join(callback_delivery::Entity)
            .filter(callback_delivery::Column::PlacementId.eq(p.id.clone()))
            .filter(callback_delivery_attempt::Column::StartedAt.gte(now - Duration::hours(24)))
    };
    let attempts_24h = attempts_of().count(&ctx.db).await?;
    let successful_attempts_24h = attempts_of()
        .filter(callback_delivery_attempt::Column::ResponseStatus.between(200, 299))
        .count(&ctx.db)
        .await?;
    let last_failure = callback_delivery_attempt::Entity::find()
        .inner_join(callback_delivery::Entity)
        .filter(callback_delivery::Column::PlacementId.eq(p.id.clone()))
        .filter(
            sea_orm::Condition::any()
                .add(callback_delivery_attempt::Column::ResponseStatus.is_null())
                .add(callback_delivery_attempt::Column::ResponseStatus.lt(200))
                .add(callback_delivery_attempt::Column::ResponseStatus.gt(299)),
        )
        .order_by_desc(callback_delivery_attempt::Column::StartedAt)
        .one(&ctx.db)
        .await?;
    Ok(DeliveryHealth {
        placement_id: p.id.clone(),
        attempts_24h,
        successful_attempts_24h,
        success_rate_percent: (attempts_24h > 0)
            .then(|| successful_attempts_24h * 100 / attempts_24h),
        last_failure_at: last_failure.as_ref().map(|a| a.started_at),
        last_failure: last_failure.map(|a| match (a.response_status, a.error_class) {
            (Some(s), _) => format!("HTTP {s}"),
            (None, Some(c)) => format!("{c}: {}", a.error_message.unwrap_or_default()),
            _ => "failed".to_owned(),
        }),
        next_retry_at,
        waiting_for_receiver,
        held,
        failed,
        due,
        failing_since: receiver.as_ref().and_then(|r| r.failing_since),
        paused_at: receiver.and_then(|r| r.paused_at),
    })
}

/// Event type names, re-exported for pages.
pub use outbox::{CONFIRMED, REVERSED};
