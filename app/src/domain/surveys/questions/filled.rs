//! A whole question written at once, as the dashboard's form sends it: text, single or
//! multi-punch, and every option with whether it screens the respondent out. The signed API
//! builds a question field by field (`create`, `update`, the option routes); a person edits
//! it as one text, so creating and rewriting it are each one transaction that writes nothing
//! when any part is refused.

use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};

use super::record::{ACCEPT, MAX_OPTIONS, REJECT, audit_q, for_edit, options_of, view};
use super::{MULTI_PUNCH, SINGLE_PUNCH, append};
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::survey::targeting::{AnswerOption, CustomQuestion};
use crate::model::validate;

/// A question as a person writes it; `options` are `(value, screens out)` in display order.
#[derive(Debug, Clone, Default)]
pub struct QuestionDraft {
    pub display_text: String,
    pub multi: bool,
    pub options: Vec<(String, bool)>,
}

impl QuestionDraft {
    /// Reads the dashboard's textarea: one option per line, a leading `!` marks an option
    /// that screens the respondent out; blank lines are skipped.
    pub fn from_lines(display_text: String, multi: bool, lines: &str) -> Self {
        let options = lines
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| match l.strip_prefix('!') {
                Some(v) => (v.trim().to_owned(), true),
                None => (l.to_owned(), false),
            })
            .collect();
        Self {
            display_text,
            multi,
            options,
        }
    }

    /// The validated text, kind and options; an option keeps the id of the first unused
    /// `previous` option with the same value, so answers already recorded against it keep
    /// their meaning when a question is rewritten.
    fn validate(
        &self,
        previous: &[AnswerOption],
    ) -> Result<(String, i32, Vec<AnswerOption>), AppError> {
        let mut errs = FieldErrors::new();
        let text = errs.check(
            "display_text",
            validate::display_name(&self.display_text, 1000),
        );
        if !(2..=MAX_OPTIONS).contains(&self.options.len()) {
            errs.add(
                "options",
                format!("give 2 to {MAX_OPTIONS} options, one per line"),
            );
        }
        let mut unused: Vec<&AnswerOption> = previous.iter().collect();
        let mut out = Vec::new();
        for (i, (value, reject)) in self.options.iter().enumerate() {
            let Some(v) = errs.check(&format!("options[{i}]"), validate::display_name(value, 500))
            else {
                continue;
            };
            let kept = unused
                .iter()
                .position(|o| o.value == v)
                .map(|at| unused.remove(at));
            out.push(AnswerOption {
                option_id: kept.map_or_else(|| new_id("opt"), |o| o.option_id.clone()),
                value: v,
                sort_order: i32::try_from(i + 1).unwrap_or(i32::MAX),
                control_state: if *reject { REJECT } else { ACCEPT }.to_owned(),
            });
        }
        errs.finish()?;
        let kind = if self.multi {
            MULTI_PUNCH
        } else {
            SINGLE_PUNCH
        };
        Ok((text.unwrap_or_default(), kind, out))
    }
}

/// A new question at the end of the campaign's list.
pub async fn create_filled(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    draft: &QuestionDraft,
) -> Result<CustomQuestion, AppError> {
    let (text, kind, options) = draft.validate(&[])?;
    append(ctx, actor, campaign_id, text, kind, &options).await
}

/// Rewrites an existing question's text, kind and options (its place in the list stays).
pub async fn replace_filled(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    id: &str,
    draft: &QuestionDraft,
) -> Result<CustomQuestion, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let q = for_edit(&txn, actor, Some(campaign_id), id, now).await?;
    let (text, kind, options) = draft.validate(&options_of(&q))?;
    let mut a = q.into_active_model();
    a.display_text = Set(text);
    a.question_type_id = Set(kind);
    a.options = Set(serde_json::to_string(&options).unwrap_or_else(|_| "[]".into()));
    a.updated_at = Set(now);
    let row = a.update(&txn).await?;
    audit_q(&txn, now, actor, "survey_custom_question.updated", &row).await?;
    txn.commit().await?;
    Ok(view(&row))
}
