//! Outcomes the advertiser reports for a transaction, and the settlement of a complete. Only
//! the signed report moves money, so everything that pays lives here and nowhere near the
//! unauthenticated entry and return pages.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter, Set,
};

use crate::domain::billing::ledger::{self, PostError};
use crate::domain::billing::share::publisher_share;
use crate::domain::callback_delivery::outbox::{self, RewardEvent};
use crate::domain::changes::Change;
use crate::domain::surveys::campaigns::SUBJECT;
use crate::domain::surveys::fetch::reward_for;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::earnings::EarningsState;
use crate::model::survey::campaign::PaymentStatus;
use entity::values::{EntryStatus, ReportedStatus, Settlement};
use entity::{
    ad_slot, conversion, placement, survey_campaign as survey, survey_entry as entry,
    survey_quota as quota, survey_respondent as respondent,
};

/// The conversion goal id of a survey complete (in reward callbacks).
pub const COMPLETE_GOAL: &str = "survey_complete";

/// The outcome that reverses a paid complete (the entry itself stays COMPLETE; its
/// conversion becomes REVERSED).
pub const REVERSED: &str = "REVERSED";

/// What an advertiser reports for an entry: the outcome it ends with, or the reversal of a
/// paid complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    Outcome(EntryStatus),
    Reversed,
}

/// The outcome statuses an advertiser reports, as the report names them.
pub fn outcome_state(s: &str) -> Option<Reported> {
    let outcome = match s.trim().to_ascii_lowercase().as_str() {
        "reversed" | "reverse" => return Some(Reported::Reversed),
        "complete" | "completed" => EntryStatus::Complete,
        "terminate" | "terminated" | "screenout" => EntryStatus::Terminated,
        "overquota" | "over_quota" => EntryStatus::Overquota,
        "quality_fail" | "quality" | "fraud" => EntryStatus::QualityFail,
        _ => return None,
    };
    Some(Reported::Outcome(outcome))
}

/// Body of the outcome report.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OutcomeInput {
    pub transaction_id: Option<String>,
    /// complete, terminate, overquota, quality_fail, or reversed (a paid complete, within the
    /// reconciliation window).
    pub status: Option<String>,
}

/// What an outcome report did.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OutcomeReceipt {
    pub transaction_id: String,
    /// The entry's state: COMPLETE, TERMINATED, OVERQUOTA or QUALITY_FAIL; REVERSED for a
    /// reversed complete.
    pub status: String,
    /// True when a complete was paid (false for other outcomes and for a complete that came
    /// after the campaign's completes were used up, which is counted OVERQUOTA).
    pub paid: bool,
    /// True when the same outcome had already been recorded.
    pub duplicate: bool,
    pub cost_micros: Micros,
}

/// `POST /api/v1/campaigns/{campaignId}/respondent-status`.
pub async fn report(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    input: OutcomeInput,
) -> Result<OutcomeReceipt, AppError> {
    let tx_id = input
        .transaction_id
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| AppError::field("transaction_id", "is required"))?;
    let wanted = input
        .status
        .as_deref()
        .and_then(outcome_state)
        .ok_or_else(|| {
            AppError::field(
                "status",
                "must be complete, terminate, overquota, quality_fail or reversed",
            )
        })?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    // Settlement of one campaign's completes runs one at a time (caps and the reserve).
    let m = crate::domain::surveys::campaigns::locked(&txn, actor, campaign_id).await?;
    let e = entry::Entity::find_by_id(tx_id.trim().to_owned())
        .filter(entry::Column::CampaignId.eq(m.id.clone()))
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("transaction"))?;
    let receipt = |status: &str, paid: bool, duplicate: bool, cost: i64| OutcomeReceipt {
        transaction_id: e.id.clone(),
        status: status.to_owned(),
        paid,
        duplicate,
        cost_micros: Micros(cost),
    };
    let Reported::Outcome(wanted) = wanted else {
        let c = super::reversal::reversible(&txn, now, ctx.config.reconciliation_window, &m, &e)
            .await?
            .map_err(|refused| refused.refusal())?;
        let done = super::reversal::reverse_complete(&txn, now, &m, &c).await?;
        let duplicate = done == super::reversal::CompleteReversal::AlreadyReversed;
        if !duplicate {
            let detail = serde_json::json!({"transactionId": e.id, "status": REVERSED});
            actor
                .audit(&txn, now, "survey_entry.reversed", (SUBJECT, &m.id), detail)
                .await?;
        }
        txn.commit().await?;
        ctx.deliveries.announce();
        return Ok(receipt(REVERSED, false, duplicate, 0));
    };
    if e.status != EntryStatus::Entered {
        let same = e.status == wanted
            || (wanted == EntryStatus::Complete && e.status == EntryStatus::Overquota);
        if same {
            // A complete reversed since is reported as it stands now: reversed, not paid.
            if super::reversal::was_reversed(&txn, &e).await? {
                return Ok(receipt(REVERSED, false, true, 0));
            }
            let paid = e.conversion_id.is_some();
            let cost = if paid { e.cpi_micros } else { 0 };
            return Ok(receipt(e.status.as_str(), paid, true, cost));
        }
        return Err(
            AppError::conflict(format!("the transaction is already {}", e.status))
                .with_code("transaction_finished"),
        );
    }
    let mut final_state = wanted;
    let mut conversion_id = None;
    let mut fills = false;
    // Test transactions (from `test-entry`) record their outcome and never move money.
    if wanted == EntryStatus::Complete && !e.test {
        crate::domain::surveys::grace::refuse_after_grace(&m, &e, now)?;
        match room_for_complete(&txn, now, &m, &e).await? {
            Some(last) => {
                conversion_id = Some(pay(&txn, now, &m, &e).await?);
                fills = last;
            }
            None => final_state = EntryStatus::Overquota,
        }
    }
    let paid = conversion_id.is_some();
    let mut a = e.clone().into_active_model();
    a.status = Set(final_state);
    a.conversion_id = Set(conversion_id);
    a.finished_at = Set(Some(now));
    a.update(&txn).await?;
    let detail = serde_json::json!({"transactionId": e.id, "status": final_state});
    actor
        .audit(&txn, now, "survey_entry.reported", (SUBJECT, &m.id), detail)
        .await?;
    if fills {
        // The survey (or a quota) is full: the answer leaves once the fetch no longer
        // offers it here.
        ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    } else {
        txn.commit().await?;
        // Counts moved: the live surveys fold them in within `live::MIN_GAP`.
        ctx.announce([Change::Surveys]);
    }
    ctx.deliveries.announce();
    Ok(receipt(
        final_state.as_str(),
        paid,
        false,
        if paid { e.cpi_micros } else { 0 },
    ))
}

/// Whether the campaign, the day and the entry's quota still take a complete: `None` when
/// they do not, else whether this complete fills one of them (the survey then leaves the
/// fetch).
async fn room_for_complete<C: sea_orm::ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    m: &survey::Model,
    e: &entry::Model,
) -> Result<Option<bool>, AppError> {
    let done = |since: Option<DateTime<Utc>>| {
        let mut q = entry::Entity::find()
            .filter(entry::Column::CampaignId.eq(m.id.clone()))
            .filter(entry::Column::Status.eq(EntryStatus::Complete))
            .filter(entry::Column::Test.eq(false));
        if let Some(s) = since {
            q = q.filter(entry::Column::FinishedAt.gte(s));
        }
        q.count(db)
    };
    let total = i64::try_from(done(None).await?).unwrap_or(i64::MAX);
    if m.total_completes.is_some_and(|t| total >= t) {
        return Ok(None);
    }
    let mut fills = m.total_completes.is_some_and(|t| total + 1 >= t);
    let day = now.date_naive().and_hms_opt(0, 0, 0).map(|d| d.and_utc());
    let today = i64::try_from(done(day).await?).unwrap_or(i64::MAX);
    if m.max_daily_completes.is_some_and(|d| today >= d) {
        return Ok(None);
    }
    fills |= m.max_daily_completes.is_some_and(|d| today + 1 >= d);
    if let Some(qid) = &e.quota_id
        && let Some(q) = quota::Entity::find_by_id(qid.clone()).one(db).await?
    {
        if q.completes >= q.num_respondents {
            return Ok(None);
        }
        fills |= q.completes + 1 >= q.num_respondents;
    }
    Ok(Some(fills))
}

/// Pays a complete: ledger, quota count, conversion and reward callback, in `txn`.
async fn pay(
    txn: &sea_orm::DatabaseTransaction,
    now: DateTime<Utc>,
    m: &survey::Model,
    e: &entry::Model,
) -> Result<String, AppError> {
    let conversion_id = crate::domain::ids::new_id("cnv");
    let p = placement::Entity::find_by_id(e.placement_id.clone())
        .one(txn)
        .await?
        .ok_or_else(AppError::internal)?;
    let share = publisher_share(Micros(e.cpi_micros)).get();
    let earning = ledger::Earning {
        publisher: &p.owner_account_id,
        publisher_micros: Micros(share),
        released: false,
    };
    // A wallet campaign pays from its reservation; a campaign paid outside the wallet owes
    // the complete (EXTERNAL_RECEIVABLE). Either way the publisher earns its share.
    let paid_from = match m.payment_status {
        PaymentStatus::Wallet => Some((ledger::PaidFrom::Reserve, ledger::TransactionKind::Spend)),
        PaymentStatus::External => Some((
            ledger::PaidFrom::External,
            ledger::TransactionKind::ExternalSpend,
        )),
        PaymentStatus::Unpaid => None,
    }
    .filter(|_| e.cpi_micros > 0);
    if let Some((from, kind)) = paid_from {
        match ledger::post(
            txn,
            now,
            // Wallet spend has the same kind as offer spend, so invoices count both.
            kind,
            &m.advertiser_id,
            (SUBJECT, &m.id),
            &format!("survey_complete:{}", e.id),
            &ledger::conversion_legs(from, &m.advertiser_id, &m.id, e.cpi_micros, Some(&earning)),
        )
        .await
        {
            Ok(_) | Err(PostError::AlreadyPosted) => {}
            Err(PostError::Insufficient) => {
                return Err(AppError::conflict("the campaign's reservation is used up")
                    .with_code("no_budget"));
            }
            Err(PostError::Other(err)) => return Err(err),
        }
    }
    if let Some(qid) = &e.quota_id
        && let Some(q) = quota::Entity::find_by_id(qid.clone()).one(txn).await?
    {
        let completes = q.completes + 1;
        let mut a = q.into_active_model();
        a.completes = Set(completes);
        a.updated_at = Set(now);
        a.update(txn).await?;
    }
    let slot = match &e.ad_slot_id {
        Some(id) => ad_slot::Entity::find_by_id(id.clone()).one(txn).await?,
        None => None,
    };
    let r = respondent::Entity::find_by_id(e.respondent_id.clone())
        .one(txn)
        .await?
        .ok_or_else(AppError::internal)?;
    let reward = reward_for(slot.as_ref(), Micros(e.cpi_micros))?;
    conversion::ActiveModel {
        id: Set(conversion_id.clone()),
        campaign_id: Set(m.id.clone()),
        advertiser_id: Set(m.advertiser_id.clone()),
        transaction_id: Set(e.id.clone()),
        click_id: Set(e.id.clone()),
        goal_id: Set(COMPLETE_GOAL.to_owned()),
        status: Set(ReportedStatus::Approved),
        settlement: Set(Settlement::Approved),
        placement_id: Set(Some(p.id.clone())),
        ad_slot_id: Set(e.ad_slot_id.clone()),
        session_id: Set(None),
        external_user_id: Set(Some(r.external_user_id.clone())),
        payout_micros: Set(e.cpi_micros),
        publisher_earnings_micros: Set(share),
        reward_minor_units: Set(reward.minor_units),
        occurred_at: Set(now),
        created_at: Set(now),
        updated_at: Set(now),
        credit_at: Set(Some(now)),
        publisher_id: Set(paid_from.map(|_| p.owner_account_id.clone())),
        earnings_state: Set(paid_from.map(|_| EarningsState::Pending)),
        earnings_at: Set(paid_from.map(|_| now)),
        reversed_at: Set(None),
        // Survey completes are not screened (the survey's own checks and the hosted entry
        // decide); they carry no click facts.
        fraud_score: Set(0),
        fraud_reasons: Set(None),
        held_at: Set(None),
        held_until: Set(None),
        click_ip: Set(None),
        click_network: Set(None),
        device_id: Set(None),
        seconds_to_convert: Set(None),
        decided_by: Set(None),
        decided_at: Set(None),
        decision_note: Set(None),
    }
    .insert(txn)
    .await?;
    let ev = RewardEvent {
        placement: &p,
        slot: slot.as_ref(),
        conversion_id: &conversion_id,
        campaign_id: &m.id,
        user: &r.external_user_id,
        goal_id: COMPLETE_GOAL,
        reward: &reward,
        occurred_at: now,
    };
    outbox::confirm(txn, now, &ev, now).await?;
    Ok(conversion_id)
}

/// The respondent's browser coming back from the survey (`/surveys/v1/return`): the page
/// thanks them for what they report and changes nothing. It is an unauthenticated GET anyone
/// can make, so only the advertiser's signed report decides a transaction's outcome and its
/// payment (a forged "overquota" return must not turn a later complete into an unpaid
/// duplicate).
pub fn browser_return(reported: &str) -> &'static str {
    match outcome_state(reported) {
        None => "Thank you. You can close this page.",
        Some(Reported::Outcome(EntryStatus::Complete)) => {
            "Thank you for completing the survey. Your reward is credited as soon as the survey owner confirms it."
        }
        Some(_) => {
            "Thank you. This survey was not a match this time; other surveys are waiting for you."
        }
    }
}
