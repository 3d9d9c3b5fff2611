//! Offer campaign wire types: the campaign and its revisions, lifecycle requests, readiness
//! and reports; provider capabilities and tracking setup (`tracking`) and development
//! creatives (`creatives`) in their own files.

use crate::model::money::Micros;
use chrono::{DateTime, NaiveDate, Utc};
pub use entity::values::CampaignStatus;
use serde::{Deserialize, Serialize};

pub mod conversions;
pub mod creatives;
pub mod device_targeting;
mod parts;
pub mod reconciliation;
pub mod rules;
pub mod tracking;
pub mod translations;

pub use creatives::*;
pub use device_targeting::{MinOsVersion, Platform, Targeting};
pub use tracking::*;

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
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 100>"
    )]
    pub platforms: Option<Vec<Platform>>,
    /// ISO 3166-1 alpha-2 codes.
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub countries: Option<Vec<String>>,
    /// Upper-case token, e.g. GAMES, FINANCE, SHOPPING.
    pub category: Option<String>,
    /// Upper-case token, e.g. INSTALL, SIGNUP, PURCHASE, LEVEL.
    pub task_type: Option<String>,
    /// CUSTOM_S2S, DIRECT, MANAGED or MMP:<providerCode>; must be selectable.
    pub tracking_provider: Option<String>,
    /// Total budget over the campaign's life, USD micros.
    pub budget_micros: Option<Micros>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub goals: Option<Vec<GoalInput>>,
    pub schedule: Option<Schedule>,
    pub caps: Option<Caps>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub creatives: Option<Vec<CreativeRef>>,
    /// Offer text shown to users (at most 2,000 characters).
    pub description: Option<String>,
    /// Store or landing page users can preview (HTTPS).
    pub preview_url: Option<String>,
    /// Device types, minimum OS versions and regions (replaced whole when sent).
    pub targeting: Option<Targeting>,
    /// Administrators creating on an advertiser's behalf.
    pub advertiser_id: Option<String>,
    /// The offer's texts in other languages of the hosted wall, by tag (de, es, fr,
    /// pt-BR, ja, ar, en); replaced whole when sent.
    pub translations: Option<translations::Translations>,
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
    /// The offer's texts in other languages (empty: shown as given everywhere).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub translations: translations::Translations,
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
    /// Pass as `cursor` for the next (older) page; null on the last page (and on the review
    /// queue, which is never paged).
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
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

/// `{items, nextCursor}` of revisions, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RevisionList {
    pub items: Vec<CampaignRevision>,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
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

/// `{items, nextCursor}` of audit records, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AuditList {
    pub items: Vec<AuditEntry>,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
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
