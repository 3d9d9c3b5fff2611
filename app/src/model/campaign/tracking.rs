//! Tracking wire types of an offer campaign: what each provider needs, its credentials, the
//! tracking setup page, the IP allowlist and the local Custom S2S test.

pub use entity::values::{CredentialStatus, TrackingKind};

/// How a campaign with this normalised `trackingProvider` value authenticates its
/// conversions (`MMP:<code>` and any other partner value: a campaign token).
pub fn kind_of(tracking_provider: &str) -> TrackingKind {
    match tracking_provider {
        "CUSTOM_S2S" => TrackingKind::CustomS2s,
        "DIRECT" => TrackingKind::Direct,
        "MANAGED" => TrackingKind::Managed,
        _ => TrackingKind::Mmp,
    }
}
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Platform;

/// One tracking provider and what it needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProviderCapability {
    /// Provider code: CUSTOM_S2S, DIRECT, MANAGED or a measurement partner (APPSFLYER, …).
    pub code: String,
    /// CUSTOM_S2S, MMP, DIRECT or MANAGED.
    pub kind: TrackingKind,
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

/// A campaign credential without its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CredentialMeta {
    /// CUSTOM_S2S, MMP, DIRECT or MANAGED.
    pub kind: TrackingKind,
    pub key_id: String,
    /// ACTIVE or RETIRED.
    pub status: CredentialStatus,
    pub created_at: DateTime<Utc>,
    pub retired_at: Option<DateTime<Utc>>,
}

impl CredentialMeta {
    /// Not retired: it signs or authenticates reports now.
    pub fn is_active(&self) -> bool {
        self.status == CredentialStatus::Active
    }
}

/// A newly issued campaign secret or token; `secret`/`token` appear only here, once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CredentialIssued {
    pub campaign_id: String,
    pub kind: TrackingKind,
    pub key_id: String,
    pub status: CredentialStatus,
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

wire_enum!(
    /// How much a report of a tracking method proves (docs/postbacks.md, "Trust levels").
    /// SIGNED: each report carries an HMAC of its values made with the campaign's secret
    /// (Custom S2S); nobody without the secret can report. TOKEN: the campaign's token
    /// authenticates the reporter (measurement partners, DIRECT, MANAGED), but not each
    /// report's values. BROWSER: a web pixel loaded by the user's own browser; the service
    /// checks the click was followed, the page and the timing, and holds the conversion for
    /// the campaign's review window before paying.
    TrustLevel { Signed = "SIGNED", Token = "TOKEN", Browser = "BROWSER" }
);

/// Web pixel capability and settings of a campaign. The pixel is off until the advertiser
/// turns it on with the origins of its pages; Custom S2S campaigns (signed reporting) never
/// take it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebPixel {
    /// The campaign runs on the web platform and does not report by Custom S2S.
    pub supported: bool,
    /// The advertiser turned the pixel on.
    pub enabled: bool,
    /// The pages allowed to load the pixel (`https://shop.example`): the browser's `Origin`
    /// or `Referer` must be one of them.
    pub allowed_origins: Vec<String>,
    /// A pixel sooner than this after the launch link was followed is refused.
    pub min_seconds_after_click: i64,
    /// Pixel conversions are held this long (the advertiser may reject them meanwhile),
    /// then paid unless their fraud signals hold them for a decision.
    pub review_hours: i64,
    pub trust_level: TrustLevel,
    pub pixel_url: String,
    pub html_snippet: String,
}

/// `PUT campaigns/{id}/tracking/web-pixel`: an absent field keeps its value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebPixelSettingsInput {
    pub enabled: Option<bool>,
    /// 1 to 10 origins (`https://host[:port]`) when enabled.
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub allowed_origins: Option<Vec<String>>,
    /// 0 to 86,400 (default 20).
    pub min_seconds_after_click: Option<i64>,
    /// 1 to 720 (default 72).
    pub review_hours: Option<i64>,
}

/// `GET campaigns/{id}/tracking`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TrackingSetup {
    pub campaign_id: String,
    pub tracking_provider: String,
    pub callback_authentication: String,
    /// What a report through the campaign's endpoint proves.
    pub trust_level: TrustLevel,
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
    #[serde(deserialize_with = "crate::model::validate::required_list_at_most::<_, _, 1000>")]
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
