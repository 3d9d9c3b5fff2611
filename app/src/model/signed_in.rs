//! "Where you are signed in" (`/auth/v1/sessions`, issue 54, part 2): an account's browser
//! sessions and dashboard tokens.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A signed-in browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BrowserSession {
    /// `ses_…`, for signing it out.
    pub id: String,
    /// The browser's User-Agent when it signed in (cut to 160 characters).
    pub device: String,
    /// The address it signed in from (IPv6 by its /64).
    pub address: String,
    pub signed_in_at: Option<DateTime<Utc>>,
    pub expires_at: DateTime<Utc>,
    /// The browser of this request.
    pub current: bool,
}

/// A dashboard bearer token (from `POST /auth/v1/tokens`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenSession {
    /// `tok_…`, for revoking it.
    pub id: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// The token of this request.
    pub current: bool,
}

/// `GET /auth/v1/sessions`: the account's live browser sessions and dashboard tokens, newest
/// first (100 of each at most). API keys are listed at `/auth/v1/api-keys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SignedInList {
    pub browsers: Vec<BrowserSession>,
    pub tokens: Vec<TokenSession>,
}
