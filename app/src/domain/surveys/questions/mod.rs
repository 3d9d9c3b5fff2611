//! Custom screening questions of a survey campaign and their answer options. A created
//! question is a blank record (the create body is ignored); `PUT` sets its text, type,
//! order and controls. Options start blank with `cs_accept` and are edited by `option_id`.
//! Changes follow the targeting status policy of `quotas`.

mod filled;
mod options;
mod record;

use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, IntoActiveModel, Set};

use super::campaigns::owned;
use super::quotas::{Scope, for_change};
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::survey::campaign::SurveyMessage;
use crate::model::survey::targeting::*;
use crate::model::validate;
use entity::survey_custom_question as cq;

pub use filled::{QuestionDraft, create_filled, replace_filled};
pub use options::{create_option, delete_option, update_option};
pub use record::{
    ACCEPT, MAX_OPTIONS, MAX_QUESTIONS, MULTI_PUNCH, REJECT, SINGLE_PUNCH, of_campaign, view,
};
use record::{audit_q, for_edit, question_of};

/// `GET /{campaignId}/getcustomquestions`.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
) -> Result<CustomQuestionList, AppError> {
    let m = owned(&ctx.db, actor, campaign_id).await?;
    let items: Vec<CustomQuestion> = of_campaign(&ctx.db, &m.id)
        .await?
        .iter()
        .map(view)
        .collect();
    Ok(CustomQuestionList {
        count: items.len(),
        custom_questions: items,
    })
}

/// `POST /{campaignId}/customquestion`: a blank single-punch question at the end.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
) -> Result<CustomQuestion, AppError> {
    append(ctx, actor, campaign_id, String::new(), SINGLE_PUNCH, &[]).await
}

/// Inserts a question after the campaign's others (at most [`MAX_QUESTIONS`]) and audits it.
pub(super) async fn append(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    display_text: String,
    question_type_id: i32,
    options: &[AnswerOption],
) -> Result<CustomQuestion, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = for_change(&txn, actor, campaign_id, Scope::Targeting, now).await?;
    let existing = of_campaign(&txn, &m.id).await?;
    if existing.len() >= MAX_QUESTIONS {
        return Err(AppError::conflict(format!(
            "a campaign has at most {MAX_QUESTIONS} custom questions"
        ))
        .with_code("limit_reached"));
    }
    let row = cq::ActiveModel {
        id: Set(new_id("scq")),
        campaign_id: Set(m.id.clone()),
        display_text: Set(display_text),
        question_type_id: Set(question_type_id),
        sort_order: Set(existing.iter().map(|q| q.sort_order).max().unwrap_or(0) + 1),
        controls: Set(serde_json::to_string(&QuestionControls::default()).unwrap_or_default()),
        options: Set(serde_json::to_string(options).unwrap_or_else(|_| "[]".into())),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    audit_q(&txn, now, actor, "survey_custom_question.created", &row).await?;
    txn.commit().await?;
    Ok(view(&row))
}

/// `GET /{campaignId}/customquestion/{id}`.
pub async fn get(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    id: &str,
) -> Result<CustomQuestion, AppError> {
    let m = owned(&ctx.db, actor, campaign_id).await?;
    let q = question_of(&ctx.db, id).await?;
    if q.campaign_id != m.id {
        return Err(AppError::not_found("custom question"));
    }
    Ok(view(&q))
}

/// `PUT /{campaignId}/customquestion/{id}`.
pub async fn update(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    id: &str,
    input: CustomQuestionInput,
) -> Result<CustomQuestion, AppError> {
    let mut errs = FieldErrors::new();
    if let Some(t) = &input.display_text {
        errs.check("display_text", validate::display_name(t, 1000));
    }
    if let Some(t) = input.question_type_id
        && !matches!(t, SINGLE_PUNCH | MULTI_PUNCH)
    {
        errs.add(
            "question_type_id",
            "must be 1 (single-punch) or 2 (multi-punch)",
        );
    }
    if let Some(o) = input.sort_order
        && !(0..=1000).contains(&o)
    {
        errs.add("sort_order", "must be 0-1000");
    }
    errs.finish()?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let q = for_edit(&txn, actor, Some(campaign_id), id, now).await?;
    let mut a = q.into_active_model();
    if let Some(t) = &input.display_text {
        a.display_text = Set(t.trim().to_owned());
    }
    if let Some(t) = input.question_type_id {
        a.question_type_id = Set(t);
    }
    if let Some(o) = input.sort_order {
        a.sort_order = Set(o);
    }
    if let Some(c) = &input.controls {
        a.controls = Set(serde_json::to_string(c).unwrap_or_default());
    }
    a.updated_at = Set(now);
    let row = a.update(&txn).await?;
    audit_q(&txn, now, actor, "survey_custom_question.updated", &row).await?;
    txn.commit().await?;
    Ok(view(&row))
}

/// `DELETE /{campaignId}/customquestion/{id}`.
pub async fn delete(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    id: &str,
) -> Result<SurveyMessage, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let q = for_edit(&txn, actor, Some(campaign_id), id, now).await?;
    cq::Entity::delete_by_id(q.id.clone()).exec(&txn).await?;
    audit_q(&txn, now, actor, "survey_custom_question.deleted", &q).await?;
    txn.commit().await?;
    Ok(SurveyMessage {
        message: "Custom question deleted".to_owned(),
    })
}

/// `GET /{campaignId}/getcustomquestionsforprofiling`: the questions with text, in the
/// catalog's shape.
pub async fn for_profiling(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
) -> Result<ProfilingCustomQuestionList, AppError> {
    let m = owned(&ctx.db, actor, campaign_id).await?;
    let questions = of_campaign(&ctx.db, &m.id)
        .await?
        .iter()
        .filter(|q| !q.display_text.is_empty())
        .map(|q| {
            let v = view(q);
            ProfilingCustomQuestion {
                question_id: v._id,
                question_text: v.display_text,
                question_type: if v.question_type_id == MULTI_PUNCH {
                    QuestionKind::Multi
                } else {
                    QuestionKind::Single
                }
                .as_str()
                .to_owned(),
                required: v.controls.required,
                accepted_answer_ids: v
                    .options
                    .iter()
                    .filter(|o| o.control_state == ACCEPT)
                    .map(|o| o.option_id.clone())
                    .collect(),
                answers: v
                    .options
                    .into_iter()
                    .filter(|o| !o.value.is_empty())
                    .map(|o| ProfilingAnswer {
                        answer_id: o.option_id,
                        answer_text: o.value,
                    })
                    .collect(),
            }
        })
        .collect();
    Ok(ProfilingCustomQuestionList { questions })
}

/// Copies every question of `from` into `to` (new ids; option ids kept, they are local).
pub async fn copy_all<C: ConnectionTrait>(
    db: &C,
    now: chrono::DateTime<chrono::Utc>,
    from: &str,
    to: &str,
) -> Result<(), AppError> {
    for q in of_campaign(db, from).await? {
        cq::ActiveModel {
            id: Set(new_id("scq")),
            campaign_id: Set(to.to_owned()),
            display_text: Set(q.display_text),
            question_type_id: Set(q.question_type_id),
            sort_order: Set(q.sort_order),
            controls: Set(q.controls),
            options: Set(q.options),
            created_at: Set(now),
            updated_at: Set(now),
        }
        .insert(db)
        .await?;
    }
    Ok(())
}
