//! Wire types of the delivery surfaces: SDK sessions, offers, impressions, launches, reward
//! status and SDK support cases; conversion callbacks; the publisher offers report.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use super::publisher::{Currency, SlotState, SlotType};
use crate::model::money::Micros;

wire_enum!(
    /// Where an SDK session runs: `sandbox` (test offers), `development` or `production`.
    SessionEnvironment { Sandbox = "sandbox", Development = "development", Production = "production" }
);
wire_enum!(
    /// Where a user's reward stands in the reward-status view.
    RewardState { Pending = "PENDING", Earned = "EARNED", Rejected = "REJECTED", Reversed = "REVERSED" }
);

/// `contractVersion` of session, offer list, static feed and reward-status responses.
pub const CONTRACT_VERSION: &str = "2.0.0";

/// `POST /sdk/v2/sessions`. Every field is optional here so that a missing one is reported
/// in `fieldErrors` rather than as a parse failure.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreateSession {
    pub placement_id: Option<String>,
    pub ad_slot_id: Option<String>,
    pub external_user_id: Option<String>,
    /// android, ios or web.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<crate::model::campaign::Platform>))]
    pub platform: Option<String>,
    pub sdk_version: Option<String>,
    pub package_bundle_or_domain: Option<String>,
    /// sandbox, development or production.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<SessionEnvironment>))]
    pub environment: Option<String>,
    /// GRANTED, DENIED, UNKNOWN or NOT_REQUIRED.
    pub consent: Option<String>,
    pub att_status: Option<String>,
    /// The publisher server's signature of `externalUserId` (hex HMAC-SHA256 with the
    /// placement's user identity secret; see docs/web-sdk.md, "Signed user identity").
    pub user_signature: Option<String>,
    /// When `userSignature` expires (Unix seconds, at most 30 days ahead).
    pub user_signature_expires_at: Option<i64>,
    /// The user's language (BCP 47, e.g. `de`, `pt-BR`, `ar`): the hosted wall speaks it
    /// when it can (en, de, es, fr, pt-BR, ja, ar), else the browser's `Accept-Language`.
    #[cfg_attr(feature = "ssr", schema(example = "de", max_length = 35))]
    pub lang: Option<String>,
    /// A stable id of the user's device where the platform permits it (an advertising id,
    /// an install id): one device claiming many users is a fraud signal (docs/fraud.md).
    #[cfg_attr(feature = "ssr", schema(max_length = 128))]
    pub device_id: Option<String>,
}

/// A slot a session may use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionSlot {
    pub ad_slot_id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub slot_type: SlotType,
    pub state: SlotState,
    pub currency: Currency,
}

/// What the session may do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionCapabilities {
    pub offerwall: bool,
    pub offer_api: bool,
    pub reward_status: bool,
    pub support: bool,
    /// Evidence upload on support cases (development only).
    pub evidence_upload: bool,
    pub hosted_offerwall: bool,
}

/// A user-bound SDK session. `token` is present only in the responses that issue it
/// (creation and refresh); it is stored only as a hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SdkSession {
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[cfg_attr(feature = "ssr", schema(value_type = crate::model::account::TokenType))]
    pub token_type: String,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub contract_version: String,
    pub placement_id: String,
    pub ad_slot_id: Option<String>,
    pub external_user_id: String,
    #[cfg_attr(feature = "ssr", schema(value_type = crate::model::campaign::Platform))]
    pub platform: String,
    #[cfg_attr(feature = "ssr", schema(value_type = SessionEnvironment))]
    pub environment: String,
    pub consent: String,
    pub ad_slots: Vec<SessionSlot>,
    pub capabilities: SessionCapabilities,
    /// Carries the token: keep it server-side or inside the app.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hosted_offerwall_url: Option<String>,
    /// The `lang` the session was created with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

/// One goal of an offer, with the user's reward in the slot currency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferGoal {
    /// The campaign's external goal id.
    pub id: String,
    pub name: String,
    /// Reward in currency units (display number; `rewardMinorUnits` is exact).
    pub reward: f64,
    pub reward_minor_units: i64,
    pub pending_minutes: i64,
    /// Time the user has to complete the goal after launching, in hours.
    pub completion_window_hours: i64,
}

/// Whether an offer can be launched now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Availability {
    pub status: AvailabilityStatus,
    pub reservation_required: bool,
}

wire_enum!(
    /// AVAILABLE, or COMPLETED once the user has converted every goal.
    AvailabilityStatus { Available = "AVAILABLE", Completed = "COMPLETED" }
);

/// An offer for one user (SDK) or one slot (static feed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferItem {
    pub campaign_id: String,
    pub title: String,
    /// Must be shown before launch.
    pub requirements: String,
    pub disclaimer: String,
    pub category: String,
    pub task_type: String,
    pub image_urls: Vec<String>,
    pub goals: Vec<OfferGoal>,
    pub total_reward: f64,
    pub total_reward_minor_units: i64,
    pub currency: Currency,
    pub attribution_window_hours: i64,
    pub creative_revision_id: String,
    pub availability: Availability,
    /// Static feed only: the campaign's name as a headline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headline: Option<String>,
    /// Static feed only: the campaign's offer text (absent when it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Static feed only: a button label from the task type (Install, Sign up, Buy, Play…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_to_action: Option<String>,
    /// Static feed only: the campaign's creatives with their kind (icons, banners,
    /// screenshots, videos). Goal windows are on each goal.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub artwork: Option<Vec<Artwork>>,
    /// Static feed only: where the SDK records an impression and launches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impression_endpoint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch_endpoint: Option<String>,
}

/// One creative of a static feed item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Artwork {
    pub kind: crate::model::campaign::CreativeKind,
    pub url: String,
}

/// Paging of the offer list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub next_cursor: Option<String>,
    pub limit: u32,
}

/// Cache advice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CacheAdvice {
    pub max_age_seconds: u32,
}

/// Where an offer list was computed for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferContext {
    pub placement_id: String,
    pub ad_slot_id: String,
    pub slot_type: SlotType,
    #[cfg_attr(feature = "ssr", schema(value_type = crate::model::campaign::Platform))]
    pub platform: String,
    pub country: Option<String>,
    pub currency: Currency,
}

/// `GET /sdk/v2/ad-slots/{adSlotId}/offers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferList {
    pub items: Vec<OfferItem>,
    pub page: Page,
    pub cache: CacheAdvice,
    pub contract_version: String,
    pub context: OfferContext,
}

/// Query of the offer list (all optional).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct OfferListQuery {
    /// Two uppercase letters.
    pub country: Option<String>,
    /// ISO 3166-2 subdivision (`CA` or `US-CA`); needs `country`.
    pub state_code: Option<String>,
    /// phone, tablet, desktop (web sessions only), tv or other.
    pub device_type: Option<String>,
    /// At most 64 letters, digits, spaces and `. - _ & ( ) +`.
    pub device_manufacturer: Option<String>,
    /// Dotted numbers, e.g. `14` or `16.4.1`; compared with a campaign's minimum.
    pub os_version: Option<String>,
    /// chrome, safari, firefox, edge, samsung, opera, webview or other.
    pub browser: Option<String>,
    /// Dotted numbers; needs `browser`.
    pub browser_version: Option<String>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
    /// 1 to 100; default 20.
    #[cfg_attr(feature = "ssr", param(minimum = 1, maximum = 100))]
    pub limit: Option<u32>,
}

/// `GET /publisher/v2/ad-slots/{adSlotId}/static-offers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StaticFeed {
    /// At most 100 offers.
    pub items: Vec<OfferItem>,
    pub generated_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// Also sent as the ETag header; send it back in If-None-Match.
    pub etag: String,
    pub cache: CacheAdvice,
    pub contract_version: String,
}

/// An impression receipt (valid for launching for ten minutes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImpressionReceipt {
    pub impression_id: String,
    pub offer_id: String,
    pub recorded_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// True for a replay of the same Idempotency-Key or a repeated showing of the offer in
    /// this session within the impression lifetime (counted once in reports).
    pub duplicate: bool,
}

/// Body of an impression (needed only when the session is not bound to a slot and the
/// placement has more than one SDK slot).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImpressionRequest {
    pub ad_slot_id: Option<String>,
}

/// `POST /sdk/v2/offers/{offerId}/launch`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LaunchRequest {
    pub impression_id: Option<String>,
}

/// A signed launch: open `launchUrl` (valid five minutes); it redirects to the advertiser
/// with `clickId` in place of `{click_id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SignedLaunch {
    pub session_id: String,
    pub trace_id: String,
    pub launch_url: String,
    pub expires_at: DateTime<Utc>,
    pub offer_id: String,
    pub click_id: String,
    /// True when an earlier launch with the same Idempotency-Key was returned.
    pub duplicate: bool,
}

/// One conversion of the session's user, as progress (not final credit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewardStatusItem {
    pub offer_id: String,
    pub goal_id: String,
    /// PENDING, EARNED, REJECTED or REVERSED.
    #[cfg_attr(feature = "ssr", schema(value_type = RewardState))]
    pub status: String,
    pub reward_minor_units: i64,
    pub currency: String,
    pub occurred_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Sums over the items, in minor units of the slot currency.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewardTotals {
    pub pending_minor_units: i64,
    pub earned_minor_units: i64,
    pub reversed_minor_units: i64,
}

/// `GET /sdk/v2/reward-status` (and `/{offerId}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewardStatus {
    pub items: Vec<RewardStatusItem>,
    pub totals: RewardTotals,
    pub generated_at: DateTime<Utc>,
    pub contract_version: String,
}

/// `POST /sdk/v2/support`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SdkSupportRequest {
    pub session_id: Option<String>,
    pub reason_code: Option<String>,
    pub message: Option<String>,
    /// The offer the case is about, if any.
    pub offer_id: Option<String>,
}

pub use super::postbacks::{CallbackReceipt, ConversionEvent};

/// Query of `GET /publisher/v2/reports/offers`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct OffersReportQuery {
    /// First day (UTC, inclusive); default 29 days before `to`.
    pub from: Option<NaiveDate>,
    /// Last day (UTC, inclusive); default today. At most 92 days in all.
    pub to: Option<NaiveDate>,
    pub placement_id: Option<String>,
    pub ad_slot_id: Option<String>,
    /// `json` (default) or `csv`.
    #[cfg_attr(feature = "ssr", param(value_type = Option<crate::model::report::ExportFormat>, inline))]
    pub format: Option<String>,
}

/// One day and offer of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OffersReportRow {
    pub date: NaiveDate,
    pub offer_id: String,
    pub offer_name: String,
    pub impressions: i64,
    pub clicks: i64,
    /// Approved conversions.
    pub conversions: i64,
    pub reversals: i64,
    /// Publisher earnings net of reversals.
    pub earnings_micros: Micros,
    pub earnings: String,
}

/// Sums over the rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OffersReportTotals {
    pub impressions: i64,
    pub clicks: i64,
    pub conversions: i64,
    pub reversals: i64,
    pub earnings_micros: Micros,
    pub earnings: String,
}

/// `GET /publisher/v2/reports/offers`: rows by day and offer, newest day first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OffersReport {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub placement_id: Option<String>,
    pub ad_slot_id: Option<String>,
    pub rows: Vec<OffersReportRow>,
    pub totals: OffersReportTotals,
}

impl OffersReport {
    /// The CSV export (RFC 4180; header line first).
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "date,offer_id,offer_name,impressions,clicks,conversions,reversals,earnings_micros,earnings\r\n",
        );
        for r in &self.rows {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{}\r\n",
                r.date,
                csv_field(&r.offer_id),
                csv_field(&r.offer_name),
                r.impressions,
                r.clicks,
                r.conversions,
                r.reversals,
                r.earnings_micros.get(),
                r.earnings
            ));
        }
        out
    }
}

/// The first characters that make a spreadsheet read a cell as a formula (OWASP's list: `=`
/// `+` `-` `@`, a tab and a carriage return, and the full-width forms some spreadsheets
/// also take).
const FORMULA_STARTS: [char; 10] = ['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠'];

/// Quotes a CSV field when needed; a leading formula character is neutralised so a
/// spreadsheet never evaluates an advertiser-supplied name.
pub fn csv_field(v: &str) -> String {
    let v = if v.starts_with(FORMULA_STARTS) {
        format!("'{v}")
    } else {
        v.to_owned()
    };
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_neutralises_formulas() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(csv_field("\t=1+1"), "'\t=1+1");
        assert_eq!(csv_field("\r=1+1"), "\"'\r=1+1\"");
        assert_eq!(csv_field("＝SUM(A1)"), "'＝SUM(A1)");
        assert_eq!(csv_field("＠cmd"), "'＠cmd");
        assert_eq!(csv_field("a-b"), "a-b");
    }
}
