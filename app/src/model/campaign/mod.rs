//! Offer campaign wire types: the campaign and its revisions, lifecycle requests, readiness,
//! reports, provider capabilities, tracking setup and development creatives.

use std::collections::BTreeMap;

use crate::model::money::Micros;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

pub mod device_targeting;
pub mod rules;

pub use device_targeting::{MinOsVersion, Platform, Targeting};

wire_enum!(
    /// Offer campaign lifecycle (docs/decisions.md, "Offer campaign states").
    CampaignStatus {
        Draft = "DRAFT", InReview = "IN_REVIEW", Rejected = "REJECTED", Live = "LIVE",
        Paused = "PAUSED", Ended = "ENDED", Archived = "ARCHIVED"
    }
);
wire_enum!(
    /// What a creative is used for in the offerwall.
    CreativeKind { Icon = "ICON", Banner = "BANNER", Screenshot = "SCREENSHOT", Video = "VIDEO" }
);

/// A conversion milestone; `externalGoalId` is what postbacks send as `goal_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GoalInput {
    pub external_goal_id: String,
    pub name: String,
    /// What the advertiser pays per approved conversion, USD micros.
    pub payout_micros: Micros,
    /// Minutes a conversion stays pending before it settles (default 0, at most 43,200).
    #[serde(default)]
    pub pending_minutes: Option<i64>,
}

/// A stored goal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Goal {
    pub external_goal_id: String,
    pub name: String,
    pub payout_micros: Micros,
    pub payout: String,
    pub pending_minutes: i64,
}

/// When the campaign may deliver; both ends optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    #[serde(default)]
    pub start_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub end_at: Option<DateTime<Utc>>,
}

impl Schedule {
    /// Whether the campaign delivers at `now`: started, and its end (exclusive) not reached.
    pub fn delivers_at(&self, now: DateTime<Utc>) -> bool {
        self.start_at.is_none_or(|t| t <= now) && self.end_at.is_none_or(|t| now < t)
    }
}

/// Delivery caps; absent means unlimited (per user defaults to one conversion per goal).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Caps {
    /// Approved conversions per UTC day.
    #[serde(default)]
    pub daily_conversions: Option<i64>,
    /// Approved conversions over the campaign's life.
    #[serde(default)]
    pub total_conversions: Option<i64>,
    /// Conversions per user and goal.
    #[serde(default)]
    pub per_user: Option<i64>,
    /// Spend per UTC day, USD micros.
    #[serde(default)]
    pub daily_budget_micros: Option<Micros>,
}

/// A creative shown with the offer: an HTTPS URL or an uploaded development creative.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreativeRef {
    pub kind: CreativeKind,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub creative_id: Option<String>,
}

/// Create body and PATCH body: on create the required fields are name, destinationUrl,
/// platforms, countries, category, taskType, trackingProvider, budgetMicros and goals; a
/// PATCH replaces only the fields it names.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CampaignInput {
    pub name: Option<String>,
    /// HTTPS URL containing the `{click_id}` macro.
    pub destination_url: Option<String>,
    pub platforms: Option<Vec<Platform>>,
    /// ISO 3166-1 alpha-2 codes.
    pub countries: Option<Vec<String>>,
    /// Upper-case token, e.g. GAMES, FINANCE, SHOPPING.
    pub category: Option<String>,
    /// Upper-case token, e.g. INSTALL, SIGNUP, PURCHASE, LEVEL.
    pub task_type: Option<String>,
    /// CUSTOM_S2S, DIRECT, MANAGED or MMP:<providerCode>; must be selectable.
    pub tracking_provider: Option<String>,
    /// Total budget over the campaign's life, USD micros.
    pub budget_micros: Option<Micros>,
    pub goals: Option<Vec<GoalInput>>,
    pub schedule: Option<Schedule>,
    pub caps: Option<Caps>,
    pub creatives: Option<Vec<CreativeRef>>,
    /// Offer text shown to users (at most 2,000 characters).
    pub description: Option<String>,
    /// Store or landing page users can preview (HTTPS).
    pub preview_url: Option<String>,
    /// Device types, minimum OS versions and regions (replaced whole when sent).
    pub targeting: Option<Targeting>,
    /// Administrators creating on an advertiser's behalf.
    pub advertiser_id: Option<String>,
}

/// A validated campaign configuration: what one revision holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CampaignConfig {
    pub name: String,
    pub destination_url: String,
    pub platforms: Vec<Platform>,
    pub countries: Vec<String>,
    pub category: String,
    pub task_type: String,
    pub tracking_provider: String,
    pub budget_micros: Micros,
    pub goals: Vec<Goal>,
    pub schedule: Schedule,
    pub caps: Caps,
    pub creatives: Vec<CreativeRef>,
    pub description: Option<String>,
    pub preview_url: Option<String>,
    /// Empty (the default) targets every device and region of the campaign's countries.
    #[serde(default)]
    pub targeting: Targeting,
}

/// An offer campaign as the advertiser sees it: the newest revision's configuration plus
/// its lifecycle and money.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Campaign {
    pub campaign_id: String,
    pub advertiser_id: String,
    pub status: CampaignStatus,
    #[serde(flatten)]
    pub config: CampaignConfig,
    pub budget: String,
    /// Money held for the campaign now.
    pub reserved_micros: Micros,
    pub reserved: String,
    /// Money paid for its conversions.
    pub spent_micros: Micros,
    pub spent: String,
    /// The newest revision number.
    pub revision: i64,
    /// The approved revision that delivers (absent until first approval).
    pub live_revision: Option<i64>,
    /// Whether a newer revision than the live one awaits review.
    pub pending_revision: bool,
    pub rejection_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub submitted_at: Option<DateTime<Utc>>,
    pub approved_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
}

/// `{items, count}` of campaigns, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CampaignList {
    pub items: Vec<Campaign>,
    pub count: usize,
}

/// `POST campaigns/{id}/transition`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TransitionRequest {
    pub to: CampaignStatus,
    #[serde(default)]
    pub reason: Option<String>,
}

/// `POST campaigns/{id}/clone`: optional new name (default "Copy of …").
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CloneRequest {
    #[serde(default)]
    pub name: Option<String>,
}

/// Administrator approval. `revision` names the revision the administrator reviewed: when
/// the advertiser has saved a newer one since, the approval is refused (409
/// `revision_changed`) so that nothing unreviewed goes live.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ApproveCampaignRequest {
    #[serde(default)]
    pub revision: Option<i64>,
}

/// One field a pending revision changes against the live one (`field` is a dotted path such
/// as `destinationUrl` or `goals[0].payout`; a missing side means added or removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RevisionChange {
    pub field: String,
    pub live: Option<String>,
    pub pending: Option<String>,
}

/// Administrator rejection.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RejectCampaignRequest {
    pub reason: String,
}

/// Administrator live-test verification of a measurement-partner campaign.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct VerificationRequest {
    #[serde(default)]
    pub note: Option<String>,
}

wire_enum!(
    /// What a readiness reason holds up: SUBMIT (submission), LAUNCH (approval and going
    /// live) or NONE (advice).
    ReadinessBlock { Submit = "SUBMIT", Launch = "LAUNCH", None = "NONE" }
);

/// One thing standing between the campaign and review or delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReadinessReason {
    pub code: String,
    pub message: String,
    pub blocks: ReadinessBlock,
}

/// What blocks submission or launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CampaignReadiness {
    pub campaign_id: String,
    pub status: CampaignStatus,
    pub ready_to_submit: bool,
    pub ready_to_launch: bool,
    pub reasons: Vec<ReadinessReason>,
}

/// One immutable revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CampaignRevision {
    pub revision: i64,
    pub created_at: DateTime<Utc>,
    pub created_by: Option<String>,
    /// Whether this revision is the approved, delivering one.
    pub live: bool,
    pub config: CampaignConfig,
}

/// `{items}` of revisions, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RevisionList {
    pub items: Vec<CampaignRevision>,
}

/// One audit record: who changed what, when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub action: String,
    pub actor_account_id: Option<String>,
    /// Who acted, for people: the account's e-mail, or "Marketplace review" for an
    /// administrator (staff addresses are not shown to customers).
    #[serde(default)]
    pub actor: Option<String>,
    pub at: DateTime<Utc>,
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub detail: serde_json::Value,
}

/// `{items}` of audit records, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AuditList {
    pub items: Vec<AuditEntry>,
}

/// Conversion counts by reported status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ConversionCounts {
    pub pending: i64,
    pub approved: i64,
    pub rejected: i64,
    pub reversed: i64,
}

/// One report row (a day, or the totals when `date` is absent).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReportRow {
    pub date: Option<NaiveDate>,
    pub clicks: i64,
    pub conversions: ConversionCounts,
    pub spend_micros: Micros,
    pub spend: String,
}

/// Campaign report over `[from, to]` (UTC days).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CampaignReport {
    pub campaign_id: String,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub totals: ReportRow,
    pub days: Vec<ReportRow>,
}

/// One tracking provider and what it needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProviderCapability {
    /// Provider code: CUSTOM_S2S, DIRECT, MANAGED or a measurement partner (APPSFLYER, …).
    pub code: String,
    /// CUSTOM_S2S, MMP, DIRECT or MANAGED.
    pub kind: String,
    pub name: String,
    /// The value to put in a campaign's `trackingProvider`.
    pub tracking_provider: String,
    pub enabled: bool,
    pub certified: bool,
    /// Enabled and certified: a campaign may select it.
    pub selectable: bool,
    pub platforms: Vec<Platform>,
    pub events: Vec<String>,
    pub required_macros: Vec<String>,
    /// HMAC_SHA256, CAMPAIGN_TOKEN, DIRECT_TOKEN or MANAGED_TOKEN.
    pub callback_authentication: String,
    pub credential_fields: Vec<String>,
    /// Callback path with `{campaignId}` where the provider has one.
    pub callback_path: String,
    /// Kept for older integrations only.
    pub legacy: bool,
}

/// `GET providers/capabilities`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProviderCapabilities {
    pub contract_version: String,
    pub items: Vec<ProviderCapability>,
}

wire_enum!(
    /// Whether a campaign credential is in use.
    CredentialStatus { Active = "ACTIVE", Retired = "RETIRED" }
);

/// A campaign credential without its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CredentialMeta {
    /// CUSTOM_S2S, MMP, DIRECT or MANAGED.
    pub kind: String,
    pub key_id: String,
    /// ACTIVE or RETIRED.
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub retired_at: Option<DateTime<Utc>>,
}

impl CredentialMeta {
    /// Not retired: it signs or authenticates reports now.
    pub fn is_active(&self) -> bool {
        CredentialStatus::parse(&self.status) == Some(CredentialStatus::Active)
    }
}

/// A newly issued campaign secret or token; `secret`/`token` appear only here, once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CredentialIssued {
    pub campaign_id: String,
    pub kind: String,
    pub key_id: String,
    pub status: String,
    /// Custom S2S signing secret (HMAC-SHA256 key, UTF-8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Measurement-partner, direct or managed token; absent when an existing token is
    /// retrieved (it is shown only when new).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Whether this call created the credential.
    pub created: bool,
    pub created_at: DateTime<Utc>,
    /// Where conversions go.
    pub postback_url: String,
}

/// Where and how conversions are reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TrackingEndpoint {
    pub method: String,
    pub url: String,
    pub also_accepts_get: bool,
}

/// How a Custom S2S conversion is signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SigningRecipe {
    pub algorithm: String,
    pub headers: Vec<String>,
    /// The message is these values joined by "\n", in this order.
    pub message_fields: Vec<String>,
    pub timestamp: String,
    pub max_skew_seconds: i64,
}

/// Live-test verification of a measurement-partner campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MmpVerification {
    pub verified_revision: i64,
    pub verified_at: DateTime<Utc>,
    pub verified_by: String,
    /// Whether it covers the campaign's newest revision.
    pub current: bool,
}

/// Web pixel capability of a campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebPixel {
    /// Only campaigns that run on the web platform can use a pixel.
    pub supported: bool,
    pub pixel_url: String,
    pub html_snippet: String,
}

/// `GET campaigns/{id}/tracking`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TrackingSetup {
    pub campaign_id: String,
    pub tracking_provider: String,
    pub callback_authentication: String,
    pub endpoint: TrackingEndpoint,
    /// Credentials, newest first, without secrets.
    pub credentials: Vec<CredentialMeta>,
    pub required_parameters: Vec<String>,
    pub signing: Option<SigningRecipe>,
    pub ip_allowlist: Vec<String>,
    pub web_pixel: WebPixel,
    pub mmp_verification: Option<MmpVerification>,
}

/// `PUT campaigns/{id}/tracking/ip-allowlist`: IPv4/IPv6 addresses or CIDR ranges; empty
/// means any source.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct IpAllowlist {
    pub entries: Vec<String>,
}

/// `POST tracking/custom-s2s/test`: a sample conversion. Every field is optional; missing
/// ones are filled with a sample. Send `timestamp` and `signature` to check your own signing.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct S2sTestRequest {
    #[serde(default)]
    pub click_id: Option<String>,
    #[serde(default)]
    pub transaction_id: Option<String>,
    #[serde(default)]
    pub goal_id: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub occurred_at: Option<String>,
    #[serde(default)]
    pub timestamp: Option<String>,
    #[serde(default)]
    pub signature: Option<String>,
}

/// One check of the local S2S test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TestCheck {
    pub name: String,
    pub ok: bool,
    pub message: String,
}

/// The exact request the service would accept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SampleRequest {
    pub method: String,
    pub url: String,
    pub headers: BTreeMap<String, String>,
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub body: serde_json::Value,
}

/// Result of the local S2S test: nothing is delivered, nothing is accounted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct S2sTestResult {
    pub valid: bool,
    pub checks: Vec<TestCheck>,
    pub delivered_externally: bool,
    pub accounting_writes: i64,
    /// The newline-joined message that is signed.
    pub signed_message: String,
    pub request: SampleRequest,
}

/// `GET upload-capability`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UploadCapability {
    pub enabled: bool,
    pub development_only: bool,
    pub max_bytes: i64,
    pub content_types: Vec<String>,
}

/// `POST assets/{assetId}/creatives` (development only): the file as base64.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreativeUpload {
    pub name: String,
    pub content_type: String,
    pub data_base64: String,
}

/// An uploaded creative.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Creative {
    pub creative_id: String,
    /// The offer campaign the creative belongs to.
    pub asset_id: String,
    pub name: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub sha256: String,
    pub content_url: String,
    pub created_at: DateTime<Utc>,
}

/// `{items}` of creatives.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CreativeList {
    pub items: Vec<Creative>,
}

/// `POST campaigns/validate-asset`: an HTTPS URL or an uploaded creative id.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ValidateAssetRequest {
    #[serde(default)]
    pub kind: Option<CreativeKind>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub creative_id: Option<String>,
}

/// Whether an asset can be used in a campaign, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AssetValidation {
    pub valid: bool,
    pub reasons: Vec<String>,
    pub content_type: Option<String>,
}
