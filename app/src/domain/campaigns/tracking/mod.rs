//! Conversion-reporting credentials and the tracking setup of a campaign. Custom S2S keys
//! are sealed (the service must recompute signatures); measurement-partner, direct and
//! managed tokens are stored as SHA-256 only. Secrets and tokens are returned once.

mod credentials;
pub mod pixel;
mod signing;

use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, QueryFilter, QueryOrder, Set,
};

use super::providers::{TrackingKind, kind_of};
use super::store::SUBJECT;
use super::{config_of, locked_campaign, owned_campaign};
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::campaign::rules::CONVERSION_FIELDS;
use crate::model::campaign::*;
use entity::{campaign_credential, offer_campaign};

use credentials::require_open;
pub(crate) use credentials::seal_binding;
pub use credentials::{
    create_s2s, has_active, postback_url, rotate_mmp, rotate_s2s, s2s_secret, token,
};
pub use signing::{CONVERSION_STATUSES, MAX_SKEW_SECONDS, test_s2s};

/// Whether `ip` may report conversions for the campaign (an empty allowlist allows any).
pub fn allowlisted(m: &offer_campaign::Model, ip: std::net::IpAddr) -> bool {
    let entries: Vec<String> = serde_json::from_str(&m.ip_allowlist).unwrap_or_default();
    entries.is_empty()
        || entries.iter().any(|e| {
            e.parse::<ipnet::IpNet>()
                .or_else(|_| e.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .is_ok_and(|net| net.contains(&ip))
        })
}

/// `GET campaigns/{id}/tracking`: endpoint, credential metadata (never secrets), required
/// parameters, signing recipe, allowlist, pixel and verification.
pub async fn setup(ctx: &Ctx, actor: &Principal, id: &str) -> Result<TrackingSetup, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    let config = config_of(&m)?;
    let kind = kind_of(&m.tracking_provider);
    let credentials = campaign_credential::Entity::find()
        .filter(campaign_credential::Column::CampaignId.eq(m.id.clone()))
        .order_by_desc(campaign_credential::Column::CreatedAt)
        .order_by_desc(campaign_credential::Column::Id)
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|c| CredentialMeta {
            kind: c.kind,
            key_id: c.key_id,
            status: c.status,
            created_at: c.created_at,
            retired_at: c.retired_at,
        })
        .collect();
    Ok(TrackingSetup {
        campaign_id: m.id.clone(),
        tracking_provider: m.tracking_provider.clone(),
        callback_authentication: crate::domain::campaigns::providers::authentication(kind)
            .to_owned(),
        trust_level: if kind == TrackingKind::CustomS2s {
            TrustLevel::Signed
        } else {
            TrustLevel::Token
        },
        endpoint: TrackingEndpoint {
            method: "POST".to_owned(),
            url: postback_url(ctx, &m),
            also_accepts_get: true,
        },
        credentials,
        required_parameters: CONVERSION_FIELDS.iter().map(|s| (*s).to_owned()).collect(),
        signing: (kind == TrackingKind::CustomS2s).then(|| SigningRecipe {
            algorithm: "HMAC-SHA256, lowercase hex, keyed with the secret's UTF-8 bytes".to_owned(),
            headers: vec![
                "X-Service-Key-Id".to_owned(),
                "X-Service-Timestamp".to_owned(),
                "X-Service-Signature".to_owned(),
            ],
            message_fields: std::iter::once("timestamp")
                .chain(CONVERSION_FIELDS)
                .map(str::to_owned)
                .collect(),
            timestamp: "current Unix time in seconds, decimal".to_owned(),
            max_skew_seconds: MAX_SKEW_SECONDS,
        }),
        ip_allowlist: serde_json::from_str(&m.ip_allowlist).unwrap_or_default(),
        web_pixel: pixel::view(ctx, &m, &config),
        mmp_verification: match (
            m.mmp_verified_revision,
            m.mmp_verified_at,
            m.mmp_verified_by.clone(),
        ) {
            (Some(r), Some(at), Some(by)) => Some(MmpVerification {
                verified_revision: r,
                verified_at: at,
                verified_by: by,
                current: r == m.revision,
            }),
            _ => None,
        },
    })
}

/// Parses allowlist entries: addresses or CIDR ranges, normalised.
fn allowlist_entries(raw: &[String]) -> Result<Vec<String>, AppError> {
    if raw.len() > 50 {
        return Err(AppError::field("entries", "must have at most 50 entries"));
    }
    let mut out = Vec::new();
    for (i, e) in raw.iter().enumerate() {
        let e = e.trim();
        let net = e
            .parse::<ipnet::IpNet>()
            .or_else(|_| e.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
            .map_err(|_| {
                AppError::field(
                    &format!("entries[{i}]"),
                    "must be an IP address or CIDR range",
                )
            })?;
        let s = net.trunc().to_string();
        if !out.contains(&s) {
            out.push(s);
        }
    }
    Ok(out)
}

/// `PUT tracking/ip-allowlist`: replaces the list (empty = any source).
pub async fn set_allowlist(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: IpAllowlist,
) -> Result<IpAllowlist, AppError> {
    let entries = allowlist_entries(&req.entries)?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    require_open(&m)?;
    let mut a = m.into_active_model();
    a.ip_allowlist = Set(serde_json::to_string(&entries).unwrap_or_else(|_| "[]".into()));
    a.updated_at = Set(now);
    let m = a.update(&txn).await?;
    let detail = serde_json::json!({"entries": entries});
    actor
        .audit(&txn, now, "campaign.ip_allowlist", (SUBJECT, &m.id), detail)
        .await?;
    txn.commit().await?;
    Ok(IpAllowlist { entries })
}
