//! Token-authenticated conversion callbacks: the manual measurement-partner route
//! (`CAMPAIGN_TOKEN`: the campaign's active MMP token) and the direct and managed routes
//! (the token itself names the campaign). Tokens are kept as SHA-256 only and compared in
//! constant time; a token of one kind never authenticates another. Accepted reports share
//! the Custom S2S inbox, duplicate and conflict rules through [`inbox::ingest`].

use std::net::IpAddr;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::inbox;
use super::postbacks::validate;
use super::provider_params::canonical_event;
use crate::domain::campaigns::providers::{TrackingKind, kind_of, mmp_code};
use crate::domain::campaigns::tracking::allowlisted;
use crate::domain::{Ctx, crypto};
use crate::error::AppError;
use crate::model::campaign::CampaignStatus;
use crate::model::delivery::CallbackReceipt;
use crate::model::postbacks::{TOKEN_HEADER, TOKEN_PARAM, partner_params};
use entity::{campaign_credential, offer_campaign};

const ACTIVE: &str = "ACTIVE";

/// What a token-authenticated callback carried: the token (header, else the `token`
/// parameter) and every query or body parameter as sent.
#[derive(Clone, Default)]
pub struct TokenCallback {
    pub header_token: Option<String>,
    pub params: Vec<(String, String)>,
}

impl std::fmt::Debug for TokenCallback {
    // The token never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCallback")
            .field(
                "params",
                &self.params.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl TokenCallback {
    /// The presented token: the `X-Service-Token` header wins over the `token` parameter.
    fn token(&self) -> Result<&str, AppError> {
        self.header_token
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .or_else(|| {
                self.params
                    .iter()
                    .find(|(k, v)| k == TOKEN_PARAM && !v.trim().is_empty())
                    .map(|(_, v)| v.trim())
            })
            .ok_or_else(|| {
                AppError::unauthorized(format!(
                    "a token is required: the {TOKEN_HEADER} header or the `{TOKEN_PARAM}` parameter"
                ))
            })
    }
}

fn invalid_token() -> AppError {
    AppError::unauthorized("the token is unknown, retired or not valid for this route")
        .with_code("invalid_token")
}

fn check_source(m: &offer_campaign::Model, source: IpAddr) -> Result<(), AppError> {
    if allowlisted(m, source) {
        Ok(())
    } else {
        Err(
            AppError::forbidden("this source address is not on the campaign's IP allowlist")
                .with_code("ip_not_allowed"),
        )
    }
}

/// `GET|POST /performance-marketing/v2/postbacks/mmp/{campaignId}/{provider}`.
pub async fn mmp(
    ctx: &Ctx,
    campaign_id: &str,
    provider: &str,
    cb: TokenCallback,
    source: IpAddr,
) -> Result<CallbackReceipt, AppError> {
    if !ctx.config.mmp_manual_enabled {
        return Err(AppError::not_found("route"));
    }
    let partner = partner_params(provider).ok_or_else(|| AppError::not_found("provider"))?;
    let m = offer_campaign::Entity::find_by_id(campaign_id.to_owned())
        .one(&ctx.db)
        .await?
        .filter(|m| {
            kind_of(&m.tracking_provider) == TrackingKind::Mmp
                && mmp_code(&m.tracking_provider) == Some(partner.code)
                && m.status != CampaignStatus::Draft
        })
        .ok_or_else(|| AppError::not_found("campaign"))?;
    let presented = crypto::sha256_hex(cb.token()?);
    let cred = campaign_credential::Entity::find()
        .filter(campaign_credential::Column::CampaignId.eq(m.id.clone()))
        .filter(campaign_credential::Column::Kind.eq(TrackingKind::Mmp.as_str()))
        .filter(campaign_credential::Column::Status.eq(ACTIVE))
        .one(&ctx.db)
        .await?;
    let stored = cred.and_then(|c| c.token_hash).unwrap_or_default();
    if stored.is_empty() || !crypto::constant_time_eq(stored.as_bytes(), presented.as_bytes()) {
        return Err(invalid_token());
    }
    check_source(&m, source)?;
    let reported = validate(&canonical_event(Some(partner), &cb.params))?;
    inbox::ingest(ctx, &m, &format!("MMP:{}", partner.code), reported).await
}

/// `GET|POST /performance-marketing/v2/postbacks/direct` and `/managed`: the active token
/// of `kind` names the campaign.
pub async fn by_token(
    ctx: &Ctx,
    kind: TrackingKind,
    cb: TokenCallback,
    source: IpAddr,
) -> Result<CallbackReceipt, AppError> {
    if !matches!(kind, TrackingKind::Direct | TrackingKind::Managed) {
        return Err(AppError::not_found("route"));
    }
    // A SHA-256 of a 256-bit random token: looking it up by hash leaks nothing useful.
    let presented = crypto::sha256_hex(cb.token()?);
    let cred = campaign_credential::Entity::find()
        .filter(campaign_credential::Column::TokenHash.eq(presented.clone()))
        .filter(campaign_credential::Column::Kind.eq(kind.as_str()))
        .filter(campaign_credential::Column::Status.eq(ACTIVE))
        .one(&ctx.db)
        .await?
        .filter(|c| {
            c.token_hash
                .as_deref()
                .is_some_and(|h| crypto::constant_time_eq(h.as_bytes(), presented.as_bytes()))
        })
        .ok_or_else(invalid_token)?;
    let m = offer_campaign::Entity::find_by_id(cred.campaign_id.clone())
        .one(&ctx.db)
        .await?
        .filter(|m| kind_of(&m.tracking_provider) == kind)
        .ok_or_else(invalid_token)?;
    if m.status == CampaignStatus::Draft {
        return Err(AppError::not_found("campaign"));
    }
    check_source(&m, source)?;
    let reported = validate(&canonical_event(None, &cb.params))?;
    inbox::ingest(ctx, &m, kind.as_str(), reported).await
}
