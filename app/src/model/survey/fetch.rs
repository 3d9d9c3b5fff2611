//! Wire types of the publisher survey fetch (`POST /getallsurveys-api`), PascalCase as the
//! specification shows.

use std::collections::BTreeMap;

use crate::model::money::Micros;
use serde::{Deserialize, Serialize};

/// One profiling response: a catalog question and the answer ids chosen.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProfilingResponse {
    pub question_id: String,
    pub answer_ids: Vec<String>,
}

/// Profiling answers of one partner catalog and locale.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PublisherProfiling {
    pub partner_code: String,
    pub country_language_code: String,
    pub responses: Vec<ProfilingResponse>,
}

/// Body of `POST /getallsurveys-api` (documentation shape; the server reads it field by
/// field so every problem is reported in `fieldErrors`). `publisherProfiling`,
/// `ProfilingResponses` and `profilingResponses` are accepted for `PublisherProfiling`.
/// `Device` (desktop, mobile or tablet) is optional; when sent, surveys that do not support
/// the device are left out.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct SurveyFetchRequest {
    pub UserId: String,
    pub AppId: String,
    pub IpAddress: String,
    pub City: String,
    pub CountryLanguageCode: String,
    pub DateOfBirth: Option<String>,
    pub Gender: Option<String>,
    pub ZipCode: Option<String>,
    pub gps_id: Option<String>,
    pub Device: Option<String>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub PublisherProfiling: Option<Vec<PublisherProfiling>>,
}

/// Supplier metadata of a survey item.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct SurveyMeta {
    pub SurveyName: String,
    #[cfg_attr(feature = "ssr", schema(value_type = f64))]
    pub BidLengthOfInterview: super::campaign::Hundredths,
    pub BidIncidence: Option<i64>,
    pub CountryLanguageCode: String,
    pub ResearchCategory: Option<String>,
}

/// One survey offered to the respondent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct SurveyItem {
    pub SurveyNumber: String,
    /// Hosted entry link; redirect the respondent to it unmodified.
    pub SurveyUrl: String,
    /// In the placement's virtual currency (its slot's currency and rounding).
    #[cfg_attr(feature = "ssr", schema(value_type = f64))]
    pub Reward: serde_json::Number,
    /// Minutes (a number).
    #[cfg_attr(feature = "ssr", schema(value_type = f64))]
    pub LOI: super::campaign::Hundredths,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub MatchingPercentage: Option<i64>,
    pub vc_name: String,
    /// Internal slug; never use it for traffic.
    pub Link: String,
    pub ProvidedBy: String,
    /// The respondent's reward in USD before conversion.
    #[cfg_attr(feature = "ssr", schema(value_type = f64))]
    pub CPI: serde_json::Number,
    pub Survey: SurveyMeta,
}

/// The survey fetch envelope, always complete: `ErrorCode` SUCCESS, INVALID_PROFILE,
/// COUNTRY_LANGUAGE_UNSUPPORTED, FRAUD_BLOCKED, NOT_FOUND, UNAUTHORIZED or FORBIDDEN.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[allow(non_snake_case)]
pub struct SurveyEnvelope {
    pub Errors: Vec<String>,
    pub Info: Vec<String>,
    pub ErrorCode: String,
    pub Data: Vec<SurveyItem>,
    /// Field-level problems of the profile (field name → why).
    pub fieldErrors: BTreeMap<String, String>,
}

/// One day of a publisher's survey traffic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SurveyDay {
    /// YYYY-MM-DD (UTC).
    pub date: String,
    pub fetches: i64,
    pub entries: i64,
    pub completes: i64,
    pub earnings_micros: Micros,
    pub earnings: String,
}

/// A publisher's survey traffic by day, newest first, with totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SurveyStats {
    pub from: String,
    pub to: String,
    pub days: Vec<SurveyDay>,
    pub fetches: i64,
    pub entries: i64,
    pub completes: i64,
    pub earnings_micros: Micros,
    pub earnings: String,
}
