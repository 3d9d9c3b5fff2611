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

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait,
    PaginatorTrait, QueryFilter, QuerySelect, Set,
};

use super::offers::caps_reached;
use super::{inbox, publisher_share};
use crate::domain::billing::ledger::{self, Kind, PostError};
use crate::domain::callback_delivery::outbox::{self, RewardEvent};
use crate::domain::campaigns::inventory::LiveOffer;
use crate::domain::campaigns::store::SUBJECT;
use crate::domain::campaigns::{lifecycle, live_config, status_of};
use crate::domain::changes::Change;
use crate::domain::hot_cache::user_key;
use crate::domain::publisher::slots;
use crate::domain::{Ctx, crypto, db, ids::new_id};
use crate::error::AppError;
use crate::model::campaign::CampaignStatus;
use crate::model::delivery::CallbackReceipt;
use crate::model::publisher::RewardPreview;
use crate::model::publisher_rules::format_minor;
use entity::{
    ad_slot, conversion, offer_campaign, offer_campaign_revision, placement, postback_event,
    sdk_launch,
};

/// A validated conversion report.
#[derive(Debug, Clone)]
pub struct Reported {
    pub click_id: String,
    pub transaction_id: String,
    pub goal_id: String,
    /// pending, approved, rejected or reversed.
    pub status: String,
    /// As sent (part of the exact-retry identity).
    pub occurred_at_raw: String,
    pub occurred_at: DateTime<Utc>,
}

/// Settlement states of a conversion.
pub mod state {
    pub const PENDING: &str = "PENDING";
    pub const APPROVED: &str = "APPROVED";
    pub const REJECTED: &str = "REJECTED";
    pub const REVERSED: &str = "REVERSED";
    pub const UNMATCHED_CLICK: &str = "UNMATCHED_CLICK";
    pub const UNKNOWN_GOAL: &str = "UNKNOWN_GOAL";
    pub const OUT_OF_WINDOW: &str = "OUT_OF_WINDOW";
    pub const CAP_REACHED: &str = "CAP_REACHED";
    pub const NO_BUDGET: &str = "NO_BUDGET";
}

/// Accepts one report into the inbox. Normally it is settled in the same transaction, so
/// the answer follows the settlement; during a burst (earlier reports still waiting, or
/// every inline slot busy) it is queued for the settler instead (`inbox`), which the
/// specification allows: 200 means durably in the processing inbox.
pub async fn ingest(
    ctx: &Ctx,
    campaign: &offer_campaign::Model,
    source: &str,
    ev: Reported,
) -> Result<CallbackReceipt, AppError> {
    match ctx.inbox.route() {
        inbox::Route::Queue => inbox::accept(ctx, campaign, source, &ev, &event_hash(&ev)).await,
        inbox::Route::Inline(_slot) => settle_now(ctx, campaign, source, ev).await,
    }
}

/// The conversion time as reported (ISO 8601 with an offset), as validation accepts it.
pub(super) fn parse_occurred_at(raw: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw.trim())
        .map(|d| d.with_timezone(&Utc))
        .ok()
}

/// The exact-retry identity of a report (unique per campaign in the inbox).
pub(super) fn event_hash(ev: &Reported) -> String {
    crypto::sha256_hex(&format!(
        "{}\n{}\n{}\n{}\n{}",
        ev.click_id, ev.transaction_id, ev.goal_id, ev.status, ev.occurred_at_raw
    ))
}

/// The refusal of a transaction id reused with another click or goal.
pub(super) fn transaction_conflict() -> AppError {
    AppError::conflict("this transaction_id was already reported with another click_id or goal_id")
        .with_code("transaction_conflict")
}

/// Records one report in the inbox and settles it in the same transaction.
async fn settle_now(
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
    let txn = db::begin(&ctx.db).await?;
    let campaign = &lock_campaign(&txn, &campaign.id).await?;
    if let Some(prior) = postback_event::Entity::find()
        .filter(postback_event::Column::CampaignId.eq(campaign.id.clone()))
        .filter(postback_event::Column::EventHash.eq(hash.clone()))
        .one(&txn)
        .await?
    {
        return Ok(CallbackReceipt {
            accepted: true,
            duplicate: true,
            receipt_id: prior.id,
        });
    }
    // The campaign's reserve after this payment, when it was paid from the reserve.
    let mut reserve_left = None;
    let Applied::Settled(settled) =
        apply(&txn, now, campaign, &ev, attribution, &mut reserve_left).await?
    else {
        return Err(transaction_conflict());
    };
    let receipt_id = new_id("rcpt");
    let receipt = inbox::Receipt {
        id: &receipt_id,
        campaign_id: &campaign.id,
        source,
        hash: &hash,
        received_at: now,
    }
    .row(&ev, &settled.outcome, Some(settled.conversion_id));
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
        return inbox::first_receipt(ctx, &campaign.id, &hash).await;
    }
    txn.commit().await?;
    ctx.deliveries.announce();
    if let Some(user) = settled.user {
        // The user's completions changed: offer lists must not hide or show by the old ones.
        ctx.announce([Change::Completions(user)]);
    }
    after_settlement(ctx, now, campaign, &settled.outcome, reserve_left).await?;
    Ok(CallbackReceipt {
        accepted: true,
        duplicate: false,
        receipt_id,
    })
}

/// Locks the campaign row for a settlement. One settlement per campaign at a time: caps,
/// the reserve and retries are read and written under this lock (PostgreSQL row lock;
/// SQLite transactions are IMMEDIATE).
pub(super) async fn lock_campaign(
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
pub(super) enum Applied {
    /// The transaction id was reported before with another click or goal: nothing changed.
    Conflict,
    Settled(Settled),
}

/// A settled report: its conversion, the outcome and the `placement|user` key of the user
/// whose completions it may have changed.
pub(super) struct Settled {
    pub conversion_id: String,
    pub outcome: String,
    pub user: Option<String>,
}

/// Applies one report to its transaction's conversion, under the campaign lock.
pub(super) async fn apply(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    attribution: Result<Attribution, &'static str>,
    reserve_left: &mut Option<i64>,
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
    let (conversion_id, outcome, user) =
        settle(txn, now, campaign, ev, existing, attribution, reserve_left).await?;
    Ok(Applied::Settled(Settled {
        conversion_id,
        outcome,
        user,
    }))
}

/// Takes a campaign out of the in-memory inventory before the postback is answered when
/// this settlement used up its reserve or a cap (or found it already used up).
pub(super) async fn after_settlement(
    ctx: &Ctx,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    outcome: &str,
    reserve_left: Option<i64>,
) -> Result<(), AppError> {
    let snap = ctx.inventory.peek();
    let Some(listed) = snap.get(&campaign.id) else {
        return Ok(());
    };
    let exhausted = match outcome {
        state::CAP_REACHED | state::NO_BUDGET => true,
        state::APPROVED => {
            let cheapest = listed
                .config
                .goals
                .iter()
                .map(|g| g.payout_micros)
                .min()
                .unwrap_or(0);
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
            reserve < cheapest || (capped && caps_reached(&ctx.db, now, listed, 0).await?)
        }
        _ => false,
    };
    if exhausted {
        ctx.announce([Change::Offers]);
        ctx.inventory.caught_up().await;
    }
    Ok(())
}

/// What the conversion is attributed to.
pub(super) struct Attribution {
    launch: sdk_launch::Model,
    placement: placement::Model,
    slot: Option<ad_slot::Model>,
    payout_micros: i64,
    pending_minutes: i64,
    reward: RewardPreview,
}

pub(super) async fn attribute<C: ConnectionTrait>(
    txn: &C,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    seen: &mut Lookups,
) -> Result<Result<Attribution, &'static str>, AppError> {
    let launch = match seen.launches.get(&ev.click_id) {
        Some(l) => Some(l.clone()),
        None => {
            sdk_launch::Entity::find()
                .filter(sdk_launch::Column::ClickId.eq(ev.click_id.clone()))
                .filter(sdk_launch::Column::CampaignId.eq(campaign.id.clone()))
                .one(txn)
                .await?
        }
    };
    let Some(launch) = launch else {
        return Ok(Err(state::UNMATCHED_CLICK));
    };
    let window = chrono::Duration::hours(super::ATTRIBUTION_WINDOW_HOURS);
    if ev.occurred_at > launch.created_at + window {
        return Ok(Err(state::OUT_OF_WINDOW));
    }
    let config = match seen.configs.get(&launch.campaign_revision) {
        Some(c) => c,
        None => {
            let c = launched_config(txn, campaign, launch.campaign_revision).await?;
            seen.configs.entry(launch.campaign_revision).or_insert(c)
        }
    };
    let Some(goal) = config
        .goals
        .iter()
        .find(|g| g.external_goal_id == ev.goal_id)
    else {
        return Ok(Err(state::UNKNOWN_GOAL));
    };
    let (payout_micros, pending_minutes) = (goal.payout_micros, goal.pending_minutes);
    let placement = match seen.placements.get(&launch.placement_id) {
        Some(p) => p.clone(),
        None => {
            let p = placement::Entity::find_by_id(launch.placement_id.clone())
                .one(txn)
                .await?
                .ok_or_else(AppError::internal)?;
            seen.placements.insert(p.id.clone(), p.clone());
            p
        }
    };
    let slot = match seen.slots.get(&launch.ad_slot_id) {
        Some(s) => s.clone(),
        None => {
            let s = ad_slot::Entity::find_by_id(launch.ad_slot_id.clone())
                .one(txn)
                .await?;
            seen.slots.insert(launch.ad_slot_id.clone(), s.clone());
            s
        }
    };
    let earnings = publisher_share(payout_micros);
    let reward = match &slot {
        Some(s) => slots::preview(&slots::currency_of(s), earnings)?,
        None => RewardPreview {
            usd_micros: earnings,
            minor_units: 0,
            currency: String::new(),
            decimals: 0,
            display: format_minor(0, 0),
            meets_minimum_payout: false,
        },
    };
    Ok(Ok(Attribution {
        launch,
        placement,
        slot,
        payout_micros,
        pending_minutes,
        reward,
    }))
}

/// Rows a batch of settlements would read one by one or again for every report (launches,
/// a revision's configuration, placements, slots), read once per batch. Only rows that
/// never change once written, or whose reading a moment earlier means nothing.
#[derive(Default)]
pub(super) struct Lookups {
    launches: std::collections::HashMap<String, sdk_launch::Model>,
    configs: std::collections::HashMap<i64, crate::model::campaign::CampaignConfig>,
    placements: std::collections::HashMap<String, placement::Model>,
    slots: std::collections::HashMap<String, Option<ad_slot::Model>>,
}

impl Lookups {
    /// Reads the campaign's launches behind these click ids in one query.
    pub(super) async fn with_launches<C: ConnectionTrait>(
        db: &C,
        campaign_id: &str,
        click_ids: impl Iterator<Item = String>,
    ) -> Result<Self, AppError> {
        let launches = sdk_launch::Entity::find()
            .filter(sdk_launch::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(sdk_launch::Column::ClickId.is_in(click_ids))
            .all(db)
            .await?
            .into_iter()
            .map(|l| (l.click_id.clone(), l))
            .collect();
        Ok(Self {
            launches,
            ..Self::default()
        })
    }
}

/// The configuration the user was shown at launch (its revision), so the payout and reward
/// are the ones the offer promised.
async fn launched_config<C: ConnectionTrait>(
    txn: &C,
    campaign: &offer_campaign::Model,
    revision: i64,
) -> Result<crate::model::campaign::CampaignConfig, AppError> {
    let rev = offer_campaign_revision::Entity::find()
        .filter(offer_campaign_revision::Column::CampaignId.eq(campaign.id.clone()))
        .filter(offer_campaign_revision::Column::Revision.eq(revision))
        .one(txn)
        .await?;
    match rev {
        Some(r) => crate::domain::campaigns::parse_config(&r.config),
        None => live_config(txn, campaign).await,
    }
}

/// Applies the report to the conversion's state; returns its id, the outcome and the
/// `placement|user` key of the user whose completions it may have changed.
async fn settle(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    existing: Option<conversion::Model>,
    attribution: Result<Attribution, &'static str>,
    reserve_left: &mut Option<i64>,
) -> Result<(String, String, Option<String>), AppError> {
    if let Some(c) = &existing {
        match (c.settlement.as_str(), ev.status.as_str()) {
            // An approved conversion reported rejected or reversed gives back exactly what
            // was paid, whatever the campaign says now.
            (state::APPROVED, "rejected" | "reversed") => {
                reverse(txn, now, campaign, ev, c).await?;
                let user = c
                    .placement_id
                    .as_deref()
                    .zip(c.external_user_id.as_deref())
                    .map(|(p, u)| user_key(p, u));
                return Ok((c.id.clone(), state::REVERSED.to_owned(), user));
            }
            (state::PENDING, "approved" | "rejected" | "reversed") => {}
            // The wallet could not pay before; it may now.
            (state::NO_BUDGET, "approved") => {}
            // Terminal states never change again; later reports are recorded, not applied.
            _ => return Ok((c.id.clone(), "NO_CHANGE".to_owned(), None)),
        }
    }
    let conversion_id = existing
        .as_ref()
        .map(|c| c.id.clone())
        .unwrap_or_else(|| new_id("cnv"));
    let a = match attribution {
        Ok(a) => a,
        Err(unmatched) => {
            write(
                txn,
                now,
                campaign,
                ev,
                &conversion_id,
                existing,
                unmatched,
                None,
                None,
            )
            .await?;
            return Ok((conversion_id, unmatched.to_owned(), None));
        }
    };
    let next = match ev.status.as_str() {
        "pending" => state::PENDING,
        "approved" => {
            pay(
                txn,
                now,
                campaign,
                &a,
                &ev.goal_id,
                &conversion_id,
                reserve_left,
            )
            .await?
        }
        _ => state::REJECTED,
    };
    let credit_at = (next == state::APPROVED)
        .then(|| now + chrono::Duration::minutes(a.pending_minutes.clamp(0, 525_600)));
    write(
        txn,
        now,
        campaign,
        ev,
        &conversion_id,
        existing,
        next,
        Some(&a),
        credit_at,
    )
    .await?;
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
    Ok((conversion_id, next.to_owned(), Some(user)))
}

/// Reverses an approved conversion with the amounts stored when it was paid.
async fn reverse(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    c: &conversion::Model,
) -> Result<(), AppError> {
    if c.payout_micros > 0 {
        match ledger::post(
            txn,
            now,
            "refund",
            &campaign.advertiser_id,
            (SUBJECT, &campaign.id),
            &format!("conversion_reversal:{}", c.id),
            &ledger::reversal_legs(&campaign.advertiser_id, &campaign.id, c.payout_micros),
        )
        .await
        {
            Ok(_) | Err(PostError::AlreadyPosted) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let mut am: conversion::ActiveModel = c.clone().into();
    am.status = Set(ev.status.clone());
    am.settlement = Set(state::REVERSED.to_owned());
    am.updated_at = Set(now);
    am.update(txn).await?;
    let Some(placement_id) = &c.placement_id else {
        return Ok(());
    };
    let Some(p) = placement::Entity::find_by_id(placement_id.clone())
        .one(txn)
        .await?
    else {
        return Ok(());
    };
    let slot = match &c.ad_slot_id {
        Some(id) => ad_slot::Entity::find_by_id(id.clone()).one(txn).await?,
        None => None,
    };
    let (currency, decimals) = slot
        .as_ref()
        .map(|s| (s.currency_name.clone(), s.currency_decimals))
        .unwrap_or_default();
    let reward = RewardPreview {
        usd_micros: c.publisher_earnings_micros,
        minor_units: c.reward_minor_units,
        display: format_minor(c.reward_minor_units, decimals),
        currency,
        decimals,
        meets_minimum_payout: true,
    };
    let event = RewardEvent {
        placement: &p,
        slot: slot.as_ref(),
        conversion_id: &c.id,
        campaign_id: &campaign.id,
        user: c.external_user_id.as_deref().unwrap_or_default(),
        goal_id: &c.goal_id,
        reward: &reward,
        occurred_at: ev.occurred_at,
    };
    outbox::reverse(txn, now, &event).await?;
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
    reserve_left: &mut Option<i64>,
) -> Result<&'static str, AppError> {
    let config = live_config(txn, campaign).await?;
    let per_user = config.caps.per_user.unwrap_or(1).max(1);
    let done = conversion::Entity::find()
        .filter(conversion::Column::CampaignId.eq(campaign.id.clone()))
        .filter(conversion::Column::PlacementId.eq(a.placement.id.clone()))
        .filter(conversion::Column::ExternalUserId.eq(a.launch.external_user_id.clone()))
        .filter(conversion::Column::GoalId.eq(goal_id.to_owned()))
        .filter(conversion::Column::Settlement.eq(state::APPROVED))
        .count(txn)
        .await?;
    let offer = LiveOffer {
        campaign: campaign.clone(),
        config,
        reserved_micros: 0,
    };
    if i64::try_from(done).unwrap_or(i64::MAX) >= per_user
        || caps_reached(txn, now, &offer, a.payout_micros).await?
    {
        return Ok(state::CAP_REACHED);
    }
    // Checked first so a refusal writes no ledger transaction at all.
    let reserve = ledger::reserved_for(txn, &campaign.advertiser_id, &campaign.id).await?;
    let dedupe = format!("conversion_spend:{conversion_id}");
    if reserve >= a.payout_micros {
        return match lifecycle::spend_conversion(txn, now, campaign, a.payout_micros, &dedupe).await
        {
            Ok(_) => {
                *reserve_left = Some(reserve - a.payout_micros);
                Ok(state::APPROVED)
            }
            Err(PostError::AlreadyPosted) => Ok(state::APPROVED),
            Err(PostError::Insufficient) => Ok(state::NO_BUDGET),
            Err(PostError::Other(e)) => Err(e),
        };
    }
    if status_of(campaign) == CampaignStatus::Live {
        // A live campaign's reserve is its remaining budget.
        return Ok(state::NO_BUDGET);
    }
    // Paused or ended: the reserve went back to the wallet; a click made while LIVE is
    // paid from the available balance, within the campaign budget.
    let spent =
        ledger::account_balance(txn, &campaign.advertiser_id, Kind::Spent, &campaign.id).await?;
    let budget = live_config(txn, campaign).await?.budget_micros;
    if spent
        .checked_add(a.payout_micros)
        .is_none_or(|total| total > budget)
    {
        return Ok(state::NO_BUDGET);
    }
    match ledger::post(
        txn,
        now,
        "campaign_spend",
        &campaign.advertiser_id,
        (SUBJECT, &campaign.id),
        &dedupe,
        &ledger::late_spend_legs(&campaign.advertiser_id, &campaign.id, a.payout_micros),
    )
    .await
    {
        Ok(_) | Err(PostError::AlreadyPosted) => Ok(state::APPROVED),
        Err(PostError::Insufficient) => Ok(state::NO_BUDGET),
        Err(PostError::Other(e)) => Err(e),
    }
}

#[allow(clippy::too_many_arguments)]
async fn write(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    id: &str,
    existing: Option<conversion::Model>,
    settlement: &str,
    a: Option<&Attribution>,
    credit_at: Option<DateTime<Utc>>,
) -> Result<(), AppError> {
    let counted = matches!(settlement, state::PENDING | state::APPROVED);
    let (payout, earnings, reward) = match a {
        Some(a) if counted => (
            a.payout_micros,
            publisher_share(a.payout_micros),
            a.reward.minor_units,
        ),
        _ => (0, 0, 0),
    };
    match existing {
        Some(c) => {
            let mut am: conversion::ActiveModel = c.into();
            am.status = Set(ev.status.clone());
            am.settlement = Set(settlement.to_owned());
            am.payout_micros = Set(payout);
            am.publisher_earnings_micros = Set(earnings);
            am.reward_minor_units = Set(reward);
            am.credit_at = Set(credit_at);
            am.updated_at = Set(now);
            am.update(txn).await?;
        }
        None => {
            let row = conversion::ActiveModel {
                id: Set(id.to_owned()),
                campaign_id: Set(campaign.id.clone()),
                advertiser_id: Set(campaign.advertiser_id.clone()),
                transaction_id: Set(ev.transaction_id.clone()),
                click_id: Set(ev.click_id.clone()),
                goal_id: Set(ev.goal_id.clone()),
                status: Set(ev.status.clone()),
                settlement: Set(settlement.to_owned()),
                placement_id: Set(a.map(|a| a.placement.id.clone())),
                ad_slot_id: Set(a.map(|a| a.launch.ad_slot_id.clone())),
                session_id: Set(a.map(|a| a.launch.session_id.clone())),
                external_user_id: Set(a.map(|a| a.launch.external_user_id.clone())),
                payout_micros: Set(payout),
                publisher_earnings_micros: Set(earnings),
                reward_minor_units: Set(reward),
                occurred_at: Set(crate::domain::clock::truncate_micros(ev.occurred_at)),
                created_at: Set(now),
                updated_at: Set(now),
                credit_at: Set(credit_at),
            };
            conversion::Entity::insert(row)
                .exec_without_returning(txn)
                .await?;
        }
    }
    Ok(())
}
