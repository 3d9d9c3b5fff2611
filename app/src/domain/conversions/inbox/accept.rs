//! Accepting a report: settled inline in the transaction that records it, or queued for
//! the settler during a burst (see the module above); exact retries answer the first
//! receipt.

use std::sync::atomic::Ordering;

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Set};

use super::super::reported::{Reported, event_hash, transaction_conflict};
use super::super::settlement::{
    Applied, Batch, Lookups, after_settlement, apply, attribute, lock_campaign, prefetch_screening,
};
use super::TRANSACTION_CONFLICT;
use crate::domain::changes::Change;
use crate::domain::conversions::reported::{InboxState, Outcome};
use crate::domain::{Ctx, db, ids::new_id};
use crate::error::AppError;
use crate::model::delivery::CallbackReceipt;
use entity::{offer_campaign, postback_event};

/// Records one report in the inbox and settles it in the same transaction.
pub(super) async fn settle_now(
    ctx: &Ctx,
    campaign: &offer_campaign::Model,
    source: &str,
    ev: Reported,
) -> Result<CallbackReceipt, AppError> {
    let hash = event_hash(&ev);
    let now = ctx.now();
    // Attribution reads only rows that never change once written (the launch, the revision
    // it showed) or whose reading a moment earlier means nothing (placement, slot), so it
    // runs before the campaign lock: the lock is held for the money only.
    let attribution = attribute(&ctx.db, campaign, &ev, &mut Lookups::default()).await?;
    // One report: its payment is posted at once (the batch only tracks the reserve left).
    // Its fraud evidence is read before the lock too, so the lock is held for the money only.
    let mut batch = Batch::for_reports(1, ctx);
    if let Ok(a) = &attribution {
        prefetch_screening(&mut batch, &ctx.db, now, campaign, &ev, a).await?;
    }
    let txn = db::begin(&ctx.db).await?;
    let campaign = &lock_campaign(&txn, &campaign.id).await?;
    if let Some(prior) = earlier_receipt(&txn, &campaign.id, &hash).await? {
        return Ok(prior);
    }
    let Applied::Settled(settled) =
        apply(&txn, now, campaign, &ev, attribution, &mut batch).await?
    else {
        return Err(transaction_conflict());
    };
    let receipt_id = new_id("rcpt");
    let receipt = Receipt {
        id: &receipt_id,
        campaign_id: &campaign.id,
        source,
        hash: &hash,
        received_at: now,
    }
    .row(&ev, settled.outcome, Some(settled.conversion_id));
    // Without reading the row back (SQLite has no RETURNING here: that would be a SELECT).
    if let Err(e) = postback_event::Entity::insert(receipt)
        .exec_without_returning(&txn)
        .await
    {
        if !db::is_unique_violation(&e) {
            return Err(e.into());
        }
        // An exact retry was queued meanwhile (queueing takes no lock): this settlement is
        // rolled back and the queued report stands, settled by the settler.
        txn.rollback().await?;
        return first_receipt(ctx, &campaign.id, &hash).await;
    }
    let reserve_left = batch.commit(txn, now).await?;
    ctx.deliveries.announce();
    if let Some(user) = settled.user {
        // The user's completions changed: offer lists must not hide or show by the old ones.
        ctx.announce([Change::Completions(user)]);
    }
    after_settlement(ctx, now, campaign, settled.outcome, reserve_left).await?;
    Ok(CallbackReceipt {
        accepted: true,
        duplicate: false,
        receipt_id,
    })
}

/// An inbox row's identity: its receipt, campaign, source, event hash and arrival.
pub(in crate::domain) struct Receipt<'a> {
    pub id: &'a str,
    pub campaign_id: &'a str,
    pub source: &'a str,
    pub hash: &'a str,
    pub received_at: chrono::DateTime<chrono::Utc>,
}

impl Receipt<'_> {
    /// The inbox row of the report, with its outcome so far.
    pub fn row(
        &self,
        ev: &Reported,
        outcome: Outcome,
        conversion_id: Option<String>,
    ) -> postback_event::ActiveModel {
        postback_event::ActiveModel {
            id: Set(self.id.to_owned()),
            campaign_id: Set(self.campaign_id.to_owned()),
            source: Set(self.source.to_owned()),
            transaction_id: Set(ev.transaction_id.clone()),
            click_id: Set(ev.click_id.clone()),
            goal_id: Set(ev.goal_id.clone()),
            status: Set(ev.status),
            occurred_at: Set(ev.occurred_at_raw.clone()),
            event_hash: Set(self.hash.to_owned()),
            outcome: Set(outcome),
            conversion_id: Set(conversion_id),
            received_at: Set(self.received_at),
        }
    }
}

/// Accepts a report into the queue with one durable insert (an exact retry answers the
/// first receipt; a conflicting reuse of the transaction id is refused).
pub(super) async fn accept(
    ctx: &Ctx,
    campaign: &offer_campaign::Model,
    source: &str,
    ev: &Reported,
    hash: &str,
) -> Result<CallbackReceipt, AppError> {
    let prior: Option<(String, String)> = postback_event::Entity::find()
        .select_only()
        .column(postback_event::Column::ClickId)
        .column(postback_event::Column::GoalId)
        .filter(postback_event::Column::CampaignId.eq(campaign.id.clone()))
        .filter(postback_event::Column::TransactionId.eq(ev.transaction_id.clone()))
        .filter(postback_event::Column::Outcome.ne(TRANSACTION_CONFLICT))
        .into_tuple()
        .one(&ctx.db)
        .await?;
    if prior.is_some_and(|(click, goal)| click != ev.click_id || goal != ev.goal_id) {
        return Err(transaction_conflict());
    }
    let receipt_id = new_id("rcpt");
    let row = Receipt {
        id: &receipt_id,
        campaign_id: &campaign.id,
        source,
        hash,
        received_at: ctx.now(),
    }
    .row(ev, Outcome::Inbox(InboxState::Queued), None);
    // Counted before the insert, so a report arriving meanwhile queues behind this one.
    ctx.inbox.waiting.fetch_add(1, Ordering::AcqRel);
    let inserted = postback_event::Entity::insert(row)
        .on_conflict_do_nothing_on([
            postback_event::Column::CampaignId,
            postback_event::Column::EventHash,
        ])
        .exec_without_returning(&ctx.db)
        .await;
    let inserted = match inserted {
        Ok(sea_orm::TryInsertResult::Inserted(n)) => n > 0,
        Ok(_) => false,
        Err(e) => {
            ctx.inbox.settled(1);
            return Err(e.into());
        }
    };
    if !inserted {
        ctx.inbox.settled(1);
        return first_receipt(ctx, &campaign.id, hash).await;
    }
    ctx.inbox.wake.notify_one();
    Ok(CallbackReceipt {
        accepted: true,
        duplicate: false,
        receipt_id,
    })
}

/// The answer to an exact retry: the receipt of the report first accepted.
pub(super) async fn first_receipt(
    ctx: &Ctx,
    campaign_id: &str,
    hash: &str,
) -> Result<CallbackReceipt, AppError> {
    earlier_receipt(&ctx.db, campaign_id, hash)
        .await?
        .ok_or_else(AppError::internal)
}

/// The receipt of an earlier report with the same event hash, answered as a duplicate.
pub(super) async fn earlier_receipt<C: ConnectionTrait>(
    db: &C,
    campaign_id: &str,
    hash: &str,
) -> Result<Option<CallbackReceipt>, AppError> {
    let id: Option<String> = postback_event::Entity::find()
        .select_only()
        .column(postback_event::Column::Id)
        .filter(postback_event::Column::CampaignId.eq(campaign_id.to_owned()))
        .filter(postback_event::Column::EventHash.eq(hash.to_owned()))
        .into_tuple()
        .one(db)
        .await?;
    Ok(id.map(|receipt_id| CallbackReceipt {
        accepted: true,
        duplicate: true,
        receipt_id,
    }))
}
