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
pub mod targeting;

/// The active survey API key (its first characters only).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SurveyKeyInfo {
    pub prefix: String,
    pub encryption_type: String,
    pub created_at: DateTime<Utc>,
}

/// The advertiser's survey page: one page of campaigns (newest first, 50 at most).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SurveysSummary {
    pub campaigns: Vec<SurveyCampaign>,
    /// The cursor of the next (older) page.
    pub next_cursor: Option<String>,
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

/// The key and a page of campaigns matching `name` (part of it, any case) and `status`
/// (one status, or empty for all), through the signed API's `searchcampaigns`.
#[server(prefix = "/fn", endpoint = "survey_overview")]
pub async fn survey_overview(
    name: Option<String>,
    status: Option<String>,
    cursor: Option<String>,
) -> Result<SurveysSummary, AppError> {
    super::web::run(async move {
        use crate::domain::{survey_api_keys, surveys::search};
        use crate::model::survey::campaign::SurveyStatus;
        use crate::model::survey::targeting::SurveySearch;
        let (ctx, p) = super::web::reader().await?;
        let session = super::web::session().await?;
        let status = match status.as_deref().filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(vec![SurveyStatus::parse(s).ok_or_else(|| {
                AppError::field("status", "must be a survey campaign status")
            })?]),
        };
        let query = SurveySearch {
            status,
            name,
            limit: Some(50),
            cursor: cursor.filter(|c| !c.is_empty()),
            ..Default::default()
        };
        let page = search::search(&ctx, &p, query).await?;
        let key = survey_api_keys::active(&ctx, &p).await?.map(
            |(prefix, encryption_type, created_at)| SurveyKeyInfo {
                prefix,
                encryption_type,
                created_at,
            },
        );
        let issued = super::flash::take_secret(&ctx, &session, KEY_SCOPE).await?;
        Ok(SurveysSummary {
            campaigns: page.campaigns,
            next_cursor: page.next_cursor,
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
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::surveys::allocations::allocate(&ctx, &p, &campaign_id, None).await?;
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

#[server(prefix = "/fn", endpoint = "publisher_survey_stats")]
pub async fn publisher_survey_stats() -> Result<SurveyStats, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::surveys::stats::by_day(&ctx, &p, 30).await
    })
    .await
}
