//! Signed user identity of a placement (`docs/web-sdk.md`, "Signed user identity").

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A placement's signed-user-identity setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserIdentitySettings {
    pub placement_id: String,
    /// When true, only sessions whose user the publisher's server signed read the user's
    /// support cases and reward history.
    pub required: bool,
    /// When the current secret was issued (null: none yet).
    pub secret_issued_at: Option<DateTime<Utc>>,
}

/// `PUT …/user-identity`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserIdentityUpdate {
    pub required: bool,
}

/// `POST …/user-identity/secret`: the new secret, shown once; the previous one stops
/// verifying at once.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserIdentitySecret {
    pub placement_id: String,
    pub secret: String,
    pub issued_at: DateTime<Utc>,
    pub displayed_once: bool,
}
