//! Being told (issue 54, part 6). A rule that must tell an organisation something calls
//! [`tell`] inside its own transaction, so a change that rolls back tells nobody and one that
//! commits tells everyone it should: the notice is written for the dashboard, a letter goes
//! into the mail outbox for each member whose preferences (or, without a choice, whose role)
//! ask for the topic by e-mail, and a delivery is written for each of the organisation's
//! account webhooks that listens to it. The reward-callback worker sends those deliveries
//! (signed, retried, paused and logged as reward callbacks are); the PostgreSQL `NOTIFY`
//! of the due channel wakes every process's worker at commit, and the worker's 100 ms poll
//! covers a lost announcement.
//!
//! A foundation room: it knows tables, the clock and the mail outbox, never the rules that
//! call it. Reading notices and choosing preferences are the member's
//! (`accounts::notices`); registering webhooks is `callback_delivery::account_webhooks`.

pub mod budget;
pub mod topics;
pub mod webhook_event;

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseBackend, EntityTrait, QueryFilter, QuerySelect, Set,
};

use crate::domain::changes::transport::DUE_CHANNEL;
use crate::domain::ids::new_id;
use crate::domain::mail::outbox::{self, Letter};
use crate::domain::{Ctx, db};
use crate::error::AppError;
use crate::model::callback_delivery::DeliveryStatus;
use crate::model::{AccountStatus, NoticeTopic, TeamRole};
use entity::{account, account_webhook, callback_delivery, notice, notice_preference};

pub use topics::mail_topic;

/// The share of a campaign's budget below which a new advertiser is told (it can change it).
pub const DEFAULT_BUDGET_ALERT_PERCENT: i32 = 20;
/// The highest alert share an advertiser may choose (a higher one would tell at launch).
pub const MAX_BUDGET_ALERT_PERCENT: i32 = 50;

/// What an organisation is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub topic: NoticeTopic,
    /// One line: the notice's heading and the letter's subject.
    pub title: String,
    /// The facts the reader needs to act (plain text; never a secret).
    pub body: String,
    /// The dashboard path where the reader acts (`/advertiser/campaigns/…`).
    pub link: String,
    /// What it is about: (`campaign`, id).
    pub subject: Option<(&'static str, String)>,
}

impl Notice {
    pub fn new(topic: NoticeTopic, title: impl Into<String>, body: impl Into<String>) -> Self {
        Notice {
            topic,
            title: title.into(),
            body: body.into(),
            link: String::new(),
            subject: None,
        }
    }

    /// Where the reader acts, and what the notice is about.
    pub fn about(mut self, kind: &'static str, id: &str, link: impl Into<String>) -> Self {
        self.subject = Some((kind, id.to_owned()));
        self.link = link.into();
        self
    }

    pub fn link(mut self, link: impl Into<String>) -> Self {
        self.link = link.into();
        self
    }
}

/// Tells organisation `org` (its registering account's id) `n`, in the caller's transaction;
/// returns the notice id.
pub async fn tell<C: ConnectionTrait>(
    ctx: &Ctx,
    txn: &C,
    now: DateTime<Utc>,
    org: &str,
    n: Notice,
) -> Result<String, AppError> {
    let id = new_id("ntc");
    let now = crate::domain::clock::truncate_micros(now);
    notice::Entity::insert(notice::ActiveModel {
        id: Set(id.clone()),
        account_id: Set(org.to_owned()),
        topic: Set(n.topic),
        title: Set(n.title.clone()),
        body: Set(n.body.clone()),
        link: Set(n.link.clone()),
        subject_type: Set(n.subject.as_ref().map(|s| s.0.to_owned())),
        subject_id: Set(n.subject.as_ref().map(|s| s.1.clone())),
        created_at: Set(now),
    })
    .exec_without_returning(txn)
    .await?;
    mail_members(ctx, txn, now, org, &n).await?;
    webhooks(txn, now, org, &id, &n).await?;
    Ok(id)
}

/// Like [`tell`], unless the organisation was told of the same topic within `within` (a
/// topic whose events come in bursts: one notice stands for the burst).
pub async fn tell_unless_recent<C: ConnectionTrait>(
    ctx: &Ctx,
    txn: &C,
    now: DateTime<Utc>,
    org: &str,
    n: Notice,
    within: chrono::Duration,
) -> Result<Option<String>, AppError> {
    let recent = notice::Entity::find()
        .filter(notice::Column::AccountId.eq(org.to_owned()))
        .filter(notice::Column::Topic.eq(n.topic))
        .filter(notice::Column::CreatedAt.gt(now - within))
        .select_only()
        .column(notice::Column::Id)
        .into_tuple::<String>()
        .one(txn)
        .await?;
    if recent.is_some() {
        return Ok(None);
    }
    tell(ctx, txn, now, org, n).await.map(Some)
}

/// A letter for every active member who gets `n.topic` by e-mail.
async fn mail_members<C: ConnectionTrait>(
    ctx: &Ctx,
    txn: &C,
    now: DateTime<Utc>,
    org: &str,
    n: &Notice,
) -> Result<(), AppError> {
    let members: Vec<(String, String, TeamRole, AccountStatus)> = account::Entity::find()
        .filter(
            sea_orm::Condition::any()
                .add(account::Column::Id.eq(org.to_owned()))
                .add(account::Column::OrganisationId.eq(org.to_owned())),
        )
        .select_only()
        .columns([
            account::Column::Id,
            account::Column::Email,
            account::Column::TeamRole,
            account::Column::Status,
        ])
        .into_tuple()
        .all(txn)
        .await?;
    let ids: Vec<String> = members.iter().map(|m| m.0.clone()).collect();
    let chosen: HashMap<String, bool> = notice_preference::Entity::find()
        .filter(notice_preference::Column::AccountId.is_in(ids))
        .filter(notice_preference::Column::Topic.eq(n.topic.as_str()))
        .all(txn)
        .await?
        .into_iter()
        .map(|p| (p.account_id, p.email))
        .collect();
    let base = &ctx.config.base_url;
    for (id, email, role, status) in members {
        if status == AccountStatus::Disabled {
            continue;
        }
        let wanted = chosen
            .get(&id)
            .copied()
            .unwrap_or_else(|| n.topic.mailed_by_default(role));
        if !wanted {
            continue;
        }
        let letter = Letter {
            topic: mail_topic(n.topic),
            subject: n.title.clone(),
            body: format!(
                "{}\n\n{base}{}\n\nChoose what you are told, and how: {base}/account/notifications\n",
                n.body, n.link
            ),
        };
        outbox::enqueue(ctx, txn, now, Some(&id), &email, letter).await?;
    }
    Ok(())
}

/// A delivery for each live account webhook of `org` that listens to the topic.
async fn webhooks<C: ConnectionTrait>(
    txn: &C,
    now: DateTime<Utc>,
    org: &str,
    notice_id: &str,
    n: &Notice,
) -> Result<(), AppError> {
    let hooks = account_webhook::Entity::find()
        .filter(account_webhook::Column::AccountId.eq(org.to_owned()))
        .filter(account_webhook::Column::DisabledAt.is_null())
        .all(txn)
        .await?;
    let mut wrote = false;
    for hook in hooks.iter().filter(|h| topics::listens(&h.topics, n.topic)) {
        let id = new_id("msg");
        let payload = webhook_event::body(&id, n.topic.as_str(), now, notice_id, n);
        insert_delivery(txn, now, hook, &id, n.topic.as_str(), &payload).await?;
        wrote = true;
    }
    if wrote && txn.get_database_backend() == DatabaseBackend::Postgres {
        // Reaches every process's delivery worker when (and only if) this commits.
        txn.execute_unprepared(&format!("NOTIFY {DUE_CHANNEL}"))
            .await?;
    }
    Ok(())
}

/// Writes one account-webhook delivery (a row of the reward callbacks' outbox under the
/// endpoint's id). `conversion_id` holds the delivery's own id, not the notice's: one
/// notice goes to every endpoint that listens, and the outbox keeps `(conversion_id,
/// event)` unique. The notice's id travels in the payload.
pub async fn insert_delivery<C: ConnectionTrait>(
    txn: &C,
    now: DateTime<Utc>,
    hook: &account_webhook::Model,
    delivery_id: &str,
    event: &str,
    payload: &serde_json::Value,
) -> Result<(), AppError> {
    callback_delivery::Entity::insert(callback_delivery::ActiveModel {
        id: Set(delivery_id.to_owned()),
        placement_id: Set(hook.id.clone()),
        owner_account_id: Set(hook.account_id.clone()),
        conversion_id: Set(delivery_id.to_owned()),
        event: Set(event.to_owned()),
        payload: Set(payload.to_string()),
        status: Set(DeliveryStatus::Pending),
        attempts: Set(0),
        next_attempt_at: Set(now),
        last_response_status: Set(None),
        last_error: Set(None),
        key_id: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        delivered_at: Set(None),
        external_user_id: Set(None),
        campaign_id: Set(None),
        depends_on: Set(None),
        lease_owner: Set(None),
        lease_until: Set(None),
        replays: Set(0),
        failed_at: Set(None),
    })
    .exec_without_returning(txn)
    .await?;
    Ok(())
}

/// Tells `org` after the fact, in a transaction of its own: for an event whose own
/// transaction is not the notice's (a worker's outcome recorded in a batch). A failure is
/// logged, not returned: the event itself already happened.
pub async fn tell_now(ctx: &Ctx, org: &str, n: Notice) {
    let now = ctx.now();
    let result = async {
        let txn = db::begin(&ctx.db).await?;
        tell(ctx, &txn, now, org, n).await?;
        txn.commit().await?;
        Ok::<_, AppError>(())
    }
    .await;
    if let Err(e) = result {
        tracing::error!(error = %e, organisation = %org, "a notice could not be written");
    }
    ctx.deliveries.announce();
}
