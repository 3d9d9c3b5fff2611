//! The hosted survey entry and the outcomes of entries.
//!
//! A survey item's `SurveyUrl` is a signed, one-hour link naming the survey, the respondent
//! and the slot whose currency the reward is shown in. Opening it re-checks that the survey
//! still fits (live, in field, quota open, not already entered), asks a medium-risk
//! respondent to verify first, records an entry and redirects to the advertiser's live link
//! with `{transaction_id}` replaced by the entry id.
//!
//! The advertiser reports each transaction's outcome server to server through the signed
//! survey API. A complete is settled in one transaction: the CPI moves from the campaign's
//! wallet reservation to spend (nothing moves for a campaign paid outside the wallet), the
//! quota counts it, a conversion records the publisher's earnings and the reward callback is
//! queued. Repeats of the same outcome are no-ops; a different outcome of a finished entry is
//! refused.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter, Set,
};

use super::campaigns::{SUBJECT, owned};
use super::fetch::{reward_for, reward_slot};
use super::matching::{self, Facts, status};
use crate::domain::billing::ledger::{self, PostError};
use crate::domain::callback_delivery::outbox::{self, RewardEvent};
use crate::domain::changes::Change;
use crate::domain::delivery::publisher_share;
use crate::domain::hot_cache::user_key;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::survey::campaign::PaymentStatus;
use entity::{
    ad_slot, conversion, placement, survey_campaign as survey, survey_entry as entry,
    survey_quota as quota, survey_respondent as respondent, survey_respondent_answer as answer,
};

/// How long a SurveyUrl stays valid.
pub const ENTRY_TTL_MINUTES: i64 = 60;
/// The conversion goal id of a survey complete (in reward callbacks).
pub const COMPLETE_GOAL: &str = "survey_complete";

/// What a SurveyUrl grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryGrant {
    pub campaign_id: String,
    pub respondent_id: String,
    pub slot_id: Option<String>,
    pub expires: i64,
    pub verify: bool,
}

fn grant_text(g: &EntryGrant) -> String {
    format!(
        "{}.{}.{}.{}.{}",
        g.campaign_id,
        g.respondent_id,
        g.slot_id.as_deref().unwrap_or("-"),
        g.expires,
        u8::from(g.verify)
    )
}

/// The signed hosted entry link.
pub fn entry_url(
    ctx: &Ctx,
    now: DateTime<Utc>,
    campaign_id: &str,
    respondent_id: &str,
    slot_id: Option<&str>,
    verify: bool,
) -> String {
    let g = EntryGrant {
        campaign_id: campaign_id.to_owned(),
        respondent_id: respondent_id.to_owned(),
        slot_id: slot_id.map(str::to_owned),
        expires: (now + chrono::Duration::minutes(ENTRY_TTL_MINUTES)).timestamp(),
        verify,
    };
    let text = grant_text(&g);
    let sig = ctx.keys.sign(&format!("survey-entry:{text}"));
    format!("{}/surveys/v1/entry/{text}.{sig}", ctx.config.base_url)
}

/// Checks a SurveyUrl token (signature and expiry).
pub fn read_grant(ctx: &Ctx, now: DateTime<Utc>, token: &str) -> Result<EntryGrant, AppError> {
    let bad = || AppError::not_found("survey link").with_code("invalid_link");
    let (text, sig) = token.rsplit_once('.').ok_or_else(bad)?;
    if !ctx.keys.verify(&format!("survey-entry:{text}"), sig) {
        return Err(bad());
    }
    let parts: Vec<&str> = text.split('.').collect();
    let [c, r, s, e, v] = parts.as_slice() else {
        return Err(bad());
    };
    let g = EntryGrant {
        campaign_id: (*c).to_owned(),
        respondent_id: (*r).to_owned(),
        slot_id: (*s != "-").then(|| (*s).to_owned()),
        expires: e.parse().map_err(|_| bad())?,
        verify: *v == "1",
    };
    if now.timestamp() > g.expires {
        return Err(
            AppError::gone("this survey link has expired; fetch surveys again")
                .with_code("link_expired"),
        );
    }
    Ok(g)
}

/// Where an entry goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// Redirect to the advertiser's live link.
    Redirect(String),
    /// Show the verification question first (`super::verification`).
    Verify { prompt: String, numeric: bool },
    /// The survey no longer fits (closed, full or already taken): a page says so.
    Unavailable(&'static str),
}

/// Opens a SurveyUrl. `answer` is the verification answer when the form was posted. A
/// respondent has one real transaction per campaign (a unique index): parallel opens of one
/// link that lose the race are answered with the winner's transaction.
pub async fn enter(ctx: &Ctx, token: &str, answer: Option<&str>) -> Result<Entry, AppError> {
    db::retry_on_race(|| enter_once(ctx, token, answer)).await
}

async fn enter_once(ctx: &Ctx, token: &str, answer: Option<&str>) -> Result<Entry, AppError> {
    let now = ctx.now();
    let g = read_grant(ctx, now, token)?;
    if g.verify {
        let c = super::verification::challenge(token);
        // Every posted answer spends the respondent's budget, right or wrong: otherwise a
        // script could try the few possible answers in turn.
        if answer.is_some() {
            ctx.limits.check(
                crate::domain::rate_limit::Policy::SurveyVerify,
                &g.respondent_id,
            )?;
        }
        if !answer.is_some_and(|a| c.accepts(a)) {
            return Ok(Entry::Verify {
                prompt: c.prompt,
                numeric: c.numeric,
            });
        }
    }
    super::respondents::stored(ctx, &g.respondent_id).await?;
    let txn = db::begin(&ctx.db).await?;
    let Some(r) = respondent::Entity::find_by_id(g.respondent_id.clone())
        .one(&txn)
        .await?
    else {
        return Err(AppError::not_found("survey link"));
    };
    // An entry already made through this link is sent to the same transaction again.
    if let Some(done) = existing_entry(&txn, now, &g.campaign_id, &r.id).await? {
        return Ok(done);
    }
    let Some(m) = survey::Entity::find_by_id(g.campaign_id.clone())
        .one(&txn)
        .await?
    else {
        return Ok(Entry::Unavailable("This survey is no longer available."));
    };
    let stored = answer::Entity::find()
        .filter(answer::Column::RespondentId.eq(r.id.clone()))
        .all(&txn)
        .await?
        .into_iter()
        .map(|a| {
            (
                a.question_id,
                serde_json::from_str(&a.answer_ids).unwrap_or_default(),
            )
        })
        .collect();
    let facts = Facts {
        today: Some(now.date_naive()),
        date_of_birth: r.date_of_birth,
        gender: r.gender.clone(),
        zip: r.zip_code.clone(),
        device: None,
        answers: stored,
    };
    let Some(found) = matching::matches(&txn, now, Some(&r.id), &facts, vec![m])
        .await?
        .pop()
    else {
        // A parallel open of the same link may have committed its entry meanwhile (matching
        // leaves out surveys the respondent entered): send this one to it too.
        if let Some(done) = existing_entry(&txn, now, &g.campaign_id, &r.id).await? {
            return Ok(done);
        }
        return Ok(Entry::Unavailable(
            "This survey is full or closed now. Please choose another one.",
        ));
    };
    let m = found.campaign;
    let slot = match &g.slot_id {
        Some(id) => ad_slot::Entity::find_by_id(id.clone()).one(&txn).await?,
        None => reward_slot(&txn, &r.placement_id).await?,
    };
    let cpi = m.cpi_micros.unwrap_or(0);
    let reward = reward_for(slot.as_ref(), cpi)?;
    let id = crate::domain::ids::new_id("stx");
    entry::ActiveModel {
        id: Set(id.clone()),
        campaign_id: Set(m.id.clone()),
        respondent_id: Set(r.id.clone()),
        placement_id: Set(r.placement_id.clone()),
        ad_slot_id: Set(slot.map(|s| s.id)),
        quota_id: Set(found.quota_id),
        status: Set(status::ENTERED.to_owned()),
        test: Set(false),
        verification: Set(if g.verify { "PASSED" } else { "NOT_REQUIRED" }.to_owned()),
        cpi_micros: Set(cpi),
        reward_minor_units: Set(reward.minor_units),
        conversion_id: Set(None),
        created_at: Set(now),
        finished_at: Set(None),
    }
    .insert(&txn)
    .await
    .map_err(db::race_on_unique)?;
    txn.commit().await?;
    // The fetch leaves the survey out from now on, here and in every other process.
    ctx.announce([Change::SurveyEntered(format!(
        "{}|{}",
        m.id,
        user_key(&r.placement_id, &r.external_user_id)
    ))]);
    Ok(Entry::Redirect(
        m.survey_live_link
            .replace(super::campaigns::TRANSACTION_MACRO, &id),
    ))
}

/// Where a respondent who already entered the campaign goes: back to the open transaction,
/// or a page saying the survey was taken.
async fn existing_entry<C: sea_orm::ConnectionTrait>(
    txn: &C,
    now: chrono::DateTime<chrono::Utc>,
    campaign_id: &str,
    respondent_id: &str,
) -> Result<Option<Entry>, AppError> {
    let Some(e) = entry::Entity::find()
        .filter(entry::Column::CampaignId.eq(campaign_id.to_owned()))
        .filter(entry::Column::RespondentId.eq(respondent_id.to_owned()))
        .filter(entry::Column::Test.eq(false))
        .one(txn)
        .await?
    else {
        return Ok(None);
    };
    let m = survey::Entity::find_by_id(campaign_id.to_owned())
        .one(txn)
        .await?;
    Ok(Some(match (e.status.as_str(), m) {
        (status::ENTERED, Some(m)) if matching::live(&m, now.date_naive()) => Entry::Redirect(
            m.survey_live_link
                .replace(super::campaigns::TRANSACTION_MACRO, &e.id),
        ),
        _ => Entry::Unavailable("You have already taken this survey."),
    }))
}

/// Outcome statuses an advertiser reports.
pub fn outcome_state(s: &str) -> Option<&'static str> {
    match s.trim().to_ascii_lowercase().as_str() {
        "complete" | "completed" => Some(status::COMPLETE),
        "terminate" | "terminated" | "screenout" => Some(status::TERMINATED),
        "overquota" | "over_quota" => Some(status::OVERQUOTA),
        "quality_fail" | "quality" | "fraud" => Some(status::QUALITY_FAIL),
        _ => None,
    }
}

/// Body of the outcome report.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OutcomeInput {
    pub transaction_id: Option<String>,
    /// complete, terminate, overquota or quality_fail.
    pub status: Option<String>,
}

/// What an outcome report did.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OutcomeReceipt {
    pub transaction_id: String,
    /// The entry's state: COMPLETE, TERMINATED, OVERQUOTA or QUALITY_FAIL.
    pub status: String,
    /// True when a complete was paid (false for other outcomes and for a complete that came
    /// after the campaign's completes were used up, which is counted OVERQUOTA).
    pub paid: bool,
    /// True when the same outcome had already been recorded.
    pub duplicate: bool,
    pub cost_micros: i64,
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
                "must be complete, terminate, overquota or quality_fail",
            )
        })?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    // Settlement of one campaign's completes runs one at a time (caps and the reserve).
    let m = super::campaigns::locked(&txn, actor, campaign_id).await?;
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
        cost_micros: cost,
    };
    if e.status != status::ENTERED {
        let same =
            e.status == wanted || (wanted == status::COMPLETE && e.status == status::OVERQUOTA);
        if same {
            return Ok(receipt(
                &e.status.clone(),
                e.conversion_id.is_some(),
                true,
                if e.conversion_id.is_some() {
                    e.cpi_micros
                } else {
                    0
                },
            ));
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
    if wanted == status::COMPLETE && !e.test {
        super::grace::refuse_after_grace(&m, &e, now)?;
        match room_for_complete(&txn, now, &m, &e).await? {
            Some(last) => {
                conversion_id = Some(pay(&txn, now, &m, &e).await?);
                fills = last;
            }
            None => final_state = status::OVERQUOTA,
        }
    }
    let paid = conversion_id.is_some();
    let mut a = e.clone().into_active_model();
    a.status = Set(final_state.to_owned());
    a.conversion_id = Set(conversion_id);
    a.finished_at = Set(Some(now));
    a.update(&txn).await?;
    crate::domain::audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "survey_entry.reported",
        (SUBJECT, &m.id),
        serde_json::json!({"transactionId": e.id, "status": final_state}),
    )
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
        final_state,
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
            .filter(entry::Column::Status.eq(status::COMPLETE))
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
    if m.payment_status == PaymentStatus::Wallet.as_str() && e.cpi_micros > 0 {
        match ledger::post(
            txn,
            now,
            // The same kind as offer spend, so invoices and reports count both.
            "spend",
            &m.advertiser_id,
            (SUBJECT, &m.id),
            &format!("survey_complete:{}", e.id),
            &ledger::spend_legs(&m.advertiser_id, &m.id, e.cpi_micros),
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
    let p = placement::Entity::find_by_id(e.placement_id.clone())
        .one(txn)
        .await?
        .ok_or_else(AppError::internal)?;
    let slot = match &e.ad_slot_id {
        Some(id) => ad_slot::Entity::find_by_id(id.clone()).one(txn).await?,
        None => None,
    };
    let r = respondent::Entity::find_by_id(e.respondent_id.clone())
        .one(txn)
        .await?
        .ok_or_else(AppError::internal)?;
    let reward = reward_for(slot.as_ref(), e.cpi_micros)?;
    conversion::ActiveModel {
        id: Set(conversion_id.clone()),
        campaign_id: Set(m.id.clone()),
        advertiser_id: Set(m.advertiser_id.clone()),
        transaction_id: Set(e.id.clone()),
        click_id: Set(e.id.clone()),
        goal_id: Set(COMPLETE_GOAL.to_owned()),
        status: Set("approved".to_owned()),
        settlement: Set(crate::domain::conversions::reported::Settlement::Approved
            .as_str()
            .to_owned()),
        placement_id: Set(Some(p.id.clone())),
        ad_slot_id: Set(e.ad_slot_id.clone()),
        session_id: Set(None),
        external_user_id: Set(Some(r.external_user_id.clone())),
        payout_micros: Set(e.cpi_micros),
        publisher_earnings_micros: Set(publisher_share(e.cpi_micros)),
        reward_minor_units: Set(reward.minor_units),
        occurred_at: Set(now),
        created_at: Set(now),
        updated_at: Set(now),
        credit_at: Set(Some(now)),
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
        Some(status::COMPLETE) => {
            "Thank you for completing the survey. Your reward is credited as soon as the survey owner confirms it."
        }
        Some(_) => {
            "Thank you. This survey was not a match this time; other surveys are waiting for you."
        }
    }
}

/// A test transaction: `{transaction_id, test_url}`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TestEntry {
    pub transaction_id: String,
    /// `survey_test_link` with `{transaction_id}` filled in.
    pub test_url: String,
    /// Where the test survey sends the tester at the end.
    pub test_redirect_url: String,
}

/// `POST /api/v1/campaigns/{campaignId}/test-entry`: a test transaction on the campaign's
/// test link, in any status. It is reported like a real one (or completed through
/// `test_redirect_url`) and never paid.
pub async fn start_test(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
) -> Result<TestEntry, AppError> {
    let now = ctx.now();
    let m = owned(&ctx.db, actor, campaign_id).await?;
    let id = crate::domain::ids::new_id("stx");
    entry::ActiveModel {
        id: Set(id.clone()),
        campaign_id: Set(m.id.clone()),
        respondent_id: Set("test".to_owned()),
        placement_id: Set(String::new()),
        ad_slot_id: Set(None),
        quota_id: Set(None),
        status: Set(status::ENTERED.to_owned()),
        test: Set(true),
        verification: Set("TEST".to_owned()),
        cpi_micros: Set(0),
        reward_minor_units: Set(0),
        conversion_id: Set(None),
        created_at: Set(now),
        finished_at: Set(None),
    }
    .insert(&ctx.db)
    .await?;
    Ok(TestEntry {
        test_url: m
            .survey_test_link
            .replace(super::campaigns::TRANSACTION_MACRO, &id),
        test_redirect_url: super::campaigns::test_redirect_url(ctx, &m.id)
            .replace(super::campaigns::TRANSACTION_MACRO, &id),
        transaction_id: id,
    })
}

/// The test link came back (`test_redirect_url`): an open test transaction of the campaign
/// is recorded COMPLETE (never paid). Returns whether one was.
pub async fn test_returned(
    ctx: &Ctx,
    campaign_id: &str,
    transaction_id: &str,
) -> Result<bool, AppError> {
    let now = ctx.now();
    let n = entry::Entity::update_many()
        .col_expr(
            entry::Column::Status,
            sea_orm::sea_query::Expr::value(status::COMPLETE),
        )
        .col_expr(
            entry::Column::FinishedAt,
            sea_orm::sea_query::Expr::value(Some(now)),
        )
        .filter(entry::Column::Id.eq(transaction_id.to_owned()))
        .filter(entry::Column::CampaignId.eq(campaign_id.to_owned()))
        .filter(entry::Column::Test.eq(true))
        .filter(entry::Column::Status.eq(status::ENTERED))
        .exec(&ctx.db)
        .await?
        .rows_affected;
    Ok(n == 1)
}
