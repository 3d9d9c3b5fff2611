//! Development creatives of an offer campaign: whether uploads are on, an upload, the stored
//! creative and the asset check.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::CreativeKind;

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
