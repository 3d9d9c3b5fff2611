//! A survey's targeting from its dashboard page: quotas (add, rename or resize, copy,
//! delete), their qualifications (add, change what they accept, delete) and custom
//! screening questions written as one text (add, rewrite, delete). The status policy is the
//! domain's (`domain::surveys::quotas::Scope`): a resize is allowed while LIVE or PAUSED,
//! everything else only before the campaign runs.

use leptos::prelude::*;

use crate::error::AppError;

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
        let input = QuotaInput {
            name: Some(name),
            num_respondents: Some(respondents(&num_respondents)?),
        };
        quotas::update_changed(&ctx, &p, &campaign_id, &quota_id, input).await
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
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
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
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let input = crate::domain::surveys::quotas::criteria_from_text(&question_id, &criteria)?;
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
    criteria: String,
    csrf: String,
) -> Result<(), AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::surveys::quotas::update_qualification_text(
            &ctx,
            &p,
            &campaign_id,
            &quota_id,
            &qualification_id,
            &criteria,
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
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
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
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::surveys::questions::delete(&ctx, &p, &campaign_id, &question_id).await?;
        Ok(())
    })
    .await
}
