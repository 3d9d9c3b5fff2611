//! Survey campaigns from the dashboards: the advertiser's list with API credentials and wallet
//! payment, one survey's targeting editor, and the publisher's survey traffic. Every rule
//! stays in `domain::surveys`; form fields arrive as text and are parsed here.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::OneTimeSecret;
use crate::model::survey::campaign::SurveyCampaign;
use crate::model::survey::fetch::SurveyStats;
use crate::model::survey::targeting::{CustomQuestion, ProfilingQuestion, Quota};

pub mod campaign;

/// The active survey API key (its first characters only).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SurveyKeyInfo {
    pub prefix: String,
    pub encryption_type: String,
    pub created_at: DateTime<Utc>,
}

/// The advertiser's survey page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SurveysSummary {
    pub campaigns: Vec<SurveyCampaign>,
    pub key: Option<SurveyKeyInfo>,
    /// A key issued by the form that led here (plain form posts), shown once.
    pub issued: Option<OneTimeSecret>,
}

/// One survey with its targeting and the catalog its market can qualify on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SurveyEditorData {
    pub campaign: SurveyCampaign,
    pub quotas: Vec<Quota>,
    pub questions: Vec<CustomQuestion>,
    pub catalog: Vec<ProfilingQuestion>,
}

/// Scope of the one-time key flash.
#[cfg(feature = "ssr")]
const KEY_SCOPE: &str = "survey_api_key";

#[server(prefix = "/fn", endpoint = "survey_overview")]
pub async fn survey_overview() -> Result<SurveysSummary, AppError> {
    super::web::run(async move {
        use crate::domain::{survey_api_keys, surveys::campaigns};
        let (ctx, p) = super::web::reader().await?;
        let session = super::web::session().await?;
        let campaigns = campaigns::list(&ctx, &p).await?.campaigns;
        let key = survey_api_keys::active(&ctx, &p).await?.map(
            |(prefix, encryption_type, created_at)| SurveyKeyInfo {
                prefix,
                encryption_type,
                created_at,
            },
        );
        let issued = super::flash::take_secret(&ctx, &session, KEY_SCOPE).await?;
        Ok(SurveysSummary {
            campaigns,
            key,
            issued,
        })
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_issue_key")]
pub async fn issue_survey_key(
    encryption_type: String,
    csrf: String,
) -> Result<OneTimeSecret, AppError> {
    super::web::run(async move {
        use crate::model::EncryptionType;
        let (ctx, session, p) = super::web::writer(&csrf).await?;
        let kind = match encryption_type.as_str() {
            "SHA1" => EncryptionType::Sha1,
            "SHA256" => EncryptionType::Sha256,
            "SHA3-256" => EncryptionType::Sha3_256,
            _ => {
                return Err(AppError::field(
                    "encryptionType",
                    "must be SHA1, SHA256 or SHA3-256",
                ));
            }
        };
        let issued = crate::domain::survey_api_keys::issue(&ctx, &p, kind).await?;
        let text = format!("X-Api-Key: {}\nSecret: {}", issued.api_key, issued.secret);
        let label = format!("Survey API key ({})", kind.as_str());
        super::flash::put_secret(&ctx, &session, KEY_SCOPE, &label, &text).await?;
        Ok(OneTimeSecret { label, value: text })
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_allocate")]
pub async fn allocate_survey(campaign_id: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = super::web::writer(&csrf).await?;
        crate::domain::billing::allocations::allocate(&ctx, &p, &campaign_id, None).await?;
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_submit")]
pub async fn submit_survey(campaign_id: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        use crate::model::survey::campaign::{SurveyCampaignInput, SurveyStatus};
        let (ctx, _, p) = super::web::writer(&csrf).await?;
        let input = SurveyCampaignInput {
            status: Some(SurveyStatus::PendingApproval),
            ..Default::default()
        };
        crate::domain::surveys::campaigns::update(&ctx, &p, &campaign_id, input).await?;
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_detail")]
pub async fn survey_detail(id: String) -> Result<SurveyEditorData, AppError> {
    super::web::run(async move {
        use crate::domain::surveys::{campaigns, questions, quotas, reference};
        use crate::model::survey::targeting::ProfilingQuery;
        let (ctx, p) = super::web::reader().await?;
        let campaign = campaigns::get(&ctx, &p, &id).await?;
        let catalog = reference::profiling_questions(&ProfilingQuery {
            country_language_id: Some(campaign.country_language_id.clone()),
        })
        .map(|l| l.questions)
        .unwrap_or_default();
        Ok(SurveyEditorData {
            quotas: quotas::list(&ctx, &p, &id).await?.campaign_quotas,
            questions: questions::list(&ctx, &p, &id).await?.custom_questions,
            campaign,
            catalog,
        })
    })
    .await
}

#[server(prefix = "/fn", endpoint = "survey_add_quota")]
pub async fn add_quota(
    campaign_id: String,
    name: String,
    num_respondents: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use crate::model::survey::targeting::QuotaInput;
        let (ctx, _, p) = super::web::writer(&csrf).await?;
        let n = num_respondents
            .trim()
            .parse::<i64>()
            .map_err(|_| AppError::field("num_respondents", "must be a whole number"))?;
        let input = QuotaInput {
            name: Some(name),
            num_respondents: Some(n),
        };
        crate::domain::surveys::quotas::create(&ctx, &p, &campaign_id, input).await?;
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
    super::web::run(async move {
        let (ctx, _, p) = super::web::writer(&csrf).await?;
        crate::domain::surveys::quotas::delete(&ctx, &p, &campaign_id, &quota_id).await?;
        Ok(())
    })
    .await
}

/// `criteria`: answer ids (`1, 2`), ranges (`18-34, 55-64`) or postal-code prefixes,
/// read according to the question's kind.
#[server(prefix = "/fn", endpoint = "survey_add_qualification")]
pub async fn add_qualification(
    campaign_id: String,
    quota_id: String,
    question_id: String,
    criteria: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use crate::domain::surveys::reference;
        use crate::model::survey::targeting::{NumericRange, QualificationInput, QuestionKind};
        let (ctx, _, p) = super::web::writer(&csrf).await?;
        let parts: Vec<String> = criteria
            .split([',', '\n'])
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        let kind = reference::question(&question_id)
            .map(|q| q.kind)
            .unwrap_or(QuestionKind::Single);
        let mut input = QualificationInput {
            question_id: Some(question_id),
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
    super::web::run(async move {
        let (ctx, _, p) = super::web::writer(&csrf).await?;
        let options: Vec<(String, bool)> = options
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| match l.strip_prefix('!') {
                Some(v) => (v.trim().to_owned(), true),
                None => (l.to_owned(), false),
            })
            .collect();
        crate::domain::surveys::questions::create_filled(
            &ctx,
            &p,
            &campaign_id,
            &display_text,
            multi.is_some(),
            &options,
        )
        .await?;
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_survey_stats")]
pub async fn publisher_survey_stats() -> Result<SurveyStats, AppError> {
    super::web::run(async move {
        let (ctx, p) = super::web::reader().await?;
        crate::domain::surveys::stats::by_day(&ctx, &p, 30).await
    })
    .await
}
