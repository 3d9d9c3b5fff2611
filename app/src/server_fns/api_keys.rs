//! The `/account` page's API keys: list, create (the key shown once, in a flash for a plain
//! form post) and revoke. The rules are in `domain::accounts::api_keys`. The account's own
//! (`web::own_*`): open to an administrator who still has to turn on a second factor.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::OneTimeSecret;
use crate::model::api_key::{ApiKeyView, KeyArea};

/// What the API keys card shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeysSummary {
    pub keys: Vec<ApiKeyView>,
    /// The areas the account's role may grant, for the form (none: the person's team role
    /// keeps no keys, and the form is not shown).
    pub areas: Vec<KeyArea>,
    /// A key just created by a plain form post, to copy now.
    pub issued: Option<OneTimeSecret>,
}

/// The flash scope of a created key.
#[cfg(feature = "ssr")]
const KEY_SCOPE: &str = "api-keys";

#[server(prefix = "/fn", endpoint = "api_keys_card")]
pub async fn api_keys_card() -> Result<KeysSummary, AppError> {
    super::web::run(async move {
        use crate::domain::accounts::api_keys;
        let (ctx, p) = super::web::own_reader().await?;
        let session = super::web::session().await?;
        let keys = api_keys::list(&ctx, &p).await?.items;
        let issued = super::flash::take_secret(&ctx, &session, KEY_SCOPE).await?;
        Ok(KeysSummary {
            keys,
            // A role that keeps no keys gets no form (the list still shows its old keys).
            areas: if crate::model::team::role_keeps_keys(p.team_role) {
                KeyArea::of_role(p.role).to_vec()
            } else {
                Vec::new()
            },
            issued,
        })
    })
    .await
}

/// Creates a key from the form: a name, an optional expiry in days and, per area, nothing,
/// `read` or `write` (one field per area, named after it).
#[allow(clippy::too_many_arguments)]
#[server(prefix = "/fn", endpoint = "create_api_key")]
pub async fn create_api_key(
    name: String,
    expires_in_days: Option<String>,
    placements: Option<String>,
    callbacks: Option<String>,
    earnings: Option<String>,
    reports: Option<String>,
    support: Option<String>,
    campaigns: Option<String>,
    tracking: Option<String>,
    conversions: Option<String>,
    billing: Option<String>,
    admin: Option<String>,
    otp: Option<String>,
    csrf: String,
) -> Result<OneTimeSecret, AppError> {
    super::web::run(async move {
        use crate::domain::accounts::api_keys;
        use crate::model::api_key::ApiKeyCreate;
        let (ctx, session, p) = super::web::own_writer(&csrf).await?;
        let chosen = [
            (KeyArea::Placements, placements),
            (KeyArea::Callbacks, callbacks),
            (KeyArea::Earnings, earnings),
            (KeyArea::Reports, reports),
            (KeyArea::Support, support),
            (KeyArea::Campaigns, campaigns),
            (KeyArea::Tracking, tracking),
            (KeyArea::Conversions, conversions),
            (KeyArea::Billing, billing),
            (KeyArea::Admin, admin),
        ];
        let scopes = chosen
            .into_iter()
            .filter_map(|(area, access)| {
                let access = access.filter(|a| !a.is_empty())?;
                Some(format!("{}:{access}", area.as_str()))
            })
            .collect();
        let expires_in_days =
            match expires_in_days.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(d) => Some(d.parse::<u32>().map_err(|_| {
                    AppError::field("expiresInDays", "must be a whole number of days")
                })?),
            };
        let req = ApiKeyCreate {
            name,
            scopes,
            expires_in_days,
        };
        let issued = api_keys::create(&ctx, &p, &req, otp.as_deref()).await?;
        let label = format!("API key \"{}\"", issued.api_key.name);
        super::flash::put_secret(&ctx, &session, KEY_SCOPE, &label, &issued.key).await?;
        Ok(OneTimeSecret {
            label,
            value: issued.key,
        })
    })
    .await
}

#[server(prefix = "/fn", endpoint = "revoke_api_key")]
pub async fn revoke_api_key(key_id: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        crate::domain::accounts::api_keys::revoke(&ctx, &p, &key_id).await
    })
    .await
}
