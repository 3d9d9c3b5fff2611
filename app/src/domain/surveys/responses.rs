//! `downloadresponses`: the caller's survey entries as CSV — transaction, campaign,
//! respondent (the service's respondent id, never the publisher's user id), status,
//! verification, quota, timings, cost and the respondent's profiling answers — for a date
//! range of entry times (default the last 30 days, at most 366 days, at most 50,000 rows).

use std::collections::HashMap;

use chrono::{Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use crate::domain::{Ctx, Principal};
use crate::error::{AppError, FieldErrors};
use crate::model::money::format_micros;
use entity::{
    survey_campaign as survey, survey_entry as entry, survey_respondent as respondent,
    survey_respondent_answer as answer,
};

pub const MAX_ROWS: u64 = 50_000;

/// Body of `downloadresponses` (optional): one campaign or all, and the days (UTC).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ResponsesQuery {
    pub campaign_id: Option<String>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
}

fn csv(field: &str) -> String {
    // Spreadsheet formula injection: the one neutralisation every download uses.
    crate::model::delivery::csv_field(field)
}

/// The CSV text.
pub async fn download(ctx: &Ctx, actor: &Principal, q: ResponsesQuery) -> Result<String, AppError> {
    actor.require_approved_advertiser()?;
    let today = ctx.now().date_naive();
    let to = q.to.unwrap_or(today);
    let from = q.from.unwrap_or(to - Duration::days(29));
    let mut errs = FieldErrors::new();
    if from > to {
        errs.add("from", "must not be after to");
    } else if (to - from).num_days() > 365 {
        errs.add("to", "the range is at most 366 days");
    }
    errs.finish()?;
    let mut campaigns =
        survey::Entity::find().filter(survey::Column::AdvertiserId.eq(actor.account_id.clone()));
    if let Some(id) = q.campaign_id.as_deref().filter(|s| !s.is_empty()) {
        campaigns = campaigns.filter(survey::Column::Id.eq(id.to_owned()));
    }
    let campaigns: HashMap<String, survey::Model> = campaigns
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|m| (m.id.clone(), m))
        .collect();
    if let Some(id) = q.campaign_id.as_deref().filter(|s| !s.is_empty())
        && !campaigns.contains_key(id)
    {
        return Err(AppError::not_found("survey campaign"));
    }
    let start = Utc.from_utc_datetime(&from.and_time(NaiveTime::MIN));
    let end = Utc.from_utc_datetime(&(to + Duration::days(1)).and_time(NaiveTime::MIN));
    let mut rows: Vec<entry::Model> = Vec::new();
    let ids: Vec<String> = campaigns.keys().cloned().collect();
    for chunk in ids.chunks(500) {
        rows.extend(
            entry::Entity::find()
                .filter(entry::Column::CampaignId.is_in(chunk.to_vec()))
                .filter(entry::Column::CreatedAt.gte(start))
                .filter(entry::Column::CreatedAt.lt(end))
                .order_by_asc(entry::Column::CreatedAt)
                .limit(MAX_ROWS)
                .all(&ctx.db)
                .await?,
        );
    }
    rows.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    rows.truncate(MAX_ROWS as usize);
    let rids: Vec<String> = {
        let mut v: Vec<String> = rows.iter().map(|e| e.respondent_id.clone()).collect();
        v.sort();
        v.dedup();
        v
    };
    let mut locales: HashMap<String, String> = HashMap::new();
    let mut answers: HashMap<String, Vec<String>> = HashMap::new();
    for chunk in rids.chunks(500) {
        for r in respondent::Entity::find()
            .filter(respondent::Column::Id.is_in(chunk.to_vec()))
            .all(&ctx.db)
            .await?
        {
            locales.insert(r.id, r.locale_code);
        }
        for a in answer::Entity::find()
            .filter(answer::Column::RespondentId.is_in(chunk.to_vec()))
            .order_by_asc(answer::Column::QuestionId)
            .all(&ctx.db)
            .await?
        {
            let ids: Vec<String> = serde_json::from_str(&a.answer_ids).unwrap_or_default();
            answers.entry(a.respondent_id).or_default().push(format!(
                "{}={}",
                a.question_id,
                ids.join("|")
            ));
        }
    }
    let mut out = String::from(
        "transaction_id,campaign_id,campaign_name,respondent_id,locale,status,verification,quota_id,entered_at,finished_at,duration_seconds,cost_usd,profile\n",
    );
    for e in rows {
        let name = campaigns
            .get(&e.campaign_id)
            .map(|m| m.name.as_str())
            .unwrap_or_default();
        let paid = e.conversion_id.is_some();
        let fields = [
            e.id.clone(),
            e.campaign_id.clone(),
            name.to_owned(),
            e.respondent_id.clone(),
            locales.get(&e.respondent_id).cloned().unwrap_or_default(),
            e.status.as_str().to_owned(),
            e.verification.clone(),
            e.quota_id.clone().unwrap_or_default(),
            e.created_at.to_rfc3339(),
            e.finished_at.map(|f| f.to_rfc3339()).unwrap_or_default(),
            e.finished_at
                .map(|f| (f - e.created_at).num_seconds().to_string())
                .unwrap_or_default(),
            if paid {
                format_micros(e.cpi_micros)
            } else {
                format_micros(0)
            },
            answers
                .get(&e.respondent_id)
                .map(|a| a.join(";"))
                .unwrap_or_default(),
        ];
        out.push_str(&fields.iter().map(|f| csv(f)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    Ok(out)
}
