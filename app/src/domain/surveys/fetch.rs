//! The publisher survey fetch (`POST /getallsurveys-api`): the app key names the placement,
//! the body is checked field by field, the respondent and their profiling answers are stored,
//! the fetch is scored for fraud, and the surveys that fit are returned ranked by expected
//! earnings per minute, each with a signed hosted entry link.
//!
//! HTTP statuses (the envelope's `ErrorCode` is always present): SUCCESS 200;
//! INVALID_PROFILE and COUNTRY_LANGUAGE_UNSUPPORTED 400; UNAUTHORIZED 401 (missing or
//! unknown app key); FORBIDDEN 403 (AppId is not the key's placement, or a production
//! placement that is not released); FRAUD_BLOCKED 403; NOT_FOUND 404 (nothing fits now;
//! retry later).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, Set,
};

use super::entries;
use super::fraud::{self, Risk};
use super::matching::{self, Facts, Match};
use super::profile::{self, Invalid, Profile};
use crate::domain::delivery::publisher_share;
use crate::domain::publisher::slots;
use crate::domain::{Ctx, crypto, db, ids::new_id};
use crate::error::AppError;
use crate::model::money::format_micros;
use crate::model::publisher::RewardPreview;
use crate::model::publisher_rules::format_minor;
use crate::model::survey_campaign::{Hundredths, SurveyStatus};
use crate::model::survey_fetch::*;
use entity::{
    ad_slot, app_key, placement, survey_campaign as survey, survey_fetch as fetch_row,
    survey_respondent as respondent, survey_respondent_answer as answer,
};

/// The provider label of this API (opaque to publishers).
pub const PROVIDED_BY: &str = "MARKETPLACE-SURVEYS";
/// At most this many surveys per answer.
pub const MAX_ITEMS: usize = 50;
/// Whether survey fetch serves a placement's app key: any placement outside production (so a
/// publisher can integrate before review), only released ones in production. The
/// placement's `capabilities.surveyFetch` is this same rule.
pub fn serves(environment: crate::domain::Environment, p: &entity::placement::Model) -> bool {
    environment != crate::domain::Environment::Production || p.released
}

/// The length assumed for a campaign that gives none (15 minutes).
const DEFAULT_LOI: Hundredths = Hundredths(1_500);

/// An answer: HTTP status and the envelope.
pub type Answer = (u16, SurveyEnvelope);

fn refusal(status: u16, code: &str, error: &str, fields: BTreeMap<String, String>) -> Answer {
    (
        status,
        SurveyEnvelope {
            Errors: vec![error.to_owned()],
            ErrorCode: code.to_owned(),
            fieldErrors: fields,
            ..Default::default()
        },
    )
}

/// The placement an app key belongs to (active keys only).
async fn placement_of_key(ctx: &Ctx, key: &str) -> Result<Option<placement::Model>, AppError> {
    let Some(k) = app_key::Entity::find()
        .filter(app_key::Column::KeyHash.eq(crypto::sha256_hex(key)))
        .filter(app_key::Column::RevokedAt.is_null())
        .one(&ctx.db)
        .await?
    else {
        return Ok(None);
    };
    Ok(placement::Entity::find_by_id(k.placement_id)
        .one(&ctx.db)
        .await?
        .filter(|p| p.archived_at.is_none()))
}

/// The slot whose currency rewards are shown in: the placement's first active slot, else
/// its first ready one, else any.
pub async fn reward_slot<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
) -> Result<Option<ad_slot::Model>, AppError> {
    let slots = ad_slot::Entity::find()
        .filter(ad_slot::Column::PlacementId.eq(placement_id.to_owned()))
        .order_by_asc(ad_slot::Column::CreatedAt)
        .all(db)
        .await?;
    let rank = |s: &ad_slot::Model| match s.state.as_str() {
        "ACTIVE" => 0,
        "READY" => 1,
        _ => 2,
    };
    Ok(slots.into_iter().min_by_key(rank))
}

/// The respondent's reward for a survey paying `cpi_micros`.
pub fn reward_for(
    slot: Option<&ad_slot::Model>,
    cpi_micros: i64,
) -> Result<RewardPreview, AppError> {
    let earnings = publisher_share(cpi_micros);
    match slot {
        Some(s) => slots::preview(&slots::currency_of(s), earnings),
        None => Ok(RewardPreview {
            usd_micros: earnings,
            minor_units: earnings / 10_000,
            currency: "USD".to_owned(),
            decimals: 2,
            display: format_minor(earnings / 10_000, 2),
            meets_minimum_payout: true,
        }),
    }
}

fn number(text: &str) -> serde_json::Number {
    text.parse().unwrap_or_else(|_| serde_json::Number::from(0))
}

/// Stores the respondent and their answers; returns the row and every stored answer.
async fn upsert_respondent<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    placement_id: &str,
    p: &Profile,
) -> Result<(respondent::Model, HashMap<String, Vec<String>>), AppError> {
    let existing = respondent::Entity::find()
        .filter(respondent::Column::PlacementId.eq(placement_id.to_owned()))
        .filter(respondent::Column::ExternalUserId.eq(p.user_id.clone()))
        .one(db)
        .await?;
    let row = match existing {
        Some(r) => {
            let mut a = r.clone().into_active_model();
            a.locale_code = Set(p.locale.code.to_owned());
            // Profile fields that were omitted keep their stored values.
            if p.date_of_birth.is_some() {
                a.date_of_birth = Set(p.date_of_birth);
            }
            if let Some(g) = p.gender {
                a.gender = Set(Some(g.to_owned()));
            }
            if p.zip.is_some() {
                a.zip_code = Set(p.zip.clone());
            }
            if p.gps_id.is_some() {
                a.gps_id = Set(p.gps_id.clone());
            }
            a.city = Set(p.city.clone());
            a.last_ip = Set(p.ip.to_string());
            a.updated_at = Set(now);
            a.update(db).await?
        }
        None => {
            respondent::ActiveModel {
                id: Set(new_id("rsp")),
                placement_id: Set(placement_id.to_owned()),
                external_user_id: Set(p.user_id.clone()),
                locale_code: Set(p.locale.code.to_owned()),
                date_of_birth: Set(p.date_of_birth),
                gender: Set(p.gender.map(str::to_owned)),
                zip_code: Set(p.zip.clone()),
                city: Set(p.city.clone()),
                gps_id: Set(p.gps_id.clone()),
                last_ip: Set(p.ip.to_string()),
                risk_score: Set(0),
                created_at: Set(now),
                updated_at: Set(now),
            }
            .insert(db)
            .await?
        }
    };
    if !p.answers.is_empty() {
        // A repeated question overwrites what was stored.
        answer::Entity::delete_many()
            .filter(answer::Column::RespondentId.eq(row.id.clone()))
            .filter(answer::Column::QuestionId.is_in(p.answers.iter().map(|a| a.0.clone())))
            .exec(db)
            .await?;
        answer::Entity::insert_many(p.answers.iter().map(|(q, ids, partner)| {
            answer::ActiveModel {
                respondent_id: Set(row.id.clone()),
                question_id: Set(q.clone()),
                answer_ids: Set(serde_json::to_string(ids).unwrap_or_else(|_| "[]".into())),
                partner_code: Set(partner.clone()),
                updated_at: Set(now),
            }
        }))
        .exec(db)
        .await?;
    }
    let stored = answer::Entity::find()
        .filter(answer::Column::RespondentId.eq(row.id.clone()))
        .all(db)
        .await?
        .into_iter()
        .map(|a| {
            (
                a.question_id,
                serde_json::from_str(&a.answer_ids).unwrap_or_default(),
            )
        })
        .collect();
    Ok((row, stored))
}

async fn record<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    r: &respondent::Model,
    risk: &Risk,
    outcome: &str,
) -> Result<(), AppError> {
    fetch_row::ActiveModel {
        id: Set(new_id("sfe")),
        respondent_id: Set(r.id.clone()),
        placement_id: Set(r.placement_id.clone()),
        ip: Set(r.last_ip.clone()),
        gps_id: Set(r.gps_id.clone()),
        risk_score: Set(risk.score),
        outcome: Set(outcome.to_owned()),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    let mut a = r.clone().into_active_model();
    a.risk_score = Set(risk.score);
    a.update(db).await?;
    Ok(())
}

/// `POST /getallsurveys-api`.
pub async fn fetch(ctx: &Ctx, app_key: Option<&str>, body: &[u8]) -> Result<Answer, AppError> {
    let Some(p) = (match app_key.filter(|k| !k.is_empty()) {
        Some(k) => placement_of_key(ctx, k).await?,
        None => None,
    }) else {
        return Ok(refusal(
            401,
            "UNAUTHORIZED",
            "X-Service-Api-Key is missing or not an active app key",
            BTreeMap::new(),
        ));
    };
    let now = ctx.now();
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => {
            let f = BTreeMap::from([("body".to_owned(), "must be a JSON object".to_owned())]);
            return Ok(refusal(400, "INVALID_PROFILE", "the body is not JSON", f));
        }
    };
    let profile = match profile::read(&value, now.date_naive()) {
        Ok(p) => p,
        Err(Invalid::Locale(code)) => {
            let f = BTreeMap::from([(
                "CountryLanguageCode".to_owned(),
                format!("{code} is not an active locale"),
            )]);
            return Ok(refusal(
                400,
                "COUNTRY_LANGUAGE_UNSUPPORTED",
                "the locale is not supported",
                f,
            ));
        }
        Err(Invalid::Profile(f)) => {
            return Ok(refusal(
                400,
                "INVALID_PROFILE",
                "required profile fields are missing or invalid",
                f,
            ));
        }
    };
    if profile.app_id != p.id {
        let f = BTreeMap::from([(
            "AppId".to_owned(),
            "is not the placement of this app key".to_owned(),
        )]);
        return Ok(refusal(
            403,
            "FORBIDDEN",
            "the app key belongs to another placement",
            f,
        ));
    }
    if !serves(ctx.config.environment, &p) {
        return Ok(refusal(
            403,
            "FORBIDDEN",
            "production survey fetch needs a released placement",
            BTreeMap::new(),
        ));
    }
    let txn = db::begin(&ctx.db).await?;
    let (r, stored) = upsert_respondent(&txn, now, &p.id, &profile).await?;
    let risk = fraud::score(
        ctx,
        &txn,
        now,
        &r.id,
        profile.ip,
        profile.gps_id.as_deref(),
        profile.locale.country(),
    )
    .await?;
    if risk.blocked() {
        record(&txn, now, &r, &risk, "FRAUD_BLOCKED").await?;
        txn.commit().await?;
        return Ok(refusal(
            403,
            "FRAUD_BLOCKED",
            "the respondent is not eligible",
            BTreeMap::new(),
        ));
    }
    let candidates = survey::Entity::find()
        .filter(survey::Column::Status.eq(SurveyStatus::Live.as_str()))
        .filter(survey::Column::CountryLanguageId.eq(profile.locale.code))
        .all(&txn)
        .await?;
    let facts = Facts::from_profile(&profile, stored, now.date_naive());
    let found = matching::matches(&txn, now, Some(&r.id), &facts, candidates).await?;
    let outcome = if found.is_empty() {
        "NOT_FOUND"
    } else {
        "SUCCESS"
    };
    record(&txn, now, &r, &risk, outcome).await?;
    let slot = reward_slot(&txn, &p.id).await?;
    txn.commit().await?;
    if found.is_empty() {
        return Ok(refusal(
            404,
            "NOT_FOUND",
            "no surveys are available for this respondent now; retry later",
            BTreeMap::new(),
        ));
    }
    let mut items = Vec::with_capacity(found.len());
    for Match { campaign: m, .. } in &found {
        items.push(item(
            ctx,
            now,
            m,
            &r,
            slot.as_ref(),
            risk.needs_verification(),
        )?);
    }
    // Expected earnings per minute: reward × completion rate ÷ length.
    let value = |m: &survey::Model| {
        let loi = m.loi_hundredths.unwrap_or(DEFAULT_LOI.0).max(1);
        let conv = m.conversion_hundredths.unwrap_or(5_000); // 50 %
        m.cpi_micros.unwrap_or(0).saturating_mul(conv) / loi
    };
    let mut order: Vec<usize> = (0..found.len()).collect();
    order.sort_by_key(|i| std::cmp::Reverse(value(&found[*i].campaign)));
    let mut sorted: Vec<Option<SurveyItem>> = items.into_iter().map(Some).collect();
    let data: Vec<SurveyItem> = order
        .into_iter()
        .filter_map(|i| sorted[i].take())
        .take(MAX_ITEMS)
        .collect();
    let mut info = Vec::new();
    if risk.needs_verification() {
        info.push("the respondent passes a short verification on the survey page".to_owned());
    }
    Ok((
        200,
        SurveyEnvelope {
            Errors: Vec::new(),
            Info: info,
            ErrorCode: "SUCCESS".to_owned(),
            Data: data,
            fieldErrors: BTreeMap::new(),
        },
    ))
}

fn item(
    ctx: &Ctx,
    now: DateTime<Utc>,
    m: &survey::Model,
    r: &respondent::Model,
    slot: Option<&ad_slot::Model>,
    verify: bool,
) -> Result<SurveyItem, AppError> {
    let cpi = m.cpi_micros.unwrap_or(0);
    let reward = reward_for(slot, cpi)?;
    let meta: serde_json::Value = serde_json::from_str(&m.metadata).unwrap_or_default();
    let loi = Hundredths(m.loi_hundredths.unwrap_or(DEFAULT_LOI.0));
    // The fetch gives the completion percentage as an integer.
    let incidence = m.conversion_hundredths.map(|c| Hundredths(c).rounded());
    Ok(SurveyItem {
        SurveyNumber: m.id.clone(),
        SurveyUrl: entries::entry_url(ctx, now, &m.id, &r.id, slot.map(|s| s.id.as_str()), verify),
        Reward: number(&reward.display),
        LOI: loi,
        MatchingPercentage: incidence,
        vc_name: reward.currency.clone(),
        Link: format!("s-{}", m.id.trim_start_matches("svc_")),
        ProvidedBy: PROVIDED_BY.to_owned(),
        CPI: number(
            format_micros(reward.usd_micros)
                .trim_end_matches('0')
                .trim_end_matches('.'),
        ),
        Survey: SurveyMeta {
            SurveyName: m.name.clone(),
            BidLengthOfInterview: loi,
            BidIncidence: incidence,
            CountryLanguageCode: m.country_language_id.clone(),
            ResearchCategory: meta
                .get("research_category")
                .and_then(|v| v.as_str())
                .map(str::to_owned),
        },
    })
}
