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
//! refused, except `reversed`, which takes back a paid complete inside the reconciliation
//! window (`reversal`).

pub mod link;
mod outcome;
pub(in crate::domain) mod reversal;

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::campaigns::owned;
use super::fetch::{reward_for, reward_slot};
use super::matching::{self, EntryStatus, Facts};
use crate::domain::changes::Change;
use crate::domain::hot_cache::user_key;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::money::Micros;
use entity::{
    ad_slot, survey_campaign as survey, survey_entry as entry, survey_respondent as respondent,
    survey_respondent_answer as answer,
};

pub use link::{ENTRY_TTL_MINUTES, EntryGrant, entry_url, read_grant};
pub use outcome::{
    COMPLETE_GOAL, OutcomeInput, OutcomeReceipt, Reported, browser_return, outcome_state, report,
};

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
    let reward = reward_for(slot.as_ref(), Micros(cpi))?;
    let id = crate::domain::ids::new_id("stx");
    entry::ActiveModel {
        id: Set(id.clone()),
        campaign_id: Set(m.id.clone()),
        respondent_id: Set(r.id.clone()),
        placement_id: Set(r.placement_id.clone()),
        ad_slot_id: Set(slot.map(|s| s.id)),
        quota_id: Set(found.quota_id),
        status: Set(EntryStatus::Entered.to_owned()),
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
    Ok(Some(match (e.status, m) {
        (EntryStatus::Entered, Some(m)) if matching::live(&m, now.date_naive()) => Entry::Redirect(
            m.survey_live_link
                .replace(super::campaigns::TRANSACTION_MACRO, &e.id),
        ),
        _ => Entry::Unavailable("You have already taken this survey."),
    }))
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
        status: Set(EntryStatus::Entered.to_owned()),
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
            sea_orm::sea_query::Expr::value(EntryStatus::Complete),
        )
        .col_expr(
            entry::Column::FinishedAt,
            sea_orm::sea_query::Expr::value(Some(now)),
        )
        .filter(entry::Column::Id.eq(transaction_id.to_owned()))
        .filter(entry::Column::CampaignId.eq(campaign_id.to_owned()))
        .filter(entry::Column::Test.eq(true))
        .filter(entry::Column::Status.eq(EntryStatus::Entered))
        .exec(&ctx.db)
        .await?
        .rows_affected;
    Ok(n == 1)
}
