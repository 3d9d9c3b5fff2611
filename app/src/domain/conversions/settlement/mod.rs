//! Settlement of reported conversions, in the same transaction as the inbox row that
//! records the report: the click is matched to its launch, the goal to the campaign, caps
//! are applied, the payout moves from the campaign's reserve to spend, and the publisher's
//! reward callback is written to the outbox (held until the goal's pending hold ends). A
//! reversal gives the spend back and cancels the unsent confirmation or queues a linked
//! reversal callback. Retries are exact no-ops; conflicting reuse is refused.
//!
//! A click made while the campaign was LIVE keeps its payout when the conversion arrives
//! after a pause or end (inside the attribution window): the reserve was released to the
//! wallet then, so the payout is taken from the available balance, within the campaign
//! budget. When the wallet cannot cover it the conversion is NO_BUDGET, which a later
//! report of the same transaction settles again.

mod attribution;
mod batch;
mod hold;
mod row;

pub(in crate::domain) use attribution::{Attribution, Lookups, attribute};
pub(in crate::domain) use batch::Batch;
pub(in crate::domain::conversions) use hold::prefetch as prefetch_screening;

use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, DatabaseTransaction, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect,
};

use self::row::{ConversionRow, write};
use super::reported::{InboxState, Outcome, Reported, ReportedStatus, Settlement, Trust};
use super::reversal::{Reversal, reverse_paid};
use crate::domain::billing::ledger::{self, Kind, PostError};
use crate::domain::billing::share::publisher_share;
use crate::domain::callback_delivery::outbox::{self, RewardEvent};
use crate::domain::campaigns::caps::caps_reached;
use crate::domain::campaigns::inventory::LiveOffer;
use crate::domain::campaigns::store::SUBJECT;
use crate::domain::campaigns::{lifecycle, live_config};
use crate::domain::changes::Change;
use crate::domain::hot_cache::user_key;
use crate::domain::notices::{self, budget};
use crate::domain::{Ctx, ids::new_id};
use crate::error::AppError;
use crate::model::NoticeTopic;
use crate::model::campaign::CampaignStatus;
use crate::model::money::Micros;
use entity::{conversion, offer_campaign};

/// Locks the campaign row for a settlement. One settlement per campaign at a time: caps,
/// the reserve and retries are read and written under this lock (PostgreSQL row lock;
/// SQLite transactions are IMMEDIATE).
pub(in crate::domain) async fn lock_campaign(
    txn: &DatabaseTransaction,
    id: &str,
) -> Result<offer_campaign::Model, AppError> {
    offer_campaign::Entity::find_by_id(id.to_owned())
        .lock_exclusive()
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("campaign"))
}

/// What applying a report did.
pub(in crate::domain) enum Applied {
    /// The transaction id was reported before with another click or goal: nothing changed.
    Conflict,
    Settled(Settled),
}

/// A settled report: its conversion, the outcome and the `placement|user` key of the user
/// whose completions it may have changed.
pub(in crate::domain) struct Settled {
    pub conversion_id: String,
    pub outcome: Outcome,
    pub user: Option<String>,
}

/// Applies one report to its transaction's conversion, under the campaign lock: moves the
/// conversion's state and returns its id, the outcome and the `placement|user` key of the
/// user whose completions it may have changed.
pub(in crate::domain) async fn apply(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    attribution: Result<Attribution, Settlement>,
    batch: &mut Batch,
) -> Result<Applied, AppError> {
    let existing = conversion::Entity::find()
        .filter(conversion::Column::CampaignId.eq(campaign.id.clone()))
        .filter(conversion::Column::TransactionId.eq(ev.transaction_id.clone()))
        .one(txn)
        .await?;
    if existing
        .as_ref()
        .is_some_and(|c| c.click_id != ev.click_id || c.goal_id != ev.goal_id)
    {
        return Ok(Applied::Conflict);
    }
    use ReportedStatus as R;
    if let Some(c) = &existing {
        match (c.settlement, ev.status) {
            // An approved conversion reported rejected or reversed gives back exactly what
            // was paid, whatever the campaign says now.
            (Settlement::Approved, R::Rejected | R::Reversed) => {
                let how = Reversal {
                    paid_from: ledger::PaidFrom::Reserve,
                    subject: SUBJECT,
                    reported_status: ev.status,
                    occurred_at: ev.occurred_at,
                };
                // The reversal moves the accounts this batch's payments wait to move.
                batch.flush(txn, now).await?;
                reverse_paid(txn, now, c, &how).await?;
                // The placement's reversal share changed: the fraud guard looks at it.
                if let Some(p) = &c.placement_id {
                    batch.fraud.watch.touched(p);
                }
                let user = c
                    .placement_id
                    .as_deref()
                    .zip(c.external_user_id.as_deref())
                    .map(|(p, u)| user_key(p, u));
                return Ok(settled(
                    c.id.clone(),
                    Outcome::Settled(Settlement::Reversed),
                    user,
                ));
            }
            (Settlement::Pending, R::Approved | R::Rejected | R::Reversed) => {}
            // The wallet could not pay before; it may now.
            (Settlement::NoBudget, R::Approved) => {}
            // A held conversion is rejected by any report that says so (nothing was paid),
            // and paid only by a decision or the end of a pixel's review window; a repeated
            // approval changes nothing.
            (Settlement::Held, R::Rejected | R::Reversed) => {}
            (Settlement::Held, R::Approved)
                if matches!(ev.trust, Trust::Vouched | Trust::ReviewEnded) => {}
            // Terminal states never change again; later reports are recorded, not applied.
            _ => {
                return Ok(settled(
                    c.id.clone(),
                    Outcome::Inbox(InboxState::NoChange),
                    None,
                ));
            }
        }
    }
    let conversion_id = existing
        .as_ref()
        .map(|c| c.id.clone())
        .unwrap_or_else(|| new_id("cnv"));
    let a = match attribution {
        Ok(a) => a,
        Err(unmatched) => {
            let row = ConversionRow {
                id: &conversion_id,
                existing,
                settlement: unmatched,
                attribution: None,
                credit_at: None,
                screening: None,
            };
            write(txn, now, campaign, ev, row).await?;
            return Ok(settled(conversion_id, Outcome::Settled(unmatched), None));
        }
    };
    let mut screening = None;
    let next = match ev.status {
        R::Pending => Settlement::Pending,
        R::Approved => {
            screening = hold::screen(txn, now, campaign, ev, &a, batch).await?;
            if screening.as_ref().is_some_and(|s| s.held.is_some()) {
                tell_held(batch, txn, now, campaign).await?;
                Settlement::Held
            } else {
                pay(txn, now, campaign, &a, &ev.goal_id, &conversion_id, batch).await?
            }
        }
        R::Rejected | R::Reversed => Settlement::Rejected,
    };
    let credit_at = (next == Settlement::Approved)
        .then(|| now + chrono::Duration::minutes(a.pending_minutes.clamp(0, 525_600)));
    let row = ConversionRow {
        id: &conversion_id,
        existing,
        settlement: next,
        attribution: Some(&a),
        credit_at,
        screening: screening.as_ref(),
    };
    write(txn, now, campaign, ev, row).await?;
    if let Some(credit_at) = credit_at {
        let reward = RewardEvent {
            placement: &a.placement,
            slot: a.slot.as_ref(),
            conversion_id: &conversion_id,
            campaign_id: &campaign.id,
            user: &a.launch.external_user_id,
            goal_id: &ev.goal_id,
            reward: &a.reward,
            occurred_at: ev.occurred_at,
        };
        outbox::confirm(txn, now, &reward, credit_at).await?;
    }
    let user = user_key(&a.placement.id, &a.launch.external_user_id);
    Ok(settled(conversion_id, Outcome::Settled(next), Some(user)))
}

/// What [`apply`] answers for a report that reached its conversion.
fn settled(conversion_id: String, outcome: Outcome, user: Option<String>) -> Applied {
    Applied::Settled(Settled {
        conversion_id,
        outcome,
        user,
    })
}

/// Tells the advertiser that conversions wait for its review: at most once an hour, however
/// many are held.
async fn tell_held(
    batch: &Batch,
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
) -> Result<(), AppError> {
    let n = notices::Notice::new(
        NoticeTopic::ConversionsHeld,
        "Conversions wait for your review",
        format!(
            "Conversions of campaign “{}” (and perhaps others) were held by the fraud controls. \
             Nothing is paid for them until you or an administrator decide; held conversions \
             you do not decide are decided by the review rules.",
            campaign.name
        ),
    )
    .about(
        "campaign",
        &campaign.id,
        "/advertiser/conversions?status=HELD",
    );
    let hour = chrono::Duration::hours(1);
    notices::tell_unless_recent(&batch.ctx, txn, now, &campaign.advertiser_id, n, hour).await?;
    Ok(())
}

/// The cheapest goal's payout: a reserve below it pays nothing more.
fn cheapest(offer: &LiveOffer) -> Micros {
    offer
        .config
        .goals
        .iter()
        .map(|g| g.payout_micros)
        .min()
        .unwrap_or(Micros(0))
}

/// Takes a campaign out of the in-memory inventory before the postback is answered when
/// this settlement used up its reserve or a cap (or found it already used up).
pub(in crate::domain) async fn after_settlement(
    ctx: &Ctx,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    outcome: Outcome,
    reserve_left: Option<i64>,
) -> Result<(), AppError> {
    let snap = ctx.inventory.peek();
    let Some(listed) = snap.get(&campaign.id) else {
        return Ok(());
    };
    let exhausted = match outcome {
        Outcome::Settled(Settlement::CapReached | Settlement::NoBudget) => true,
        Outcome::Settled(Settlement::Approved) => {
            let cheapest = cheapest(listed);
            let caps = &listed.config.caps;
            let capped = caps.total_conversions.is_some()
                || caps.daily_conversions.is_some()
                || caps.daily_budget_micros.is_some();
            let reserve = match reserve_left {
                // Read under the campaign lock and moved by this settlement only.
                Some(left) => left,
                None => {
                    ledger::reserved_for(&ctx.db, &campaign.advertiser_id, &campaign.id).await?
                }
            };
            reserve < cheapest.get()
                || (capped && caps_reached(&ctx.db, now, listed, Micros(0)).await?)
        }
        _ => false,
    };
    if exhausted {
        ctx.announce([Change::Offers]);
        ctx.inventory.caught_up().await;
    }
    Ok(())
}

/// Pays an approved conversion unless a cap or the reserve stops it.
async fn pay(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    a: &Attribution,
    goal_id: &str,
    conversion_id: &str,
    batch: &mut Batch,
) -> Result<Settlement, AppError> {
    let config = live_config(txn, campaign).await?;
    let per_user = config.caps.per_user.unwrap_or(1).max(1);
    let done = conversion::Entity::find()
        .filter(conversion::Column::CampaignId.eq(campaign.id.clone()))
        .filter(conversion::Column::PlacementId.eq(a.placement.id.clone()))
        .filter(conversion::Column::ExternalUserId.eq(a.launch.external_user_id.clone()))
        .filter(conversion::Column::GoalId.eq(goal_id.to_owned()))
        .filter(conversion::Column::Settlement.eq(Settlement::Approved.as_str()))
        .count(txn)
        .await?;
    let offer = LiveOffer {
        campaign: campaign.clone(),
        config,
        reserved_micros: Micros(0),
    };
    if i64::try_from(done).unwrap_or(i64::MAX) >= per_user
        || caps_reached(txn, now, &offer, a.payout_micros).await?
    {
        return Ok(Settlement::CapReached);
    }
    // Checked first so a refusal writes no ledger transaction at all.
    let reserve = batch
        .reserve(txn, &campaign.advertiser_id, &campaign.id)
        .await?;
    let dedupe = format!("conversion_spend:{conversion_id}");
    // The publisher's share is posted with the spend; `write` stores the same amount.
    let earning = ledger::Earning {
        publisher: &a.placement.owner_account_id,
        publisher_micros: publisher_share(a.payout_micros),
        released: false,
    };
    if reserve >= a.payout_micros.get() {
        let paid = a.payout_micros.get();
        let posting = lifecycle::conversion_spend(campaign, paid, &dedupe, Some(&earning))?;
        return match batch.post(txn, now, posting).await {
            Ok(()) => {
                batch.spent_from_reserve(reserve, paid);
                let spend = budget::Spend {
                    advertiser_id: &campaign.advertiser_id,
                    campaign_id: &campaign.id,
                    campaign_name: &campaign.name,
                    budget: offer.config.budget_micros,
                    before: Micros(reserve),
                    after: Micros(reserve - paid),
                    cheapest: cheapest(&offer),
                };
                budget::after_spend(&batch.ctx, txn, now, spend).await?;
                Ok(Settlement::Approved)
            }
            Err(PostError::AlreadyPosted) => Ok(Settlement::Approved),
            Err(PostError::Insufficient) => Ok(Settlement::NoBudget),
            Err(PostError::Other(e)) => Err(e),
        };
    }
    if campaign.status == CampaignStatus::Live {
        // A live campaign's reserve is its remaining budget.
        return Ok(Settlement::NoBudget);
    }
    // Paused or ended: the reserve went back to the wallet; a click made while LIVE is
    // paid from the available balance, within the campaign budget (read after what waits).
    batch.flush(txn, now).await?;
    let spent =
        ledger::account_balance(txn, &campaign.advertiser_id, Kind::Spent, &campaign.id).await?;
    let budget = live_config(txn, campaign).await?.budget_micros;
    if spent
        .checked_add(a.payout_micros.get())
        .is_none_or(|total| total > budget.get())
    {
        return Ok(Settlement::NoBudget);
    }
    match ledger::post(
        txn,
        now,
        ledger::TransactionKind::CampaignSpend,
        &campaign.advertiser_id,
        (SUBJECT, &campaign.id),
        &dedupe,
        &ledger::conversion_legs(
            ledger::PaidFrom::Wallet,
            &campaign.advertiser_id,
            &campaign.id,
            a.payout_micros.get(),
            Some(&earning),
        ),
    )
    .await
    {
        Ok(_) | Err(PostError::AlreadyPosted) => Ok(Settlement::Approved),
        Err(PostError::Insufficient) => Ok(Settlement::NoBudget),
        Err(PostError::Other(e)) => Err(e),
    }
}
