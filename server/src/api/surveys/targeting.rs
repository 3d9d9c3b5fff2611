//! The survey campaign API's targeting and reference routes (`/api/v1/campaigns/...`):
//! locales and the profiling catalog, search and clone, quotas, qualifications, custom
//! questions and their answer options. Every route is signed (`X-Api-Key` + `enc`) and
//! checks ownership in the domain layer.

use app::domain::surveys::{questions, quotas, reference, search};
use app::error::AppError;
use app::model::survey::campaign::{SurveyCreated, SurveyMessage};
use app::model::survey::targeting::*;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::campaigns::Signed;
use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_country_languages))
        .routes(routes!(profiling_questions))
        .routes(routes!(search))
        .routes(routes!(clone_campaign))
        .routes(routes!(list_quotas))
        .routes(routes!(create_quota))
        .routes(routes!(clone_quota))
        .routes(routes!(read_quota, update_quota, delete_quota))
        .routes(routes!(list_qualifications))
        .routes(routes!(create_qualification))
        .routes(routes!(
            read_qualification,
            update_qualification,
            delete_qualification
        ))
        .routes(routes!(list_questions))
        .routes(routes!(create_question))
        .routes(routes!(read_question, update_question, delete_question))
        .routes(routes!(questions_for_profiling))
        .routes(routes!(create_option))
        .routes(routes!(update_option, delete_option))
}

/// Country-language locales a campaign may target (`include_inactive` lists retired ones too).
#[utoipa::path(post, path = "/listcountrylanguage", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query, description = "URL signature")), request_body = CountryLanguageQuery,
    responses((status = 200, body = CountryLanguageList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn list_country_languages(
    // Reference data, but still only for signed callers.
    r: Signed,
) -> Result<AppJson<CountryLanguageList>, AppError> {
    let input: CountryLanguageQuery = r.json()?;
    Ok(AppJson(reference::country_languages(&input)))
}

/// The profiling catalog (question and answer ids) asked in a locale, for qualifications.
#[utoipa::path(post, path = "/getProfilingQuestionsForTargeting", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query, description = "URL signature")), request_body = ProfilingQuery,
    responses((status = 200, body = ProfilingQuestionList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn profiling_questions(
    // Reference data, but still only for signed callers.
    r: Signed,
) -> Result<AppJson<ProfilingQuestionList>, AppError> {
    let input: ProfilingQuery = r.json()?;
    Ok(AppJson(
        reference::profiling_questions(&input)
            .map_err(|e| AppError::field("country_language_id", e))?,
    ))
}

/// Search the caller's campaigns: status, name, locale and creation dates, newest first, cursor paged.
#[utoipa::path(post, path = "/searchcampaigns", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query, description = "URL signature")), request_body = SurveySearch,
    responses((status = 200, body = SurveySearchPage), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn search(
    State(s): State<AppState>,
    r: Signed,
) -> Result<AppJson<SurveySearchPage>, AppError> {
    let input: SurveySearch = r.json()?;
    Ok(AppJson(search::search(&s.ctx, &r.principal, input).await?))
}

/// Copy a campaign (settings, quotas, qualifications, custom questions) into a new DRAFT.
#[utoipa::path(post, path = "/clonecampaigns", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query, description = "URL signature")), request_body = SurveyCloneInput,
    responses((status = 201, body = SurveyCreated), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn clone_campaign(
    State(s): State<AppState>,
    r: Signed,
) -> Result<(StatusCode, AppJson<SurveyCreated>), AppError> {
    let input: SurveyCloneInput = r.json()?;
    Ok((
        StatusCode::CREATED,
        AppJson(search::clone(&s.ctx, &r.principal, input).await?),
    ))
}

/// Quotas of a campaign with their qualifications.
#[utoipa::path(get, path = "/{campaignId}/getcampaignquota", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = QuotaList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn list_quotas(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String,)>,
    r: Signed,
) -> Result<AppJson<QuotaList>, AppError> {
    Ok(AppJson(quotas::list(&s.ctx, &r.principal, &p.0).await?))
}

/// Add a quota `{name, num_respondents}` (targeting policy: DRAFT or PENDINGAPPROVAL, which withdraws to DRAFT).
#[utoipa::path(post, path = "/{campaignId}/campaignsquota", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query, description = "URL signature")), request_body = QuotaInput,
    responses((status = 201, body = QuotaResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn create_quota(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String,)>,
    r: Signed,
) -> Result<(StatusCode, AppJson<QuotaResponse>), AppError> {
    let input: QuotaInput = r.json()?;
    Ok((
        StatusCode::CREATED,
        AppJson(quotas::create(&s.ctx, &r.principal, &p.0, input).await?),
    ))
}

/// Copy one of the campaign's quotas `{quotaId}` with its qualifications.
#[utoipa::path(post, path = "/{campaignId}/clonecampaignsquota", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query, description = "URL signature")), request_body = QuotaCloneInput,
    responses((status = 201, body = QuotaResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn clone_quota(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String,)>,
    r: Signed,
) -> Result<(StatusCode, AppJson<QuotaResponse>), AppError> {
    let input: QuotaCloneInput = r.json()?;
    Ok((
        StatusCode::CREATED,
        AppJson(quotas::clone(&s.ctx, &r.principal, &p.0, input).await?),
    ))
}

/// One quota with its qualifications.
#[utoipa::path(get, path = "/{campaignId}/campaignsquota/{campaignQuotaId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("campaignQuotaId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = QuotaResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn read_quota(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<QuotaResponse>, AppError> {
    Ok(AppJson(
        quotas::get(&s.ctx, &r.principal, &p.0, &p.1).await?,
    ))
}

/// Rename (targeting change) or resize a quota; while LIVE or PAUSED only `num_respondents` may change, never below its completes.
#[utoipa::path(put, path = "/{campaignId}/campaignsquota/{campaignQuotaId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("campaignQuotaId" = String, Path), ("enc" = String, Query, description = "URL signature")), request_body = QuotaInput,
    responses((status = 200, body = QuotaResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn update_quota(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<QuotaResponse>, AppError> {
    let input: QuotaInput = r.json()?;
    Ok(AppJson(
        quotas::update(&s.ctx, &r.principal, &p.0, &p.1, input).await?,
    ))
}

/// Remove a quota and its qualifications (targeting change).
#[utoipa::path(delete, path = "/{campaignId}/campaignsquota/{campaignQuotaId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("campaignQuotaId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = SurveyMessage), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn delete_quota(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<SurveyMessage>, AppError> {
    Ok(AppJson(
        quotas::delete(&s.ctx, &r.principal, &p.0, &p.1).await?,
    ))
}

/// Qualifications of a quota.
#[utoipa::path(get, path = "/{campaignId}/campaignsquota/{campaignQuotaId}/getcampaignsqualifications", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("campaignQuotaId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = QualificationList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn list_qualifications(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<QualificationList>, AppError> {
    Ok(AppJson(
        quotas::list_qualifications(&s.ctx, &r.principal, &p.0, &p.1).await?,
    ))
}

/// Add a qualification: a catalog `question_id` with `answer_ids`, numeric `ranges` or postal-code `values`.
#[utoipa::path(post, path = "/{campaignId}/campaignsquota/{campaignQuotaId}/campaignsqualification", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("campaignQuotaId" = String, Path), ("enc" = String, Query, description = "URL signature")), request_body = QualificationInput,
    responses((status = 201, body = QualificationResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn create_qualification(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<(StatusCode, AppJson<QualificationResponse>), AppError> {
    let input: QualificationInput = r.json()?;
    Ok((
        StatusCode::CREATED,
        AppJson(quotas::create_qualification(&s.ctx, &r.principal, &p.0, &p.1, input).await?),
    ))
}

/// One qualification.
#[utoipa::path(get, path = "/{campaignId}/campaignsquota/{campaignQuotaId}/campaignsqualification/{campaignQualificationsId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("campaignQuotaId" = String, Path), ("campaignQualificationsId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = QualificationResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn read_qualification(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String, String)>,
    r: Signed,
) -> Result<AppJson<QualificationResponse>, AppError> {
    Ok(AppJson(
        quotas::get_qualification(&s.ctx, &r.principal, &p.0, &p.1, &p.2).await?,
    ))
}

/// Change a qualification (a new `question_id` resets what it accepts).
#[utoipa::path(put, path = "/{campaignId}/campaignsquota/{campaignQuotaId}/campaignsqualification/{campaignQualificationsId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("campaignQuotaId" = String, Path), ("campaignQualificationsId" = String, Path), ("enc" = String, Query, description = "URL signature")), request_body = QualificationInput,
    responses((status = 200, body = QualificationResponse), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn update_qualification(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String, String)>,
    r: Signed,
) -> Result<AppJson<QualificationResponse>, AppError> {
    let input: QualificationInput = r.json()?;
    Ok(AppJson(
        quotas::update_qualification(&s.ctx, &r.principal, &p.0, &p.1, &p.2, input).await?,
    ))
}

/// Remove a qualification.
#[utoipa::path(delete, path = "/{campaignId}/campaignsquota/{campaignQuotaId}/campaignsqualification/{campaignQualificationsId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("campaignQuotaId" = String, Path), ("campaignQualificationsId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = SurveyMessage), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn delete_qualification(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String, String)>,
    r: Signed,
) -> Result<AppJson<SurveyMessage>, AppError> {
    Ok(AppJson(
        quotas::delete_qualification(&s.ctx, &r.principal, &p.0, &p.1, &p.2).await?,
    ))
}

/// Custom questions of a campaign in display order: `{customQuestions}`.
#[utoipa::path(get, path = "/{campaignId}/getcustomquestions", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = CustomQuestionList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn list_questions(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String,)>,
    r: Signed,
) -> Result<AppJson<CustomQuestionList>, AppError> {
    Ok(AppJson(questions::list(&s.ctx, &r.principal, &p.0).await?))
}

/// A blank custom question with a generated id (the body is ignored); set it with PUT.
#[utoipa::path(post, path = "/{campaignId}/customquestion", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 201, body = CustomQuestion), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn create_question(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String,)>,
    r: Signed,
) -> Result<(StatusCode, AppJson<CustomQuestion>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(questions::create(&s.ctx, &r.principal, &p.0).await?),
    ))
}

/// One custom question.
#[utoipa::path(get, path = "/{campaignId}/customquestion/{customquestionId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("customquestionId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = CustomQuestion), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn read_question(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<CustomQuestion>, AppError> {
    Ok(AppJson(
        questions::get(&s.ctx, &r.principal, &p.0, &p.1).await?,
    ))
}

/// Set `display_text`, `question_type_id` (1 single-punch, 2 multi-punch), `sort_order` and `controls`.
#[utoipa::path(put, path = "/{campaignId}/customquestion/{customquestionId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("customquestionId" = String, Path), ("enc" = String, Query, description = "URL signature")), request_body = CustomQuestionInput,
    responses((status = 200, body = CustomQuestion), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn update_question(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<CustomQuestion>, AppError> {
    let input: CustomQuestionInput = r.json()?;
    Ok(AppJson(
        questions::update(&s.ctx, &r.principal, &p.0, &p.1, input).await?,
    ))
}

/// Remove a custom question.
#[utoipa::path(delete, path = "/{campaignId}/customquestion/{customquestionId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("customquestionId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = SurveyMessage), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn delete_question(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<SurveyMessage>, AppError> {
    Ok(AppJson(
        questions::delete(&s.ctx, &r.principal, &p.0, &p.1).await?,
    ))
}

/// Custom questions formatted like the profiling catalog (answers with text only).
#[utoipa::path(get, path = "/{campaignId}/getcustomquestionsforprofiling", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = ProfilingCustomQuestionList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn questions_for_profiling(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String,)>,
    r: Signed,
) -> Result<AppJson<ProfilingCustomQuestionList>, AppError> {
    Ok(AppJson(
        questions::for_profiling(&s.ctx, &r.principal, &p.0).await?,
    ))
}

/// Add a blank `cs_accept` answer option; returns the updated question as `{customQuestions}`.
#[utoipa::path(post, path = "/cq/{customquestionId}/createoption", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("customquestionId" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 201, body = CustomQuestionRecord), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn create_option(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String,)>,
    r: Signed,
) -> Result<(StatusCode, AppJson<CustomQuestionRecord>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(questions::create_option(&s.ctx, &r.principal, &p.0).await?),
    ))
}

/// Set an option's `value`, `sort_order` and `control_state` (cs_accept or cs_reject).
#[utoipa::path(put, path = "/cq/{customquestionId}/option/{option_id}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("customquestionId" = String, Path), ("option_id" = String, Path), ("enc" = String, Query, description = "URL signature")), request_body = AnswerOptionInput,
    responses((status = 200, body = CustomQuestionRecord), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn update_option(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<CustomQuestionRecord>, AppError> {
    let input: AnswerOptionInput = r.json()?;
    Ok(AppJson(
        questions::update_option(&s.ctx, &r.principal, &p.0, &p.1, input).await?,
    ))
}

/// Remove an answer option; returns the updated question.
#[utoipa::path(delete, path = "/cq/{customquestionId}/option/{option_id}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("customquestionId" = String, Path), ("option_id" = String, Path), ("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = CustomQuestionRecord), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn delete_option(
    State(s): State<AppState>,
    AppPath(p): AppPath<(String, String)>,
    r: Signed,
) -> Result<AppJson<CustomQuestionRecord>, AppError> {
    Ok(AppJson(
        questions::delete_option(&s.ctx, &r.principal, &p.0, &p.1).await?,
    ))
}
