//! The SDK session a delivery request acts as. Built once when the bearer token is
//! authenticated (and kept in the hot cache), it is what every delivery rule receives: the
//! session's identity and terms, never its stored row with the token hash, the refresh and
//! revoke keys and the sealed replacement token.

use chrono::{DateTime, Utc};

use entity::sdk_session;

/// An authenticated SDK session (`delivery::sessions::authenticate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SdkActor {
    /// The session id.
    pub id: String,
    pub placement_id: String,
    /// The slot the session was created for (`None`: every deliverable slot).
    pub ad_slot_id: Option<String>,
    pub external_user_id: String,
    /// android, ios or web.
    pub platform: String,
    pub sdk_version: String,
    pub package_bundle_or_domain: String,
    /// sandbox, development or production.
    pub environment: String,
    pub consent: String,
    pub att_status: Option<String>,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// The publisher's server signed the user id (`user_identity`), with a signature that
    /// holds until `user_verified_until` by the secret issued at `user_secret_issued_at`
    /// (`user_identity::require_verified` checks all three).
    pub user_verified: bool,
    pub user_verified_until: Option<DateTime<Utc>>,
    pub user_secret_issued_at: Option<DateTime<Utc>>,
    /// The app's `lang` (a BCP 47 tag), preferred by the hosted wall.
    pub language: Option<String>,
    /// The device id the app reported (`deviceId`), for the fraud signals.
    pub device_id: Option<String>,
}

impl From<&sdk_session::Model> for SdkActor {
    fn from(s: &sdk_session::Model) -> Self {
        SdkActor {
            id: s.id.clone(),
            placement_id: s.placement_id.clone(),
            ad_slot_id: s.ad_slot_id.clone(),
            external_user_id: s.external_user_id.clone(),
            platform: s.platform.clone(),
            sdk_version: s.sdk_version.clone(),
            package_bundle_or_domain: s.package_bundle_or_domain.clone(),
            environment: s.environment.clone(),
            consent: s.consent.clone(),
            att_status: s.att_status.clone(),
            issued_at: s.issued_at,
            expires_at: s.expires_at,
            revoked_at: s.revoked_at,
            user_verified: s.user_verified,
            user_verified_until: s.user_verified_until,
            user_secret_issued_at: s.user_secret_issued_at,
            language: s.language.clone(),
            device_id: s.device_id.clone(),
        }
    }
}
