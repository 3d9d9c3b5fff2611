//! Survey campaign API wire types (`/api/v1/campaigns`, snake_case as the specification
//! shows) and wallet allocations for survey campaigns.

use chrono::{DateTime, NaiveDate, Utc};
pub use entity::values::{PaymentStatus, SurveyStatus};
use serde::{Deserialize, Deserializer, Serialize};

use crate::model::money::Micros;
use crate::model::money::parse_decimal;

wire_enum!(
    /// Where a wallet allocation stands: RESERVED, held for the campaign's completes.
    AllocationStatus { Reserved = "RESERVED" }
);
wire_enum!(
    /// What a wallet allocation funds.
    AllocationTarget { Survey = "SURVEY" }
);

/// A number the specification gives as `number` that is never money (minutes of interview,
/// a completion percentage), kept to two decimal places: stored and compared as whole
/// hundredths, read and written as a JSON number (`7.5`, `40`). Inputs with more decimals
/// are rounded to the nearest hundredth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hundredths(pub i64);

impl Hundredths {
    /// The value rounded to a whole number (for integer fields such as the fetch's
    /// `MatchingPercentage`).
    pub fn rounded(self) -> i64 {
        (self.0 + 50).div_euclid(100)
    }
}

impl Serialize for Hundredths {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 % 100 == 0 {
            s.serialize_i64(self.0 / 100)
        } else {
            s.serialize_f64(self.0 as f64 / 100.0)
        }
    }
}

impl<'de> Deserialize<'de> for Hundredths {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        let h = (v * 100.0).round();
        if !h.is_finite() || h.abs() > 1e15 {
            return Err(serde::de::Error::custom("must be a finite number"));
        }
        Ok(Self(h as i64))
    }
}

#[cfg(feature = "ssr")]
impl utoipa::PartialSchema for Hundredths {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Number)
            .description(Some(
                "A number with at most two decimal places (more are rounded).",
            ))
            .into()
    }
}

#[cfg(feature = "ssr")]
impl utoipa::ToSchema for Hundredths {}

/// A USD amount given as a JSON number or string (`2.5`, `"2.50"`), converted to micros from
/// its decimal text, never through floating-point arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ssr", schema(value_type = f64))]
pub struct UsdDecimal(pub i64);

impl<'de> Deserialize<'de> for UsdDecimal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = match serde_json::Value::deserialize(d)? {
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::String(s) => s,
            _ => return Err(serde::de::Error::custom("must be a decimal amount")),
        };
        parse_decimal(&text)
            .map(UsdDecimal)
            .map_err(serde::de::Error::custom)
    }
}

/// Create and update body. On create `name` (at least four characters),
/// `country_language_id`, `survey_live_link` and `survey_test_link` are required; an update
/// changes only the fields it names. `status: "PENDINGAPPROVAL"` submits a draft for
/// approval; `"DRAFT"` withdraws it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SurveyCampaignInput {
    pub name: Option<String>,
    pub country_language_id: Option<String>,
    /// Cost per completed interview, USD.
    pub cpi: Option<UsdDecimal>,
    /// Expected minutes (a number above 0, at most 240; two decimals kept).
    pub length_of_interview: Option<Hundredths>,
    /// Expected completion percentage (above 0, at most 100; two decimals kept).
    pub conversion: Option<Hundredths>,
    pub start_date: Option<NaiveDate>,
    pub end_date: Option<NaiveDate>,
    /// Must contain `{transaction_id}`.
    pub survey_live_link: Option<String>,
    /// Must contain `{transaction_id}`.
    pub survey_test_link: Option<String>,
    pub max_daily_completes: Option<i64>,
    /// Extension: completes wanted in total. Without it the campaign plans the total of its
    /// quotas' `num_respondents`; paying fixes the plan into this field.
    pub total_completes: Option<i64>,
    /// desktop, mobile, tablet.
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub supported_devices: Option<Vec<String>>,
    pub research_category: Option<String>,
    pub research_industry: Option<String>,
    pub campaign_manager: Option<String>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub tags: Option<Vec<String>>,
    pub status: Option<SurveyStatus>,
}

/// A survey campaign as the survey API returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SurveyCampaign {
    pub _id: String,
    pub advertiser_id: String,
    pub name: String,
    pub status: SurveyStatus,
    pub payment_status: PaymentStatus,
    pub country_language_id: String,
    pub cpi_micros: Option<Micros>,
    pub cpi: Option<String>,
    pub length_of_interview: Option<Hundredths>,
    pub conversion: Option<Hundredths>,
    pub start_date: Option<NaiveDate>,
    pub end_date: Option<NaiveDate>,
    pub survey_live_link: String,
    pub survey_test_link: String,
    pub max_daily_completes: Option<i64>,
    pub total_completes: Option<i64>,
    /// Completes the cost is for: `total_completes` when set, else the quotas' total.
    pub planned_completes: Option<i64>,
    /// Incremented by every edit; administrators approve a named revision.
    pub revision: i64,
    /// cpi × planned_completes: what paying reserves.
    pub estimated_cost_micros: Micros,
    pub estimated_cost: String,
    pub supported_devices: Vec<String>,
    pub research_category: Option<String>,
    pub research_industry: Option<String>,
    pub campaign_manager: Option<String>,
    pub tags: Vec<String>,
    /// Why an administrator sent the campaign back to DRAFT; absent otherwise (and once it is
    /// submitted again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejection_reason: Option<String>,
    pub test_redirect_url: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// `{_id, name}` of a created campaign.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CampaignRef {
    pub _id: String,
    pub name: String,
}

/// `{_id, test_redirect_url}` of the creating advertiser.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CreatorRef {
    pub _id: String,
    pub test_redirect_url: String,
}

/// 201 response of `POST /create`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SurveyCreated {
    pub message: String,
    pub campaign: CampaignRef,
    pub creator: CreatorRef,
}

/// `GET /getcampaigns`: `{campaigns, count, next_cursor}`, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SurveyCampaignList {
    pub campaigns: Vec<SurveyCampaign>,
    /// Campaigns in this answer.
    pub count: usize,
    /// Set when more campaigns follow: `getcampaigns` answers the 500 newest, and
    /// `POST /searchcampaigns` with `{"cursor": next_cursor}` goes on in the same order (the
    /// signed GET takes no query parameter). On the administrator's queue, pass it as
    /// `cursor`. Null on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// `{message}` of a deletion.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SurveyMessage {
    pub message: String,
}

/// A payment of a survey campaign from the shared wallet (its estimated cost is reserved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Allocation {
    pub allocation_id: String,
    pub advertiser_id: String,
    pub campaign_id: String,
    /// SURVEY.
    #[cfg_attr(feature = "ssr", schema(value_type = AllocationTarget))]
    pub campaign_type: String,
    pub amount_micros: Micros,
    pub amount: String,
    pub currency: String,
    /// RESERVED: held for the campaign's completes.
    #[cfg_attr(feature = "ssr", schema(value_type = AllocationStatus))]
    pub status: String,
    pub created_at: DateTime<Utc>,
}

/// `{items}` of allocations, newest first (100 a page unless `limit` says otherwise).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AllocationList {
    pub items: Vec<Allocation>,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
}
