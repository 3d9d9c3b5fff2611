//! Answer options of a question. They live as a JSON list inside the question's row, so
//! every option change rewrites that list and is audited as a change of the question.

use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};

use super::record::{ACCEPT, MAX_OPTIONS, REJECT, audit_q, for_edit, options_of, view};
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::survey::targeting::*;
use crate::model::validate;

/// Reads the question, lets `change` edit its option list (refusing with an error leaves
/// nothing written), saves the list and audits `action`, in one transaction.
async fn edit_options(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    action: &str,
    change: impl FnOnce(&mut Vec<AnswerOption>) -> Result<(), AppError>,
) -> Result<CustomQuestionRecord, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let q = for_edit(&txn, actor, None, id, now).await?;
    let mut options = options_of(&q);
    change(&mut options)?;
    let mut a = q.into_active_model();
    a.options = Set(serde_json::to_string(&options).unwrap_or_else(|_| "[]".into()));
    a.updated_at = Set(now);
    let row = a.update(&txn).await?;
    audit_q(&txn, now, actor, action, &row).await?;
    txn.commit().await?;
    Ok(CustomQuestionRecord {
        custom_questions: view(&row),
    })
}

/// `POST /cq/{id}/createoption`: a blank `cs_accept` option at the end.
pub async fn create_option(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<CustomQuestionRecord, AppError> {
    edit_options(
        ctx,
        actor,
        id,
        "survey_custom_question.option_created",
        |options| {
            if options.len() >= MAX_OPTIONS {
                return Err(AppError::conflict(format!(
                    "a question has at most {MAX_OPTIONS} options"
                ))
                .with_code("limit_reached"));
            }
            options.push(AnswerOption {
                option_id: new_id("opt"),
                value: String::new(),
                sort_order: options.iter().map(|o| o.sort_order).max().unwrap_or(0) + 1,
                control_state: ACCEPT.to_owned(),
            });
            Ok(())
        },
    )
    .await
}

/// `PUT /cq/{id}/option/{optionId}`.
pub async fn update_option(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    option_id: &str,
    input: AnswerOptionInput,
) -> Result<CustomQuestionRecord, AppError> {
    let mut errs = FieldErrors::new();
    if let Some(v) = &input.value {
        errs.check("value", validate::display_name(v, 500));
    }
    if let Some(s) = &input.control_state
        && !matches!(s.as_str(), ACCEPT | REJECT)
    {
        errs.add("control_state", "must be cs_accept or cs_reject");
    }
    if let Some(o) = input.sort_order
        && !(0..=1000).contains(&o)
    {
        errs.add("sort_order", "must be 0-1000");
    }
    errs.finish()?;
    edit_options(
        ctx,
        actor,
        id,
        "survey_custom_question.option_updated",
        |options| {
            let o = options
                .iter_mut()
                .find(|o| o.option_id == option_id)
                .ok_or_else(|| AppError::not_found("answer option"))?;
            if let Some(v) = &input.value {
                o.value = v.trim().to_owned();
            }
            if let Some(s) = &input.control_state {
                o.control_state = s.clone();
            }
            if let Some(s) = input.sort_order {
                o.sort_order = s;
            }
            Ok(())
        },
    )
    .await
}

/// `DELETE /cq/{id}/option/{optionId}`.
pub async fn delete_option(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    option_id: &str,
) -> Result<CustomQuestionRecord, AppError> {
    edit_options(
        ctx,
        actor,
        id,
        "survey_custom_question.option_deleted",
        |options| {
            let before = options.len();
            options.retain(|o| o.option_id != option_id);
            if options.len() == before {
                return Err(AppError::not_found("answer option"));
            }
            Ok(())
        },
    )
    .await
}
