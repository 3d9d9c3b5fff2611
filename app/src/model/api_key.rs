//! API keys for the dashboard API (issue 54, part 5): the areas a key may be granted and
//! the wire types of `/auth/v1/api-keys`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Role;

wire_enum!(
    /// A part of the dashboard API that a key may be granted, read or write.
    KeyArea {
        /// Publisher placements, ad slots, their keys and snippets, the offer gallery,
        /// blacklists and user bans.
        Placements = "placements",
        /// Publisher reward callbacks, their deliveries and signed user identity.
        Callbacks = "callbacks",
        /// Publisher earnings, statements, payouts and the payout profile.
        Earnings = "earnings",
        /// Publisher reports and fraud views.
        Reports = "reports",
        /// Publisher support cases.
        Support = "support",
        /// Advertiser offer campaigns, their reports, revisions and creatives.
        Campaigns = "campaigns",
        /// Advertiser tracking: postback credentials, web pixels, the allowlist, survey API
        /// credentials and the callback sandbox.
        Tracking = "tracking",
        /// Advertiser conversions, decisions and reconciliations.
        Conversions = "conversions",
        /// The advertiser's wallet: profile, balance, fundings, invoices, the ledger.
        Billing = "billing",
        /// Administrator routes (administrators only).
        Admin = "admin"
    }
);

wire_enum!(
    /// What a key may do in an area: `read` (GET) or `write` (everything, reading included).
    KeyAccess { Read = "read", Write = "write" }
);

impl KeyArea {
    /// The areas an account of `role` may grant its keys. Administrators may act on
    /// publishers' and advertisers' behalf, so every area is theirs.
    pub fn of_role(role: Role) -> &'static [KeyArea] {
        match role {
            Role::Publisher => &[
                KeyArea::Placements,
                KeyArea::Callbacks,
                KeyArea::Earnings,
                KeyArea::Reports,
                KeyArea::Support,
            ],
            Role::Advertiser => &[
                KeyArea::Campaigns,
                KeyArea::Tracking,
                KeyArea::Conversions,
                KeyArea::Billing,
            ],
            Role::Admin | Role::Superadmin => KeyArea::ALL,
        }
    }
}

/// `POST /auth/v1/api-keys`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyCreate {
    /// What the key is for (1-80 characters), shown in the list.
    pub name: String,
    /// Grants as `area:access`, e.g. `["placements:read", "earnings:write"]`; `write`
    /// includes `read`. At least one; only the areas of the account's role.
    pub scopes: Vec<String>,
    /// Days until the key stops working (1-730); without it the key works until revoked.
    #[serde(default)]
    pub expires_in_days: Option<u32>,
}

/// An API key as listed: never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyView {
    pub id: String,
    pub name: String,
    /// The key's first characters (`mkt_key_` and four more).
    pub prefix: String,
    /// `area:access` grants in a fixed order.
    pub scopes: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    /// When the key was last used (to the minute: it is recorded at most once a minute).
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// `201` answer of `POST /auth/v1/api-keys`: the key, shown only here.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyIssued {
    /// Send as `Authorization: Bearer <key>`. Starts with `mkt_key_`.
    pub key: String,
    pub api_key: ApiKeyView,
}

/// `GET /auth/v1/api-keys`: the account's keys, newest first (revoked ones for 30 days).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyList {
    pub items: Vec<ApiKeyView>,
    pub count: usize,
}
