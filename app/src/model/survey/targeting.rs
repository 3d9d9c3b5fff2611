//! Wire types of the survey campaign API's targeting routes (snake_case like the rest of
//! `/api/v1/campaigns`): reference data, quotas, qualifications, custom questions, search
//! and clone.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use super::campaign::{SurveyCampaign, SurveyStatus};

wire_enum!(
    /// What choosing an answer option does to a respondent: qualify or screen out.
    ControlState { Accept = "cs_accept", Reject = "cs_reject" }
);

/// A country-language locale (target market). `id` is stable; `code` is LANG-CC.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CountryLanguage {
    pub id: i32,
    pub code: String,
    pub language: String,
    pub country_code: String,
    pub country_name: String,
    pub active: bool,
}

/// Body of `POST /listcountrylanguage` (may be empty): inactive locales are listed only when
/// asked for.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CountryLanguageQuery {
    pub include_inactive: Option<bool>,
}

/// `{country_languages, count}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CountryLanguageList {
    pub country_languages: Vec<CountryLanguage>,
    pub count: usize,
}

/// One answer of a catalog question (`answer_id` is what qualifications and the survey
/// fetch's PublisherProfiling name).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ProfilingAnswer {
    pub answer_id: String,
    pub answer_text: String,
}

wire_enum!(
    /// How a profiling question is answered: one or several answer ids, number ranges, or
    /// free text values (postal codes).
    QuestionKind { Single = "SINGLE", Multi = "MULTI", Numeric = "NUMERIC", Text = "TEXT" }
);

/// A profiling question. `question_type`: SINGLE or MULTI (answer ids), NUMERIC (ranges;
/// AGE comes from DateOfBirth), TEXT (values; ZIP is matched by prefix).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ProfilingQuestion {
    pub question_id: String,
    pub question_text: String,
    #[cfg_attr(feature = "ssr", schema(value_type = QuestionKind))]
    pub question_type: String,
    pub answers: Vec<ProfilingAnswer>,
}

/// Body of `POST /getProfilingQuestionsForTargeting`: the locale (id or LANG-CC) whose
/// catalog is wanted; empty means every question.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ProfilingQuery {
    pub country_language_id: Option<String>,
}

/// `{country_language_id, questions}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ProfilingQuestionList {
    pub country_language_id: Option<String>,
    pub questions: Vec<ProfilingQuestion>,
}

/// Create and update body of a quota (`name` and `num_respondents` required on create).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QuotaInput {
    pub name: Option<String>,
    pub num_respondents: Option<i64>,
}

/// An inclusive numeric range of a NUMERIC question (age 18-34 is `{min: 18, max: 34}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NumericRange {
    pub min: i64,
    pub max: i64,
}

/// Create and update body of a qualification: a catalog `question_id` and what it accepts —
/// `answer_ids` for SINGLE and MULTI questions, `ranges` for NUMERIC ones, `values` (postal
/// code prefixes) for TEXT ones.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QualificationInput {
    pub question_id: Option<String>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub answer_ids: Option<Vec<String>>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub ranges: Option<Vec<NumericRange>>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub values: Option<Vec<String>>,
}

/// What a qualification accepts (stored as JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Criteria {
    #[serde(default)]
    pub answer_ids: Vec<String>,
    #[serde(default)]
    pub ranges: Vec<NumericRange>,
    #[serde(default)]
    pub values: Vec<String>,
}

/// A qualification of a quota.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Qualification {
    pub _id: String,
    pub campaign_id: String,
    pub quota_id: String,
    pub question_id: String,
    pub answer_ids: Vec<String>,
    pub ranges: Vec<NumericRange>,
    pub values: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A quota with its qualifications; `completes` counts settled completes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Quota {
    pub _id: String,
    pub campaign_id: String,
    pub name: String,
    pub num_respondents: i64,
    pub completes: i64,
    pub qualifications: Vec<Qualification>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// `{campaignQuota}`: a created, cloned, read or updated quota.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QuotaResponse {
    #[serde(rename = "campaignQuota")]
    pub campaign_quota: Quota,
}

/// `{campaignQuotas, count}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QuotaList {
    #[serde(rename = "campaignQuotas")]
    pub campaign_quotas: Vec<Quota>,
    pub count: usize,
}

/// Body of `POST /{campaignId}/clonecampaignsquota`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QuotaCloneInput {
    #[serde(rename = "quotaId")]
    pub quota_id: Option<String>,
}

/// `{campaignQualification}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QualificationResponse {
    #[serde(rename = "campaignQualification")]
    pub campaign_qualification: Qualification,
}

/// `{campaignQualifications, count}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QualificationList {
    #[serde(rename = "campaignQualifications")]
    pub campaign_qualifications: Vec<Qualification>,
    pub count: usize,
}

/// Flags of a custom question.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QuestionControls {
    /// The respondent must answer.
    #[serde(default)]
    pub required: bool,
    /// Options are shown in random order.
    #[serde(default)]
    pub randomize_options: bool,
}

/// `question_type_id` of a custom question answered with one option.
pub const SINGLE_PUNCH: i32 = 1;
/// `question_type_id` of a custom question answered with any number of options.
pub const MULTI_PUNCH: i32 = 2;
/// `control_state` of an option that lets the respondent in.
pub const CS_ACCEPT: &str = "cs_accept";
/// `control_state` of an option that screens the respondent out.
pub const CS_REJECT: &str = "cs_reject";

/// An answer option of a custom question. `control_state` cs_accept lets the respondent in,
/// cs_reject screens them out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AnswerOption {
    pub option_id: String,
    pub value: String,
    pub sort_order: i32,
    #[cfg_attr(feature = "ssr", schema(value_type = ControlState))]
    pub control_state: String,
}

impl AnswerOption {
    /// Whether choosing this option screens the respondent out.
    pub fn screens_out(&self) -> bool {
        self.control_state == CS_REJECT
    }
}

/// A custom screening question. `question_type_id`: 1 single-punch, 2 multi-punch.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CustomQuestion {
    pub _id: String,
    pub campaign_id: String,
    pub display_text: String,
    pub question_type_id: i32,
    pub sort_order: i32,
    pub controls: QuestionControls,
    pub options: Vec<AnswerOption>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl CustomQuestion {
    /// Whether the question takes several answers.
    pub fn multi_punch(&self) -> bool {
        self.question_type_id == MULTI_PUNCH
    }
}

/// `PUT /{campaignId}/customquestion/{customquestionId}`: the fields it names.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CustomQuestionInput {
    pub display_text: Option<String>,
    pub question_type_id: Option<i32>,
    pub sort_order: Option<i32>,
    pub controls: Option<QuestionControls>,
}

/// `PUT /cq/{customquestionId}/option/{option_id}`: the fields it names.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AnswerOptionInput {
    pub value: Option<String>,
    pub sort_order: Option<i32>,
    /// cs_accept or cs_reject.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<ControlState>))]
    pub control_state: Option<String>,
}

/// `{customQuestions}`: one question (option routes) .
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CustomQuestionRecord {
    #[serde(rename = "customQuestions")]
    pub custom_questions: CustomQuestion,
}

/// `{customQuestions, count}`: every question of a campaign in display order.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CustomQuestionList {
    #[serde(rename = "customQuestions")]
    pub custom_questions: Vec<CustomQuestion>,
    pub count: usize,
}

/// `GET /{campaignId}/getcustomquestionsforprofiling`: the questions in the catalog's shape
/// (the answer ids are option ids; `accepted_answer_ids` are the cs_accept ones).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ProfilingCustomQuestion {
    pub question_id: String,
    pub question_text: String,
    #[cfg_attr(feature = "ssr", schema(value_type = QuestionKind))]
    pub question_type: String,
    pub required: bool,
    pub answers: Vec<ProfilingAnswer>,
    pub accepted_answer_ids: Vec<String>,
}

/// `{questions}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ProfilingCustomQuestionList {
    pub questions: Vec<ProfilingCustomQuestion>,
}

/// Body of `POST /searchcampaigns`; every filter is optional and they combine with AND.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SurveySearch {
    /// Any of these statuses.
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 100>"
    )]
    pub status: Option<Vec<SurveyStatus>>,
    /// Case-insensitive part of the name.
    pub name: Option<String>,
    /// Locale id or LANG-CC code.
    pub country_language_id: Option<String>,
    /// Created on or after this day (UTC).
    pub created_from: Option<NaiveDate>,
    /// Created on or before this day (UTC).
    pub created_to: Option<NaiveDate>,
    /// Campaigns per page: 1 to 500 (default 50).
    #[cfg_attr(feature = "ssr", schema(minimum = 1, maximum = 500))]
    pub limit: Option<u64>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// `{campaigns, count, next_cursor}`: newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SurveySearchPage {
    pub campaigns: Vec<SurveyCampaign>,
    pub count: usize,
    pub next_cursor: Option<String>,
}

/// Body of `POST /clonecampaigns`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SurveyCloneInput {
    #[serde(rename = "campaignId")]
    pub campaign_id: Option<String>,
    /// Name of the copy (default: "Copy of <name>").
    pub name: Option<String>,
}
