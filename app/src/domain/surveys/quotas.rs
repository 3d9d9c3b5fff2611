//! Quotas of a survey campaign and their qualifications.
//!
//! Status policy (also in docs/surveys.md): targeting — quotas, qualifications and custom
//! questions — changes freely while the campaign is DRAFT; a change while it is
//! PENDINGAPPROVAL withdraws it to DRAFT and moves its revision on (the administrator
//! approves what they reviewed). Once LIVE or PAUSED only a quota's `num_respondents` may
//! change (never below its completes), so a running study can be throttled or widened
//! without changing who qualifies; CLOSED campaigns are read-only.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, Set,
};

use super::campaigns::{SUBJECT, owned};
use super::reference;
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, audit, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::survey::campaign::SurveyStatus;
use crate::model::survey::targeting::*;
use crate::model::validate;
use entity::{survey_campaign as survey, survey_qualification as qual, survey_quota as quota};

/// At most this many quotas per campaign and qualifications per quota.
pub const MAX_QUOTAS: usize = 50;
pub const MAX_QUALIFICATIONS: usize = 20;

/// What a change may touch given the campaign's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Who qualifies and what is asked (DRAFT, PENDINGAPPROVAL).
    Targeting,
    /// Only quota sizes (LIVE, PAUSED too).
    QuotaSize,
}

/// Loads an owned campaign for a change of `scope`; a targeting change of a pending
/// campaign withdraws it to DRAFT and moves its revision on.
pub async fn for_change<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    campaign_id: &str,
    scope: Scope,
    now: DateTime<Utc>,
) -> Result<survey::Model, AppError> {
    let m = owned(db, actor, campaign_id).await?;
    let status = SurveyStatus::parse(&m.status).unwrap_or(SurveyStatus::Draft);
    let allowed = match status {
        SurveyStatus::Draft | SurveyStatus::PendingApproval => true,
        SurveyStatus::Live | SurveyStatus::Paused => scope == Scope::QuotaSize,
        SurveyStatus::Closed => false,
    };
    if !allowed {
        return Err(AppError::conflict(format!(
            "the targeting of a {} survey campaign cannot change (only quota sizes while LIVE or PAUSED; clone it for a new study)",
            status.as_str()
        ))
        .with_code("campaign_not_editable"));
    }
    if matches!(status, SurveyStatus::Draft | SurveyStatus::PendingApproval) {
        let mut a = m.clone().into_active_model();
        a.revision = Set(m.revision + 1);
        a.status = Set(SurveyStatus::Draft.as_str().to_owned());
        a.updated_at = Set(now);
        return Ok(a.update(db).await?);
    }
    Ok(m)
}

fn criteria(m: &qual::Model) -> Criteria {
    serde_json::from_str(&m.criteria).unwrap_or_default()
}

pub fn qualification_view(m: &qual::Model) -> Qualification {
    let c = criteria(m);
    Qualification {
        _id: m.id.clone(),
        campaign_id: m.campaign_id.clone(),
        quota_id: m.quota_id.clone(),
        question_id: m.question_id.clone(),
        answer_ids: c.answer_ids,
        ranges: c.ranges,
        values: c.values,
        created_at: m.created_at,
        updated_at: m.updated_at,
    }
}

fn quota_view(m: &quota::Model, quals: &[qual::Model]) -> Quota {
    Quota {
        _id: m.id.clone(),
        campaign_id: m.campaign_id.clone(),
        name: m.name.clone(),
        num_respondents: m.num_respondents,
        completes: m.completes,
        qualifications: quals
            .iter()
            .filter(|q| q.quota_id == m.id)
            .map(qualification_view)
            .collect(),
        created_at: m.created_at,
        updated_at: m.updated_at,
    }
}

async fn quota_of<C: ConnectionTrait>(
    db: &C,
    campaign_id: &str,
    quota_id: &str,
) -> Result<quota::Model, AppError> {
    quota::Entity::find_by_id(quota_id.to_owned())
        .filter(quota::Column::CampaignId.eq(campaign_id.to_owned()))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("quota"))
}

async fn quals_of<C: ConnectionTrait>(
    db: &C,
    quota_ids: Vec<String>,
) -> Result<Vec<qual::Model>, AppError> {
    Ok(qual::Entity::find()
        .filter(qual::Column::QuotaId.is_in(quota_ids))
        .order_by_asc(qual::Column::CreatedAt)
        .order_by_asc(qual::Column::Id)
        .all(db)
        .await?)
}

async fn audit_change<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    actor: &Principal,
    action: &str,
    campaign_id: &str,
    detail: serde_json::Value,
) -> Result<(), AppError> {
    audit::record(
        db,
        now,
        Some(&actor.account_id),
        action,
        (SUBJECT, campaign_id),
        detail,
    )
    .await
}

fn validate_quota(input: &QuotaInput, creating: bool) -> Result<(), AppError> {
    let mut errs = FieldErrors::new();
    match &input.name {
        Some(n) => {
            errs.check("name", validate::display_name(n, 120));
        }
        None if creating => errs.add("name", "is required"),
        None => {}
    }
    match input.num_respondents {
        Some(n) if !(1..=10_000_000).contains(&n) => {
            errs.add("num_respondents", "must be between 1 and 10000000")
        }
        None if creating => errs.add("num_respondents", "is required"),
        _ => {}
    }
    errs.finish()
}

/// `GET /{campaignId}/getcampaignquota`.
pub async fn list(ctx: &Ctx, actor: &Principal, campaign_id: &str) -> Result<QuotaList, AppError> {
    let m = owned(&ctx.db, actor, campaign_id).await?;
    let quotas = quota::Entity::find()
        .filter(quota::Column::CampaignId.eq(m.id.clone()))
        .order_by_asc(quota::Column::CreatedAt)
        .order_by_asc(quota::Column::Id)
        .all(&ctx.db)
        .await?;
    let quals = quals_of(&ctx.db, quotas.iter().map(|q| q.id.clone()).collect()).await?;
    let items: Vec<Quota> = quotas.iter().map(|q| quota_view(q, &quals)).collect();
    Ok(QuotaList {
        count: items.len(),
        campaign_quotas: items,
    })
}

/// `POST /{campaignId}/campaignsquota`.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    input: QuotaInput,
) -> Result<QuotaResponse, AppError> {
    validate_quota(&input, true)?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = for_change(&txn, actor, campaign_id, Scope::Targeting, now).await?;
    let existing = quota::Entity::find()
        .filter(quota::Column::CampaignId.eq(m.id.clone()))
        .all(&txn)
        .await?;
    if existing.len() >= MAX_QUOTAS {
        return Err(
            AppError::conflict(format!("a campaign has at most {MAX_QUOTAS} quotas"))
                .with_code("limit_reached"),
        );
    }
    let row = quota::ActiveModel {
        id: Set(new_id("sqt")),
        campaign_id: Set(m.id.clone()),
        name: Set(input.name.unwrap_or_default().trim().to_owned()),
        num_respondents: Set(input.num_respondents.unwrap_or_default()),
        completes: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    audit_change(
        &txn,
        now,
        actor,
        "survey_quota.created",
        &m.id,
        serde_json::json!({"quotaId": row.id}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(QuotaResponse {
        campaign_quota: quota_view(&row, &[]),
    })
}

/// `GET /{campaignId}/campaignsquota/{quotaId}`.
pub async fn get(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
) -> Result<QuotaResponse, AppError> {
    let m = owned(&ctx.db, actor, campaign_id).await?;
    let q = quota_of(&ctx.db, &m.id, quota_id).await?;
    let quals = quals_of(&ctx.db, vec![q.id.clone()]).await?;
    Ok(QuotaResponse {
        campaign_quota: quota_view(&q, &quals),
    })
}

/// `PUT /{campaignId}/campaignsquota/{quotaId}`: a rename is a targeting change; a size
/// change is allowed while LIVE or PAUSED too.
pub async fn update(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
    input: QuotaInput,
) -> Result<QuotaResponse, AppError> {
    validate_quota(&input, false)?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let scope = if input.name.is_some() {
        Scope::Targeting
    } else {
        Scope::QuotaSize
    };
    let m = for_change(&txn, actor, campaign_id, scope, now).await?;
    let q = quota_of(&txn, &m.id, quota_id).await?;
    if let Some(n) = input.num_respondents
        && n < q.completes
    {
        return Err(AppError::field(
            "num_respondents",
            format!(
                "must not be below the {} completes already counted",
                q.completes
            ),
        ));
    }
    let mut a = q.clone().into_active_model();
    if let Some(n) = &input.name {
        a.name = Set(n.trim().to_owned());
    }
    if let Some(n) = input.num_respondents {
        a.num_respondents = Set(n);
    }
    a.updated_at = Set(now);
    let q = a.update(&txn).await?;
    audit_change(
        &txn,
        now,
        actor,
        "survey_quota.updated",
        &m.id,
        serde_json::json!({"quotaId": q.id}),
    )
    .await?;
    let quals = quals_of(&txn, vec![q.id.clone()]).await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(QuotaResponse {
        campaign_quota: quota_view(&q, &quals),
    })
}

/// `DELETE /{campaignId}/campaignsquota/{quotaId}` (its qualifications go with it).
pub async fn delete(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
) -> Result<crate::model::survey::campaign::SurveyMessage, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = for_change(&txn, actor, campaign_id, Scope::Targeting, now).await?;
    let q = quota_of(&txn, &m.id, quota_id).await?;
    qual::Entity::delete_many()
        .filter(qual::Column::QuotaId.eq(q.id.clone()))
        .exec(&txn)
        .await?;
    quota::Entity::delete_by_id(q.id.clone()).exec(&txn).await?;
    audit_change(
        &txn,
        now,
        actor,
        "survey_quota.deleted",
        &m.id,
        serde_json::json!({"quotaId": q.id}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(crate::model::survey::campaign::SurveyMessage {
        message: "Quota deleted".to_owned(),
    })
}

/// Copies quotas with their qualifications into `target` (new ids, no completes).
pub async fn copy_quota<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    source: &quota::Model,
    target_campaign: &str,
    name: String,
) -> Result<(quota::Model, Vec<qual::Model>), AppError> {
    let row = quota::ActiveModel {
        id: Set(new_id("sqt")),
        campaign_id: Set(target_campaign.to_owned()),
        name: Set(name),
        num_respondents: Set(source.num_respondents),
        completes: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await?;
    let mut quals = Vec::new();
    for q in quals_of(db, vec![source.id.clone()]).await? {
        quals.push(
            qual::ActiveModel {
                id: Set(new_id("sql")),
                campaign_id: Set(target_campaign.to_owned()),
                quota_id: Set(row.id.clone()),
                question_id: Set(q.question_id.clone()),
                criteria: Set(q.criteria.clone()),
                created_at: Set(now),
                updated_at: Set(now),
            }
            .insert(db)
            .await?,
        );
    }
    Ok((row, quals))
}

/// `POST /{campaignId}/clonecampaignsquota` `{quotaId}`: a copy of one of the campaign's
/// quotas, qualifications included.
pub async fn clone(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    input: QuotaCloneInput,
) -> Result<QuotaResponse, AppError> {
    let Some(source_id) = input.quota_id.filter(|s| !s.is_empty()) else {
        return Err(AppError::field("quotaId", "is required"));
    };
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = for_change(&txn, actor, campaign_id, Scope::Targeting, now).await?;
    let source = quota_of(&txn, &m.id, &source_id).await?;
    let name: String = format!("Copy of {}", source.name)
        .chars()
        .take(120)
        .collect();
    let (row, quals) = copy_quota(&txn, now, &source, &m.id, name).await?;
    audit_change(
        &txn,
        now,
        actor,
        "survey_quota.cloned",
        &m.id,
        serde_json::json!({"quotaId": row.id, "from": source.id}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(QuotaResponse {
        campaign_quota: quota_view(&row, &quals),
    })
}

/// Validates a qualification against the catalog and the campaign's locale.
fn validate_qualification(
    input: &QualificationInput,
    current: Option<&qual::Model>,
    locale_code: &str,
) -> Result<(String, Criteria), AppError> {
    let mut errs = FieldErrors::new();
    let question_id = input
        .question_id
        .clone()
        .or_else(|| current.map(|c| c.question_id.clone()))
        .unwrap_or_default();
    let Some(q) = reference::question(&question_id) else {
        errs.add(
            "question_id",
            "must be a question id of getProfilingQuestionsForTargeting",
        );
        return Err(errs.finish().unwrap_err());
    };
    let country = reference::by_code(locale_code)
        .map(|l| l.country())
        .unwrap_or_default();
    if !q.asked_in(country) {
        errs.add(
            "question_id",
            format!("{} is not asked in {locale_code}", q.id),
        );
    }
    let mut c = current.map(|c| criteria(c)).unwrap_or_default();
    if input
        .question_id
        .as_deref()
        .is_some_and(|id| Some(id) != current.map(|c| c.question_id.as_str()))
    {
        c = Criteria::default();
    }
    if let Some(ids) = &input.answer_ids {
        c.answer_ids = ids.iter().map(|s| s.trim().to_owned()).collect();
    }
    if let Some(r) = &input.ranges {
        c.ranges = r.clone();
    }
    if let Some(v) = &input.values {
        c.values = v.iter().map(|s| s.trim().to_ascii_uppercase()).collect();
    }
    match q.kind {
        "SINGLE" | "MULTI" => {
            if c.answer_ids.is_empty() || c.answer_ids.len() > 100 {
                errs.add("answer_ids", "must list 1-100 answer ids");
            }
            for (i, a) in c.answer_ids.iter().enumerate() {
                if !q.has_answer(a) {
                    errs.add(
                        &format!("answer_ids[{i}]"),
                        format!("is not an answer of {}", q.id),
                    );
                }
            }
            c.ranges.clear();
            c.values.clear();
        }
        "NUMERIC" => {
            if c.ranges.is_empty() || c.ranges.len() > 20 {
                errs.add("ranges", "must list 1-20 ranges");
            }
            for (i, r) in c.ranges.iter().enumerate() {
                if r.min > r.max || r.min < 0 || r.max > 150 {
                    errs.add(&format!("ranges[{i}]"), "must have 0 <= min <= max <= 150");
                }
            }
            c.answer_ids.clear();
            c.values.clear();
        }
        _ => {
            if c.values.is_empty() || c.values.len() > 10_000 {
                errs.add("values", "must list 1-10000 postal codes or prefixes");
            }
            for (i, v) in c.values.iter().enumerate() {
                if v.is_empty()
                    || v.len() > 16
                    || !v
                        .chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == ' ')
                {
                    errs.add(
                        &format!("values[{i}]"),
                        "must be 1-16 letters, digits, spaces or hyphens",
                    );
                }
            }
            c.answer_ids.clear();
            c.ranges.clear();
        }
    }
    errs.finish()?;
    Ok((q.id.to_owned(), c))
}

async fn qualification_of<C: ConnectionTrait>(
    db: &C,
    quota_id: &str,
    id: &str,
) -> Result<qual::Model, AppError> {
    qual::Entity::find_by_id(id.to_owned())
        .filter(qual::Column::QuotaId.eq(quota_id.to_owned()))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("qualification"))
}

/// `GET …/getcampaignsqualifications`.
pub async fn list_qualifications(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
) -> Result<QualificationList, AppError> {
    let m = owned(&ctx.db, actor, campaign_id).await?;
    let q = quota_of(&ctx.db, &m.id, quota_id).await?;
    let items: Vec<Qualification> = quals_of(&ctx.db, vec![q.id])
        .await?
        .iter()
        .map(qualification_view)
        .collect();
    Ok(QualificationList {
        count: items.len(),
        campaign_qualifications: items,
    })
}

/// `POST …/campaignsqualification`.
pub async fn create_qualification(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
    input: QualificationInput,
) -> Result<QualificationResponse, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = for_change(&txn, actor, campaign_id, Scope::Targeting, now).await?;
    let q = quota_of(&txn, &m.id, quota_id).await?;
    let (question_id, c) = validate_qualification(&input, None, &m.country_language_id)?;
    let existing = quals_of(&txn, vec![q.id.clone()]).await?;
    if existing.iter().any(|e| e.question_id == question_id) {
        return Err(AppError::conflict(format!(
            "the quota already qualifies on {question_id}; update that qualification"
        ))
        .with_code("duplicate_qualification"));
    }
    if existing.len() >= MAX_QUALIFICATIONS {
        return Err(AppError::conflict(format!(
            "a quota has at most {MAX_QUALIFICATIONS} qualifications"
        ))
        .with_code("limit_reached"));
    }
    let row = qual::ActiveModel {
        id: Set(new_id("sql")),
        campaign_id: Set(m.id.clone()),
        quota_id: Set(q.id.clone()),
        question_id: Set(question_id),
        criteria: Set(serde_json::to_string(&c).unwrap_or_else(|_| "{}".into())),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    audit_change(
        &txn,
        now,
        actor,
        "survey_qualification.created",
        &m.id,
        serde_json::json!({"qualificationId": row.id}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(QualificationResponse {
        campaign_qualification: qualification_view(&row),
    })
}

/// `GET …/campaignsqualification/{id}`.
pub async fn get_qualification(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
    id: &str,
) -> Result<QualificationResponse, AppError> {
    let m = owned(&ctx.db, actor, campaign_id).await?;
    let q = quota_of(&ctx.db, &m.id, quota_id).await?;
    Ok(QualificationResponse {
        campaign_qualification: qualification_view(&qualification_of(&ctx.db, &q.id, id).await?),
    })
}

/// `PUT …/campaignsqualification/{id}`: the fields it names (a new question resets the rest).
pub async fn update_qualification(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
    id: &str,
    input: QualificationInput,
) -> Result<QualificationResponse, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = for_change(&txn, actor, campaign_id, Scope::Targeting, now).await?;
    let q = quota_of(&txn, &m.id, quota_id).await?;
    let current = qualification_of(&txn, &q.id, id).await?;
    let (question_id, c) = validate_qualification(&input, Some(&current), &m.country_language_id)?;
    if question_id != current.question_id
        && quals_of(&txn, vec![q.id.clone()])
            .await?
            .iter()
            .any(|e| e.question_id == question_id)
    {
        return Err(
            AppError::conflict(format!("the quota already qualifies on {question_id}"))
                .with_code("duplicate_qualification"),
        );
    }
    let mut a = current.into_active_model();
    a.question_id = Set(question_id);
    a.criteria = Set(serde_json::to_string(&c).unwrap_or_else(|_| "{}".into()));
    a.updated_at = Set(now);
    let row = a.update(&txn).await?;
    audit_change(
        &txn,
        now,
        actor,
        "survey_qualification.updated",
        &m.id,
        serde_json::json!({"qualificationId": row.id}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(QualificationResponse {
        campaign_qualification: qualification_view(&row),
    })
}

/// `DELETE …/campaignsqualification/{id}`.
pub async fn delete_qualification(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
    id: &str,
) -> Result<crate::model::survey::campaign::SurveyMessage, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = for_change(&txn, actor, campaign_id, Scope::Targeting, now).await?;
    let q = quota_of(&txn, &m.id, quota_id).await?;
    let row = qualification_of(&txn, &q.id, id).await?;
    qual::Entity::delete_by_id(row.id.clone())
        .exec(&txn)
        .await?;
    audit_change(
        &txn,
        now,
        actor,
        "survey_qualification.deleted",
        &m.id,
        serde_json::json!({"qualificationId": row.id}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(crate::model::survey::campaign::SurveyMessage {
        message: "Qualification deleted".to_owned(),
    })
}
