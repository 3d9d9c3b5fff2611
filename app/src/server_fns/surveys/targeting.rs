//! A survey's targeting from its dashboard page: quotas (add, rename or resize, copy,
//! delete), their qualifications (add, change what they accept, delete) and custom
//! screening questions written as one text (add, rewrite, delete). The status policy is the
//! domain's (`domain::surveys::quotas::Scope`): a resize is allowed while LIVE or PAUSED,
//! everything else only before the campaign runs.

use leptos::prelude::*;

use crate::error::AppError;

/// Answer ids (`1, 2`), ranges (`18-34, 55-64`) or postal-code prefixes, read according to
/// the catalog question's kind.
#[cfg(feature = "ssr")]
fn criteria_input(
    question_id: Option<String>,
    kind_of: &str,
    criteria: &str,
) -> Result<crate::model::survey::targeting::QualificationInput, AppError> {
    use crate::domain::surveys::reference;
    use crate::model::survey::targeting::{NumericRange, QualificationInput, QuestionKind};
    let parts: Vec<String> = criteria
        .split([',', '\n'])
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let kind = reference::question(kind_of)
        .map(|q| q.kind)
        .unwrap_or(QuestionKind::Single);
    let mut input = QualificationInput {
        question_id,
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

#[cfg(feature = "ssr")]
fn respondents(text: &str) -> Result<i64, AppError> {
    text.trim()
        .parse::<i64>()
        .map_err(|_| AppError::field("num_respondents", "must be a whole number"))
}

#[server(prefix = "/fn", endpoint = "survey_add_quota")]
pub async fn add_quota(
    campaign_id: String,
    name: String,
    num_respondents: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        use crate::model::survey::targeting::QuotaInput;
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        let input = QuotaInput {
            name: Some(name),
            num_respondents: Some(respondents(&num_respondents)?),
        };
        crate::domain::surveys::quotas::create(&ctx, &p, &campaign_id, input).await?;
        Ok(())
    })
    .await
}

/// Saves a quota's row: only the fields that changed are sent on, so resizing a LIVE
/// campaign's quota is not refused as a rename.
#[server(prefix = "/fn", endpoint = "survey_update_quota")]
pub async fn update_quota(
    campaign_id: String,
    quota_id: String,
    name: String,
    num_respondents: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::surveys::quotas;
        use crate::model::survey::targeting::QuotaInput;
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        let current = quotas::get(&ctx, &p, &campaign_id, &quota_id)
            .await?
            .campaign_quota;
        let size = respondents(&num_respondents)?;
        let input = QuotaInput {
            name: (name.trim() != current.name).then_some(name),
            num_respondents: (size != current.num_respondents).then_some(size),
        };
        if input.name.is_none() && input.num_respondents.is_none() {
            return Ok(());
        }
        quotas::update(&ctx, &p, &campaign_id, &quota_id, input).await?;
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_clone_quota")]
pub async fn clone_quota(
    campaign_id: String,
    quota_id: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        use crate::model::survey::targeting::QuotaCloneInput;
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        let input = QuotaCloneInput {
            quota_id: Some(quota_id),
        };
        crate::domain::surveys::quotas::clone(&ctx, &p, &campaign_id, input).await?;
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_delete_quota")]
pub async fn delete_quota(
    campaign_id: String,
    quota_id: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        crate::domain::surveys::quotas::delete(&ctx, &p, &campaign_id, &quota_id).await?;
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_add_qualification")]
pub async fn add_qualification(
    campaign_id: String,
    quota_id: String,
    question_id: String,
    criteria: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        let input = criteria_input(Some(question_id.clone()), &question_id, &criteria)?;
        crate::domain::surveys::quotas::create_qualification(
            &ctx,
            &p,
            &campaign_id,
            &quota_id,
            input,
        )
        .await?;
        Ok(())
    })
    .await
}

/// Changes what a qualification accepts (its question stays; delete it to target another).
#[server(prefix = "/fn", endpoint = "survey_update_qualification")]
pub async fn update_qualification(
    campaign_id: String,
    quota_id: String,
    qualification_id: String,
    question_id: String,
    criteria: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        let input = criteria_input(None, &question_id, &criteria)?;
        crate::domain::surveys::quotas::update_qualification(
            &ctx,
            &p,
            &campaign_id,
            &quota_id,
            &qualification_id,
            input,
        )
        .await?;
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_delete_qualification")]
pub async fn delete_qualification(
    campaign_id: String,
    quota_id: String,
    qualification_id: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        crate::domain::surveys::quotas::delete_qualification(
            &ctx,
            &p,
            &campaign_id,
            &quota_id,
            &qualification_id,
        )
        .await?;
        Ok(())
    })
    .await
}

/// A custom question with its options in one form: one option per line, a leading `!`
/// marks an option that screens the respondent out (cs_reject).
#[server(prefix = "/fn", endpoint = "survey_add_question")]
pub async fn add_question(
    campaign_id: String,
    display_text: String,
    multi: Option<String>,
    options: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::surveys::questions::{QuestionDraft, create_filled};
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        let draft = QuestionDraft::from_lines(display_text, multi.is_some(), &options);
        create_filled(&ctx, &p, &campaign_id, &draft).await?;
        Ok(())
    })
    .await
}

/// Rewrites a question from the same form as `add_question`, prefilled; options whose text
/// is unchanged keep their ids.
#[server(prefix = "/fn", endpoint = "survey_update_question")]
pub async fn update_question(
    campaign_id: String,
    question_id: String,
    display_text: String,
    multi: Option<String>,
    options: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::surveys::questions::{QuestionDraft, replace_filled};
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        let draft = QuestionDraft::from_lines(display_text, multi.is_some(), &options);
        replace_filled(&ctx, &p, &campaign_id, &question_id, &draft).await?;
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_delete_question")]
pub async fn delete_question(
    campaign_id: String,
    question_id: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, _, p) = crate::server_fns::web::writer(&csrf).await?;
        crate::domain::surveys::questions::delete(&ctx, &p, &campaign_id, &question_id).await?;
        Ok(())
    })
    .await
}
