//! Qualifications of a quota: which profiling answers, ranges or postal codes it admits,
//! checked against the catalog and the campaign's locale. Kept apart from quota sizes
//! because only targeting (never a live campaign's size) depends on these rules.

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, Set,
};

use super::access::{Edit, Scope, for_change, quota_of};
use crate::domain::surveys::campaigns::owned;
use crate::domain::surveys::reference;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::survey::targeting::*;
use entity::survey_qualification as qual;

/// At most this many qualifications per quota.
pub const MAX_QUALIFICATIONS: usize = 20;

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

pub(super) async fn quals_of<C: ConnectionTrait>(
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
        QuestionKind::Single | QuestionKind::Multi => {
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
        QuestionKind::Numeric => {
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
        QuestionKind::Text => {
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
    let detail = serde_json::json!({"qualificationId": row.id});
    Edit::new(actor, &m.id, now)
        .commit(ctx, txn, "survey_qualification.created", detail)
        .await?;
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

/// What a qualification accepts written as the dashboard's one text field: answer ids
/// (`1, 2`), ranges (`18-34, 55-64`) or postal-code prefixes, read by the kind of the
/// catalog question `question_id` (separated by commas or lines).
pub fn criteria_from_text(question_id: &str, text: &str) -> Result<QualificationInput, AppError> {
    let parts: Vec<String> = text
        .split([',', '\n'])
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let kind = reference::question(question_id)
        .map(|q| q.kind)
        .unwrap_or(QuestionKind::Single);
    let mut input = QualificationInput {
        question_id: Some(question_id.to_owned()),
        ..Default::default()
    };
    match kind {
        QuestionKind::Numeric => {
            let mut ranges = Vec::new();
            for (i, r) in parts.iter().enumerate() {
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                match (a.trim().parse(), b.trim().parse()) {
                    (Ok(min), Ok(max)) => ranges.push(NumericRange { min, max }),
                    _ => {
                        return Err(AppError::field(
                            &format!("ranges[{i}]"),
                            "must be a range like 18-34",
                        ));
                    }
                }
            }
            input.ranges = Some(ranges);
        }
        QuestionKind::Text => input.values = Some(parts),
        QuestionKind::Single | QuestionKind::Multi => input.answer_ids = Some(parts),
    }
    Ok(input)
}

/// The dashboard's change of what a qualification accepts: the text is read by the kind of
/// the question the qualification is stored with (the form names no question).
pub async fn update_qualification_text(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    quota_id: &str,
    id: &str,
    text: &str,
) -> Result<QualificationResponse, AppError> {
    let stored = get_qualification(ctx, actor, campaign_id, quota_id, id).await?;
    let question_id = stored.campaign_qualification.question_id;
    let input = QualificationInput {
        question_id: None,
        ..criteria_from_text(&question_id, text)?
    };
    update_qualification(ctx, actor, campaign_id, quota_id, id, input).await
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
    let detail = serde_json::json!({"qualificationId": row.id});
    Edit::new(actor, &m.id, now)
        .commit(ctx, txn, "survey_qualification.updated", detail)
        .await?;
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
    let detail = serde_json::json!({"qualificationId": row.id});
    Edit::new(actor, &m.id, now)
        .commit(ctx, txn, "survey_qualification.deleted", detail)
        .await?;
    Ok(crate::model::survey::campaign::SurveyMessage {
        message: "Qualification deleted".to_owned(),
    })
}
