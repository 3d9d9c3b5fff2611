//! The publisher survey fetch (`POST /getallsurveys-api`): the app key names the placement,
//! the body is checked field by field, the fetch is scored for fraud, and the surveys that
//! fit are returned ranked by expected earnings per minute, each with a signed hosted entry
//! link. It runs on memory (issue 31): the placement from the delivery configuration, the
//! surveys from the live snapshot (`live`), the respondent and the fraud score's history from
//! `respondents`; the respondent's profile, answers and the fetch record are handed to the
//! batch writer (`respondents::writer`) and committed within 20 ms of the answer.
//!
//! HTTP statuses (the envelope's `ErrorCode` is always present): SUCCESS 200;
//! INVALID_PROFILE and COUNTRY_LANGUAGE_UNSUPPORTED 400; UNAUTHORIZED 401 (missing or
//! unknown app key); FORBIDDEN 403 (AppId is not the key's placement, or a production
//! placement that is not released); FRAUD_BLOCKED 403; NOT_FOUND 404 (nothing fits now;
//! retry later).

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::entries::link::entry_url;
use super::fraud;
use super::live::{Fit, snapshot::DEFAULT_LOI};
use super::matching::Facts;
use super::profile::{self, Invalid, Profile};
use super::respondents::writer::FetchWrite;
use crate::domain::billing::share::publisher_share;
use crate::domain::publisher::delivery_config::DeliveryConfig;
use crate::domain::publisher::placements::serves_survey_fetch;
use crate::domain::publisher::slots;
use crate::domain::{Ctx, crypto};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::money::format_micros;
use crate::model::publisher::RewardPreview;
use crate::model::publisher::rules::format_minor;
use crate::model::survey::campaign::Hundredths;
use crate::model::survey::fetch::*;
use entity::values::FetchOutcome;
use entity::{ad_slot, app_key};

/// The provider label of this API (opaque to publishers).
pub const PROVIDED_BY: &str = "MARKETPLACE-SURVEYS";
/// At most this many surveys per answer.
pub const MAX_ITEMS: usize = 50;
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

/// The placement of an active app key, with its delivery configuration (both from memory
/// once read: keys by hash until `Change::AppKeys`, the configuration until
/// `Change::DeliveryConfig`). Archived placements have none.
async fn placement_of_key(ctx: &Ctx, key: &str) -> Result<Option<Arc<DeliveryConfig>>, AppError> {
    let hash = crypto::sha256_hex(key);
    let placement_id = ctx
        .surveys
        .app_keys
        .get_or_load(&hash, || async {
            Ok(app_key::Entity::find()
                .filter(app_key::Column::KeyHash.eq(hash.clone()))
                .filter(app_key::Column::RevokedAt.is_null())
                .one(&ctx.db)
                .await?
                .map(|k| k.placement_id))
        })
        .await?;
    let Some(id) = placement_id else {
        return Ok(None);
    };
    Ok(ctx
        .delivery_configs
        .get(&ctx.db, ctx.now(), &id)
        .await?
        .filter(|c| c.placement.archived_at.is_none()))
}

/// Which of a placement's slots shows rewards: its first active slot, else its first ready
/// one, else any (`slots` in creation order).
fn rank_reward_slot<'a>(
    slots: impl IntoIterator<Item = &'a ad_slot::Model>,
) -> Option<&'a ad_slot::Model> {
    let rank = |s: &&ad_slot::Model| match s.state.as_str() {
        "ACTIVE" => 0,
        "READY" => 1,
        _ => 2,
    };
    slots.into_iter().min_by_key(rank)
}

/// The slot whose currency rewards are shown in (see [`rank_reward_slot`]).
pub async fn reward_slot<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
) -> Result<Option<ad_slot::Model>, AppError> {
    let slots = ad_slot::Entity::find()
        .filter(ad_slot::Column::PlacementId.eq(placement_id.to_owned()))
        .order_by_asc(ad_slot::Column::CreatedAt)
        .all(db)
        .await?;
    Ok(rank_reward_slot(&slots).cloned())
}

/// The respondent's reward for a survey paying `cpi_micros`.
pub fn reward_for(
    slot: Option<&ad_slot::Model>,
    cpi_micros: Micros,
) -> Result<RewardPreview, AppError> {
    let earnings = publisher_share(cpi_micros);
    match slot {
        Some(s) => slots::preview(&slots::currency_of(s), earnings),
        None => Ok(RewardPreview {
            usd_micros: earnings,
            minor_units: earnings.get() / 10_000,
            currency: "USD".to_owned(),
            decimals: 2,
            display: format_minor(earnings.get() / 10_000, 2),
            meets_minimum_payout: true,
        }),
    }
}

fn number(text: &str) -> serde_json::Number {
    text.parse().unwrap_or_else(|_| serde_json::Number::from(0))
}

/// `POST /getallsurveys-api`.
pub async fn fetch(ctx: &Ctx, app_key: Option<&str>, body: &[u8]) -> Result<Answer, AppError> {
    let Some(config) = (match app_key.filter(|k| !k.is_empty()) {
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
    let p = &config.placement;
    let now = ctx.now();
    let profile = match read_body(body, now) {
        Ok(profile) => profile,
        Err(refused) => return Ok(*refused),
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
    if !serves_survey_fetch(ctx.config.environment, p) {
        return Ok(refusal(
            403,
            "FORBIDDEN",
            "production survey fetch needs a released placement",
            BTreeMap::new(),
        ));
    }
    let seen = ctx
        .surveys
        .respondents
        .sight(ctx, &p.id, &profile, now)
        .await?;
    let (known, history) = seen.history(&profile, now);
    let risk = fraud::score(ctx, profile.ip, profile.locale.country(), &history);
    let snapshot = if risk.blocked() {
        None
    } else {
        Some(ctx.surveys.live.current(&ctx.db, now).await?)
    };
    let facts = Facts {
        today: Some(now.date_naive()),
        date_of_birth: known.date_of_birth,
        gender: known.gender.clone(),
        zip: known.zip.clone(),
        device: profile.device.clone(),
        answers: known.answers,
    };
    let fits = snapshot
        .as_ref()
        .map(|s| s.fits(profile.locale.code, &facts, &known.entered, MAX_ITEMS))
        .unwrap_or_default();
    let outcome = if risk.blocked() {
        FetchOutcome::FraudBlocked
    } else if fits.is_empty() {
        FetchOutcome::NotFound
    } else {
        FetchOutcome::Success
    };
    seen.record(&known.id, now);
    ctx.surveys
        .writes
        .submit(
            &ctx.db,
            write_of(&p.id, &known.id, &profile, risk.score, outcome, now),
        )
        .await?;
    if risk.blocked() {
        return Ok(refusal(
            403,
            "FRAUD_BLOCKED",
            "the respondent is not eligible",
            BTreeMap::new(),
        ));
    }
    if fits.is_empty() {
        return Ok(refusal(
            404,
            "NOT_FOUND",
            "no surveys are available for this respondent now; retry later",
            BTreeMap::new(),
        ));
    }
    let slot = rank_reward_slot(&config.slots);
    let verify = risk.needs_verification();
    let data = fits
        .iter()
        .map(|fit| item(ctx, now, fit, &known.id, slot, verify))
        .collect::<Result<Vec<_>, _>>()?;
    let mut info = Vec::new();
    if verify {
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

/// The checked body, or the refusal that names what is wrong.
fn read_body(body: &[u8], now: DateTime<Utc>) -> Result<Profile, Box<Answer>> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|_| {
        let f = BTreeMap::from([("body".to_owned(), "must be a JSON object".to_owned())]);
        Box::new(refusal(400, "INVALID_PROFILE", "the body is not JSON", f))
    })?;
    profile::read(&value, now.date_naive()).map_err(|e| {
        Box::new(match e {
            Invalid::Locale(code) => {
                let f = BTreeMap::from([(
                    "CountryLanguageCode".to_owned(),
                    format!("{code} is not an active locale"),
                )]);
                refusal(
                    400,
                    "COUNTRY_LANGUAGE_UNSUPPORTED",
                    "the locale is not supported",
                    f,
                )
            }
            Invalid::Profile(f) => refusal(
                400,
                "INVALID_PROFILE",
                "required profile fields are missing or invalid",
                f,
            ),
        })
    })
}

/// What the writer stores for this fetch: the fields the fetch gave (omitted ones keep the
/// stored values) and the fetch record.
fn write_of(
    placement_id: &str,
    respondent_id: &str,
    p: &Profile,
    risk_score: i32,
    outcome: FetchOutcome,
    now: DateTime<Utc>,
) -> FetchWrite {
    FetchWrite {
        respondent_id: respondent_id.to_owned(),
        placement_id: placement_id.to_owned(),
        external_user_id: p.user_id.clone(),
        locale_code: p.locale.code.to_owned(),
        date_of_birth: p.date_of_birth,
        gender: p.gender.map(str::to_owned),
        zip: p.zip.clone(),
        gps_id: p.gps_id.clone(),
        city: p.city.clone(),
        ip: p.ip.to_string(),
        risk_score,
        outcome,
        at: now,
        answers: p.answers.clone(),
    }
}

fn item(
    ctx: &Ctx,
    now: DateTime<Utc>,
    fit: &Fit<'_>,
    respondent_id: &str,
    slot: Option<&ad_slot::Model>,
    verify: bool,
) -> Result<SurveyItem, AppError> {
    let m = &fit.survey.campaign;
    let cpi = m.cpi_micros.unwrap_or(0);
    let reward = reward_for(slot, Micros(cpi))?;
    let loi = Hundredths(m.loi_hundredths.unwrap_or(DEFAULT_LOI.0));
    // The fetch gives the completion percentage as an integer.
    let incidence = m.conversion_hundredths.map(|c| Hundredths(c).rounded());
    Ok(SurveyItem {
        SurveyNumber: m.id.clone(),
        SurveyUrl: entry_url(
            ctx,
            now,
            &m.id,
            respondent_id,
            slot.map(|s| s.id.as_str()),
            verify,
        ),
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
            ResearchCategory: fit.survey.research_category.clone(),
        },
    })
}
