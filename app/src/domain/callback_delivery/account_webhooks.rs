//! Account webhooks (issue 54, part 6): an organisation's own endpoints for the events it is
//! told of (`notices`). An endpoint is a receiver of the reward-callback machinery under its
//! own id: its deliveries are rows of the callback outbox (`msg_…`), its failure streak and
//! pause a row of `callback_receivers` (its signing secret is sealed on its own row), so it is
//! claimed fairly, signed (Standard Webhooks headers, with the spec's headers beside them),
//! retried on the same schedule, paused after a day of failures and logged per attempt
//! exactly as a placement's receiver is. Registering one needs a role that keeps the
//! organisation's keys (owner, admin, developer).

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set};

use super::setup::{standard_webhooks, validate_receiver};
use super::{announce, receivers};
use crate::domain::accounts::notices::topics_of;
use crate::domain::accounts::teams::require_key_keeper;
use crate::domain::notices::{Notice, insert_delivery, topics, webhook_event};
use crate::domain::{Ctx, Principal, crypto, db, ids::new_id};
use crate::error::AppError;
use crate::model::callback_delivery::DeliveryStatus;
use crate::model::notice::*;
use entity::{account_webhook, callback_delivery, callback_receiver};

/// Endpoints an organisation may keep.
pub const MAX_WEBHOOKS: u64 = 10;
/// The `type` of a test event.
pub const TEST_EVENT: &str = "webhook.test";
/// How a signing secret begins (it is shown in its Standard Webhooks form, `whsec_…`).
const SECRET_PREFIX: &str = "mkt_whk";

/// What an endpoint's sealed secret is bound to.
pub fn seal_binding(webhook_id: &str) -> String {
    format!("account_webhooks:{webhook_id}")
}

/// The plain signing secret of an endpoint.
pub fn open_secret(ctx: &Ctx, h: &account_webhook::Model) -> Result<String, AppError> {
    ctx.keys.open(&seal_binding(&h.id), &h.secret_sealed)
}

fn view(h: account_webhook::Model, r: Option<&callback_receiver::Model>) -> AccountWebhook {
    AccountWebhook {
        status: if r.is_some_and(|r| r.paused_at.is_some()) {
            WebhookStatus::Paused
        } else {
            WebhookStatus::Active
        },
        failing_since: r.and_then(|r| r.failing_since),
        topics: topics::read(&h.topics),
        webhook_id: h.id,
        url: h.url,
        description: h.description,
        created_at: h.created_at,
    }
}

async fn owned(ctx: &Ctx, p: &Principal, id: &str) -> Result<account_webhook::Model, AppError> {
    account_webhook::Entity::find_by_id(id.to_owned())
        .filter(account_webhook::Column::AccountId.eq(p.account_id.clone()))
        .filter(account_webhook::Column::DisabledAt.is_null())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("webhook"))
}

/// The organisation's live endpoints, oldest first.
pub async fn list(ctx: &Ctx, p: &Principal) -> Result<AccountWebhookList, AppError> {
    let hooks = account_webhook::Entity::find()
        .filter(account_webhook::Column::AccountId.eq(p.account_id.clone()))
        .filter(account_webhook::Column::DisabledAt.is_null())
        .order_by_asc(account_webhook::Column::Id)
        .all(&ctx.db)
        .await?;
    let ids: Vec<String> = hooks.iter().map(|h| h.id.clone()).collect();
    let states = callback_receiver::Entity::find()
        .filter(callback_receiver::Column::PlacementId.is_in(ids))
        .all(&ctx.db)
        .await?;
    Ok(AccountWebhookList {
        items: hooks
            .into_iter()
            .map(|h| {
                let r = states.iter().find(|r| r.placement_id == h.id);
                view(h, r)
            })
            .collect(),
    })
}

/// Registers an endpoint; its Standard Webhooks secret is in this answer only.
pub async fn create(
    ctx: &Ctx,
    p: &Principal,
    req: &AccountWebhookCreate,
) -> Result<AccountWebhookIssued, AppError> {
    require_key_keeper(p)?;
    let url = validate_receiver(&req.url, ctx.config.callback_allow_private).await?;
    let description = req.description.as_deref().unwrap_or_default().trim();
    if description.chars().count() > 200 || description.chars().any(char::is_control) {
        return Err(AppError::field(
            "description",
            "must be at most 200 characters, without control characters",
        ));
    }
    let mine = topics_of(p.role);
    if let Some(t) = req.topics.iter().find(|t| !mine.contains(t)) {
        return Err(AppError::field(
            "topics",
            format!("{t} is not a topic of this account"),
        ));
    }
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let live = account_webhook::Entity::find()
        .filter(account_webhook::Column::AccountId.eq(p.account_id.clone()))
        .filter(account_webhook::Column::DisabledAt.is_null())
        .select_only()
        .column(account_webhook::Column::Id)
        .into_tuple::<String>()
        .all(&txn)
        .await?;
    if live.len() as u64 >= MAX_WEBHOOKS {
        return Err(AppError::conflict(format!(
            "an account keeps at most {MAX_WEBHOOKS} webhooks; remove one first"
        ))
        .with_code("too_many_webhooks"));
    }
    let stored = if req.topics.is_empty() || req.topics.len() == mine.len() {
        topics::ALL.to_owned()
    } else {
        topics::store(&req.topics)
    };
    let id = new_id("whk");
    let secret = crypto::random_token(SECRET_PREFIX);
    let row = account_webhook::ActiveModel {
        secret_sealed: Set(ctx.keys.seal(&seal_binding(&id), &secret)?),
        id: Set(id),
        account_id: Set(p.account_id.clone()),
        url: Set(url),
        topics: Set(stored),
        description: Set(description.to_owned()),
        created_at: Set(now),
        updated_at: Set(now),
        disabled_at: Set(None),
    };
    let row = account_webhook::Entity::insert(row)
        .exec_with_returning(&txn)
        .await?;
    let detail = serde_json::json!({"url": row.url, "topics": row.topics});
    p.audit(
        &txn,
        now,
        "webhook.create",
        ("account_webhook", &row.id),
        detail,
    )
    .await?;
    txn.commit().await?;
    Ok(AccountWebhookIssued {
        webhook: view(row, None),
        secret: standard_webhooks::secret(&secret),
    })
}

/// Removes an endpoint: nothing more is written for it and what waits is cancelled.
pub async fn remove(ctx: &Ctx, p: &Principal, id: &str) -> Result<(), AppError> {
    require_key_keeper(p)?;
    let hook = owned(ctx, p, id).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    account_webhook::Entity::update_many()
        .col_expr(account_webhook::Column::DisabledAt, Expr::value(Some(now)))
        .col_expr(account_webhook::Column::UpdatedAt, Expr::value(now))
        .filter(account_webhook::Column::Id.eq(hook.id.clone()))
        .exec(&txn)
        .await?;
    callback_delivery::Entity::update_many()
        .col_expr(
            callback_delivery::Column::Status,
            Expr::value(DeliveryStatus::Cancelled.as_str()),
        )
        .col_expr(callback_delivery::Column::UpdatedAt, Expr::value(now))
        .filter(callback_delivery::Column::PlacementId.eq(hook.id.clone()))
        .filter(callback_delivery::Column::Status.is_in([
            DeliveryStatus::Pending.as_str(),
            DeliveryStatus::WaitingReceiver.as_str(),
        ]))
        .exec(&txn)
        .await?;
    p.audit(
        &txn,
        now,
        "webhook.remove",
        ("account_webhook", &hook.id),
        serde_json::json!({}),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

/// Sends a test event (`webhook.test`) through the ordinary delivery path.
pub async fn send_test(
    ctx: &Ctx,
    p: &Principal,
    id: &str,
) -> Result<AccountWebhookDelivery, AppError> {
    require_key_keeper(p)?;
    let hook = owned(ctx, p, id).await?;
    let now = crate::domain::clock::truncate_micros(ctx.now());
    let message = new_id("msg");
    let n = Notice::new(
        crate::model::NoticeTopic::AdvertiserApproved,
        "A test event",
        "A test event from the dashboard: your endpoint receives and verifies account events.",
    )
    .link("/account/notifications#webhooks");
    let body = webhook_event::body(&message, TEST_EVENT, now, "ntc_test", &n);
    let txn = db::begin(&ctx.db).await?;
    insert_delivery(&txn, now, &hook, &message, TEST_EVENT, &body).await?;
    super::notify_on_commit(&txn).await?;
    txn.commit().await?;
    ctx.deliveries.announce();
    let row = callback_delivery::Entity::find_by_id(message)
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("delivery"))?;
    Ok(delivery_view(row))
}

/// Resumes a paused endpoint: what waits is due now.
pub async fn resume(ctx: &Ctx, p: &Principal, id: &str) -> Result<AccountWebhook, AppError> {
    require_key_keeper(p)?;
    let hook = owned(ctx, p, id).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let pending = receivers::clear_pause(&txn, now, &hook.id).await?;
    let detail = serde_json::json!({ "pending": pending });
    p.audit(
        &txn,
        now,
        "webhook.resume",
        ("account_webhook", &hook.id),
        detail,
    )
    .await?;
    txn.commit().await?;
    announce(ctx).await;
    Ok(view(hook, None))
}

fn delivery_view(d: callback_delivery::Model) -> AccountWebhookDelivery {
    AccountWebhookDelivery {
        message_id: d.id,
        event_type: d.event,
        status: d.status.as_str().to_owned(),
        attempts: d.attempts,
        last_response_status: d.last_response_status,
        last_error: d.last_error,
        next_attempt_at: d.next_attempt_at,
        created_at: d.created_at,
        delivered_at: d.delivered_at,
    }
}

/// The endpoint's newest 100 deliveries.
pub async fn deliveries(
    ctx: &Ctx,
    p: &Principal,
    id: &str,
) -> Result<AccountWebhookDeliveries, AppError> {
    let hook = owned(ctx, p, id).await?;
    let rows = callback_delivery::Entity::find()
        .filter(callback_delivery::Column::PlacementId.eq(hook.id))
        .order_by_desc(callback_delivery::Column::Id)
        .limit(100)
        .all(&ctx.db)
        .await?;
    Ok(AccountWebhookDeliveries {
        items: rows.into_iter().map(delivery_view).collect(),
    })
}
