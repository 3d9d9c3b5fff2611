//! Publisher operations wire types: blacklists, user bans and support cases.

use crate::model::money::Micros;
use chrono::{DateTime, Utc};
pub use entity::values::{BanStatus, BlacklistKind, SupportStatus};
use serde::{Deserialize, Serialize};

/// `POST /publisher/v2/blacklists`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreateBlacklist {
    pub kind: BlacklistKind,
    pub value: String,
    /// Limit the entry to one placement; absent applies to all of the publisher's placements.
    #[serde(default)]
    pub placement_id: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

/// A blacklist entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Blacklist {
    pub blacklist_id: String,
    pub kind: BlacklistKind,
    pub value: String,
    pub placement_id: Option<String>,
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// `{items, count}` of blacklist entries.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BlacklistList {
    pub items: Vec<Blacklist>,
    pub count: usize,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
}

/// `POST /publisher/v2/user-bans`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreateUserBan {
    pub placement_id: String,
    pub external_user_id: String,
    pub reason: String,
    /// Absent: until lifted.
    #[serde(default)]
    pub expires_at: Option<DateTime<Utc>>,
}

/// `PATCH /publisher/v2/user-bans/{banId}`: lift (`LIFTED`) or reinstate (`ACTIVE`), change
/// the reason or the expiry (`null` removes it).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PatchUserBan {
    pub status: Option<BanStatus>,
    pub reason: Option<String>,
    #[serde(
        default,
        deserialize_with = "crate::model::publisher::ops::double_option"
    )]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<DateTime<Utc>>))]
    pub expires_at: Option<Option<DateTime<Utc>>>,
}

pub(crate) fn double_option<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A user ban. `effective` is false once lifted or expired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserBan {
    pub ban_id: String,
    pub placement_id: String,
    pub external_user_id: String,
    pub reason: String,
    pub status: BanStatus,
    pub effective: bool,
    pub expires_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// `{items, count}` of bans.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct UserBanList {
    pub items: Vec<UserBan>,
    pub count: usize,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
}

/// A support case as the publisher sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SupportCase {
    pub support_case_id: String,
    pub placement_id: String,
    pub ad_slot_id: Option<String>,
    pub session_id: String,
    pub external_user_id: String,
    pub offer_id: Option<String>,
    pub reason_code: String,
    pub message: String,
    pub status: SupportStatus,
    pub publisher_note: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Files the user attached (development only); the content is downloaded separately.
    #[serde(default)]
    pub evidence: Vec<SupportEvidence>,
}

/// A file attached to a support case: the answer of
/// `POST /sdk/v2/support/{supportCaseId}/evidence` and an entry of a case's `evidence`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SupportEvidence {
    pub evidence_id: String,
    pub support_case_id: String,
    /// The name the browser sent, if any (display only).
    pub file_name: Option<String>,
    /// Detected from the content: image/png, image/jpeg, image/gif, image/webp or
    /// application/pdf.
    pub content_type: String,
    pub byte_size: i64,
    /// SHA-256 of the content, hex.
    pub sha256: String,
    pub created_at: DateTime<Utc>,
    /// True when this answer replays an earlier upload with the same Idempotency-Key.
    #[serde(default)]
    pub duplicate: bool,
}

/// `{items, count}` of support cases.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SupportCaseList {
    pub items: Vec<SupportCase>,
    pub count: usize,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
}

/// `PATCH /publisher/v2/support-cases/{supportCaseId}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PatchSupportCase {
    pub status: Option<SupportStatus>,
    /// A note to the user (shown in the SDK) or for the team; at most 2,000 characters.
    pub publisher_note: Option<String>,
}

/// One goal of a gallery offer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GalleryGoal {
    pub external_goal_id: String,
    pub name: String,
    /// What the advertiser pays per approved conversion (gross, USD micros).
    pub payout_micros: Micros,
    pub payout: String,
}

/// A live offer the publisher's users could be shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct GalleryOffer {
    pub campaign_id: String,
    pub name: String,
    pub category: String,
    pub task_type: String,
    pub platforms: Vec<String>,
    pub countries: Vec<String>,
    pub description: Option<String>,
    pub preview_url: Option<String>,
    pub goals: Vec<GalleryGoal>,
    /// Sum of the goals' payouts (gross, USD micros).
    pub total_payout_micros: Micros,
    pub total_payout: String,
}

/// `GET /publisher/v2/offer-gallery`: `{items, count, nextCursor}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct OfferGallery {
    pub items: Vec<GalleryOffer>,
    /// Offers on this page.
    pub count: usize,
    /// Pass as `cursor` for the next page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
}
