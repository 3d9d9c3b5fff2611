//! A survey's targeting from its dashboard page: quotas (add, rename or resize, copy,
//! delete), their qualifications (add, change what they accept, delete) and custom
//! screening questions written as one text (add, rewrite, delete). The status policy is the
//! domain's (`domain::surveys::quotas::Scope`): a resize is allowed while LIVE or PAUSED,
//! everything else only before the campaign runs.

use leptos::prelude::*;

use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::{
    domain::surveys::{questions, quotas},
    model::survey::targeting::{QuotaCloneInput, QuotaInput},
    server_fns::web,
};

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
    web::write(&csrf, |ctx, p| async move {
        let input = QuotaInput {
            name: Some(name),
            num_respondents: Some(respondents(&num_respondents)?),
        };
        quotas::create(&ctx, &p, &campaign_id, input)
            .await
            .map(drop)
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
    web::write(&csrf, |ctx, p| async move {
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
    web::write(&csrf, |ctx, p| async move {
        let input = QuotaCloneInput {
            quota_id: Some(quota_id),
        };
        quotas::clone(&ctx, &p, &campaign_id, input).await.map(drop)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_delete_quota")]
pub async fn delete_quota(
    campaign_id: String,
    quota_id: String,
    csrf: String,
) -> Result<(), AppError> {
    web::write(&csrf, |ctx, p| async move {
        quotas::delete(&ctx, &p, &campaign_id, &quota_id)
            .await
            .map(drop)
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
    web::write(&csrf, |ctx, p| async move {
        let input = quotas::criteria_from_text(&question_id, &criteria)?;
        quotas::create_qualification(&ctx, &p, &campaign_id, &quota_id, input)
            .await
            .map(drop)
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
    web::write(&csrf, |ctx, p| async move {
        quotas::update_qualification_text(
            &ctx,
            &p,
            &campaign_id,
            &quota_id,
            &qualification_id,
            &criteria,
        )
        .await
        .map(drop)
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
    web::write(&csrf, |ctx, p| async move {
        quotas::delete_qualification(&ctx, &p, &campaign_id, &quota_id, &qualification_id)
            .await
            .map(drop)
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
    web::write(&csrf, |ctx, p| async move {
        let draft = questions::QuestionDraft::from_lines(display_text, multi.is_some(), &options);
        questions::create_filled(&ctx, &p, &campaign_id, &draft)
            .await
            .map(drop)
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
    web::write(&csrf, |ctx, p| async move {
        let draft = questions::QuestionDraft::from_lines(display_text, multi.is_some(), &options);
        questions::replace_filled(&ctx, &p, &campaign_id, &question_id, &draft)
            .await
            .map(drop)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_delete_question")]
pub async fn delete_question(
    campaign_id: String,
    question_id: String,
    csrf: String,
) -> Result<(), AppError> {
    web::write(&csrf, |ctx, p| async move {
        questions::delete(&ctx, &p, &campaign_id, &question_id)
            .await
            .map(drop)
    })
    .await
}
