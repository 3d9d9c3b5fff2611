//! Quotas of a survey campaign and their qualifications.
//!
//! Status policy (also in docs/surveys.md): targeting — quotas, qualifications and custom
//! questions — changes freely while the campaign is DRAFT; a change while it is
//! PENDINGAPPROVAL withdraws it to DRAFT and moves its revision on (the administrator
//! approves what they reviewed). Once LIVE or PAUSED only a quota's `num_respondents` may
//! change (never below its completes), so a running study can be throttled or widened
//! without changing who qualifies; CLOSED campaigns are read-only.

mod access;
mod qualifications;

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, Set,
};

use super::campaigns::owned;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::survey::targeting::*;
use crate::model::validate;
use entity::{survey_qualification as qual, survey_quota as quota};

use access::{Edit, quota_of};
pub use access::{Scope, for_change};
use qualifications::quals_of;
pub use qualifications::{
    MAX_QUALIFICATIONS, create_qualification, criteria_from_text, delete_qualification,
    get_qualification, list_qualifications, qualification_view, update_qualification,
    update_qualification_text,
};

/// At most this many quotas per campaign.
pub const MAX_QUOTAS: usize = 50;

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
    let detail = serde_json::json!({"quotaId": row.id});
    Edit::new(actor, &m.id, now)
        .commit(ctx, txn, "survey_quota.created", detail)
        .await?;
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
    let quals = quals_of(&txn, vec![q.id.clone()]).await?;
    let detail = serde_json::json!({"quotaId": q.id});
    Edit::new(actor, &m.id, now)
        .commit(ctx, txn, "survey_quota.updated", detail)
        .await?;
    Ok(QuotaResponse {
        campaign_quota: quota_view(&q, &quals),
    })
}

/// The dashboard's quota form, which sends every field: only what differs from the stored
/// quota is applied, so an unchanged name on a LIVE campaign is not refused as a rename
/// while its size changes. Nothing changed, nothing written.
pub async fn update_changed(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
    form: QuotaInput,
) -> Result<(), AppError> {
    let current = get(ctx, actor, campaign_id, quota_id).await?.campaign_quota;
    let input = QuotaInput {
        name: form.name.filter(|n| n.trim() != current.name),
        num_respondents: form
            .num_respondents
            .filter(|n| *n != current.num_respondents),
    };
    if input.name.is_none() && input.num_respondents.is_none() {
        return Ok(());
    }
    update(ctx, actor, campaign_id, quota_id, input)
        .await
        .map(|_| ())
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
    let detail = serde_json::json!({"quotaId": q.id});
    Edit::new(actor, &m.id, now)
        .commit(ctx, txn, "survey_quota.deleted", detail)
        .await?;
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
    let detail = serde_json::json!({"quotaId": row.id, "from": source.id});
    Edit::new(actor, &m.id, now)
        .commit(ctx, txn, "survey_quota.cloned", detail)
        .await?;
    Ok(QuotaResponse {
        campaign_quota: quota_view(&row, &quals),
    })
}
