//! Publisher console wire types: placements, ad slots, currencies, keys and callbacks.

pub mod earnings;
pub mod ops;
pub mod payout_batches;
pub mod payouts;
pub mod rows;
pub mod rules;

use crate::model::money::Micros;
use chrono::{DateTime, Utc};
pub use entity::values::{PlacementStatus, SlotState};
use serde::{Deserialize, Serialize};

wire_enum!(
    /// What a placement is; fixed at creation.
    PlacementType { AndroidApp = "ANDROID_APP", IosApp = "IOS_APP", Website = "WEBSITE", ApiNetwork = "API_NETWORK" }
);
wire_enum!(
    /// Delivery form of a slot; fixed at creation and limited by the placement type.
    SlotType { Offerwall = "OFFERWALL", OfferApi = "OFFER_API", StaticApi = "STATIC_API" }
);
wire_enum!(
    /// How a converted reward is rounded to whole minor units.
    Rounding { Down = "DOWN", Nearest = "NEAREST", Up = "UP" }
);
wire_enum!(
    /// Offer ordering of a slot.
    OfferSort { Payout = "PAYOUT", ConversionRate = "CONVERSION_RATE", Epc = "EPC", Ecpm = "ECPM" }
);
wire_enum!(
    /// An administrator's review decision.
    ReviewDecision { Verified = "VERIFIED", Rejected = "REJECTED" }
);

impl PlacementType {
    /// The SDK platform a placement type runs on.
    pub fn platform(self) -> &'static str {
        match self {
            PlacementType::AndroidApp => "android",
            PlacementType::IosApp => "ios",
            PlacementType::Website | PlacementType::ApiNetwork => "web",
        }
    }

    /// Slot types a placement of this type may have (documented in the API reference):
    /// apps show an offerwall or render offers natively; websites may also pull the static
    /// feed; API networks integrate server to server only.
    pub fn allowed_slots(self) -> &'static [SlotType] {
        match self {
            PlacementType::AndroidApp | PlacementType::IosApp => {
                &[SlotType::Offerwall, SlotType::OfferApi]
            }
            PlacementType::Website => {
                &[SlotType::Offerwall, SlotType::OfferApi, SlotType::StaticApi]
            }
            PlacementType::ApiNetwork => &[SlotType::OfferApi, SlotType::StaticApi],
        }
    }
}

/// A placement as returned by the console.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Placement {
    pub placement_id: String,
    #[serde(rename = "type")]
    pub placement_type: PlacementType,
    pub name: String,
    pub platform_identity: String,
    #[cfg_attr(feature = "ssr", schema(value_type = crate::model::campaign::Platform))]
    pub platform: String,
    pub store_url: Option<String>,
    pub minimum_sdk_version: String,
    pub recommended_sdk_version: Option<String>,
    pub require_consent: bool,
    pub status: PlacementStatus,
    pub released: bool,
    pub review_note: Option<String>,
    pub privacy_settings: PrivacySettings,
    pub capabilities: Capabilities,
    pub callback: CallbackSummary,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Only on the single-placement read; non-archived slots.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ad_slots: Option<Vec<AdSlot>>,
}

/// Consent handling of a placement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PrivacySettings {
    pub require_consent: bool,
    /// The consent values session creation accepts: only GRANTED when consent is required.
    pub consent_values_accepted: Vec<String>,
}

/// What the placement can do, derived from its type and state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub slot_types: Vec<SlotType>,
    pub sdk_sessions: bool,
    pub production_delivery: bool,
    /// Survey fetch serves this placement's app key: always outside production, only
    /// once released in production.
    pub survey_fetch: bool,
}

/// Safe-to-read callback configuration: never a secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallbackSummary {
    pub configured: bool,
    pub url: Option<String>,
    pub key_id: Option<String>,
    pub next_key_id: Option<String>,
}

/// `GET /publisher/v2/placements`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PlacementList {
    pub items: Vec<Placement>,
    pub count: usize,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
}

/// `GET /publisher/v2/placements/{placementId}/ad-slots`: the placement's slots, as the placement read lists them.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AdSlotList {
    pub items: Vec<AdSlot>,
    pub count: usize,
}

/// `POST /publisher/v2/placements`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreatePlacement {
    #[serde(rename = "type")]
    pub placement_type: Option<PlacementType>,
    pub name: Option<String>,
    pub platform_identity: Option<String>,
    pub store_url: Option<String>,
    pub minimum_sdk_version: Option<String>,
    pub recommended_sdk_version: Option<String>,
    pub require_consent: Option<bool>,
}

/// `PATCH /publisher/v2/placements/{placementId}`: only the named fields change. `type` and
/// `platformIdentity` are refused (they cannot change after creation).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PatchPlacement {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>))]
    pub store_url: Option<Option<String>>,
    pub minimum_sdk_version: Option<String>,
    #[serde(default, deserialize_with = "double_option")]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>))]
    pub recommended_sdk_version: Option<Option<String>>,
    pub require_consent: Option<bool>,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>))]
    pub placement_type: Option<serde_json::Value>,
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>))]
    pub platform_identity: Option<serde_json::Value>,
}

/// Distinguishes an absent field (`None`) from an explicit `null` (`Some(None)`).
fn double_option<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `POST /admin/v1/placements/{placementId}/review`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ReviewRequest {
    pub decision: ReviewDecision,
    #[serde(default)]
    pub note: Option<String>,
}

/// Currency of a slot: `minorUnits = usdMicros × rateNumeratorMinorUnits ÷ rateDenominatorUsdMicros`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Currency {
    pub name: String,
    pub decimals: i32,
    pub rate_numerator_minor_units: i64,
    pub rate_denominator_usd_micros: Micros,
    pub minimum_payout_minor_units: i64,
    pub rounding: Rounding,
}

/// Partial currency for create and PATCH (named fields are merged into the current ones).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CurrencyInput {
    pub name: Option<String>,
    pub decimals: Option<i32>,
    pub rate_numerator_minor_units: Option<i64>,
    pub rate_denominator_usd_micros: Option<Micros>,
    pub minimum_payout_minor_units: Option<i64>,
    pub rounding: Option<Rounding>,
}

/// Slot delivery policy.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    pub allowed_countries: Vec<String>,
    pub blocked_countries: Vec<String>,
    pub blocked_campaign_ids: Vec<String>,
    pub excluded_campaign_task_types: Vec<String>,
    pub excluded_campaign_categories: Vec<String>,
}

/// Partial policy for create and PATCH.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PolicyInput {
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub allowed_countries: Option<Vec<String>>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub blocked_countries: Option<Vec<String>>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 20_000>"
    )]
    pub blocked_campaign_ids: Option<Vec<String>>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub excluded_campaign_task_types: Option<Vec<String>>,
    #[serde(
        default,
        deserialize_with = "crate::model::validate::list_at_most::<_, _, 1000>"
    )]
    pub excluded_campaign_categories: Option<Vec<String>>,
}

/// Offer ordering and floor of a slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferDelivery {
    pub sort: OfferSort,
    pub minimum_payout_micros: Micros,
}

/// Partial offer delivery for create and PATCH.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferDeliveryInput {
    pub sort: Option<OfferSort>,
    pub minimum_payout_micros: Option<Micros>,
}

/// Whether a slot can deliver, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Readiness {
    pub ready: bool,
    /// Stable reason codes: `placement_not_verified`, `currency_rate_zero`, `slot_type_not_allowed`.
    pub reasons: Vec<String>,
}

/// An ad slot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdSlot {
    pub ad_slot_id: String,
    pub placement_id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub slot_type: SlotType,
    pub state: SlotState,
    pub currency: Currency,
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub design: serde_json::Value,
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub exposure: serde_json::Value,
    pub policy: Policy,
    pub offer_delivery: OfferDelivery,
    pub configuration_version: i32,
    pub readiness: Readiness,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// `POST .../ad-slots` and `PATCH .../ad-slots/{adSlotId}` (PATCH refuses `type`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SlotInput {
    pub name: Option<String>,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ssr", schema(value_type = Option<SlotType>))]
    pub slot_type: Option<serde_json::Value>,
    pub currency: Option<CurrencyInput>,
    #[cfg_attr(feature = "ssr", schema(value_type = Option<Object>))]
    pub design: Option<serde_json::Value>,
    #[cfg_attr(feature = "ssr", schema(value_type = Option<Object>))]
    pub exposure: Option<serde_json::Value>,
    pub policy: Option<PolicyInput>,
    pub offer_delivery: Option<OfferDeliveryInput>,
}

/// `POST .../reward-preview`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewardPreviewRequest {
    pub usd_micros: Micros,
}

/// A reward converted with the slot's rate and rounding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewardPreview {
    pub usd_micros: Micros,
    pub minor_units: i64,
    /// Currency name.
    pub currency: String,
    pub decimals: i32,
    /// The amount formatted with the currency's decimals, e.g. `"12.50"`.
    pub display: String,
    pub meets_minimum_payout: bool,
}

/// Credential-free SDK initialisation snippets.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Snippets {
    pub placement_id: String,
    pub ad_slot_id: String,
    pub android: String,
    pub ios: String,
    pub web: String,
    pub contains_credential: bool,
}

/// `POST .../static-key`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StaticKeyRequest {
    pub expires_at: DateTime<Utc>,
    pub reason: String,
}

/// The one response that shows a static key.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StaticKeyIssued {
    pub static_key_id: String,
    pub token: String,
    pub expires_at: DateTime<Utc>,
    pub displayed_once: bool,
}

/// `PUT .../callback`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CallbackRequest {
    pub url: String,
}

/// Callback settings; `secret` only in the response that created the first signing key.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallbackSettings {
    pub url: String,
    pub key_id: String,
    /// `ACTIVE` once configured.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_key_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// The same secret in the Standard Webhooks encoding (`whsec_…`), for verifying the
    /// `webhook-signature` header with the scheme's libraries; only beside `secret`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard_webhooks_secret: Option<String>,
}

/// `POST .../callback/rotate`: the next key, shown once.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallbackKeyIssued {
    pub key_id: String,
    pub secret: String,
    /// The same secret in the Standard Webhooks encoding (`whsec_…`).
    pub standard_webhooks_secret: String,
}

/// `POST .../callback/promote`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallbackKeyRef {
    pub key_id: String,
}

/// `POST .../callback/test`: what would be sent; nothing is delivered or accounted.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallbackTest {
    pub url: String,
    pub method: String,
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub headers: std::collections::BTreeMap<String, String>,
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub payload: serde_json::Value,
    /// The exact body bytes (canonical JSON) that are signed and sent.
    pub body: String,
    /// The string the signature is computed over: `timestamp.nonce.body`.
    pub signed_string: String,
    pub delivered_externally: bool,
    pub accounting_writes: u32,
    /// What the receiver answered, when the test was sent (`callback/test/send`); absent
    /// for `callback/test`, which sends nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<CallbackTestAnswer>,
}

/// A receiver's answer to a sent test event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallbackTestAnswer {
    /// The receiver answered 2xx: it would have accepted a real event.
    pub accepted: bool,
    pub response_status: Option<u16>,
    pub latency_ms: i64,
    /// `http_status`, `timeout`, `connect`, `tls`, `address_refused`, `redirect`, `other`.
    pub error_class: Option<String>,
    pub error_message: Option<String>,
    /// Always absent since issue 52: a test send reports status and timing, never the
    /// receiver's body (kept in the schema so existing clients still parse the answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_excerpt: Option<String>,
}

/// `POST .../app-key`: shown once; replaces the previous key.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AppKeyIssued {
    pub app_key: String,
    pub placement_id: String,
}
