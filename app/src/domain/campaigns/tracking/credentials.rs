//! The credentials a campaign's conversion reports authenticate with, and the endpoint they
//! report to. Issuing, rotating and checking credentials share the row format and the
//! sealing, so they live together; everything else only asks whether a key is active.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter, Set,
};

use crate::domain::campaigns::locked_campaign;
use crate::domain::campaigns::providers::{TrackingKind, kind_of, mmp_code};
use crate::domain::campaigns::store::SUBJECT;
use crate::domain::{Ctx, Principal, crypto, db, ids::new_id};
use crate::error::AppError;
use crate::model::campaign::*;
use entity::{campaign_credential, offer_campaign};

/// Whether the campaign has an active credential of `kind`.
pub async fn has_active<C: ConnectionTrait>(
    db: &C,
    campaign: &str,
    kind: TrackingKind,
) -> Result<bool, AppError> {
    Ok(active(db, campaign, kind).await?.is_some())
}

pub(super) async fn active<C: ConnectionTrait>(
    db: &C,
    campaign: &str,
    kind: TrackingKind,
) -> Result<Option<campaign_credential::Model>, AppError> {
    Ok(campaign_credential::Entity::find()
        .filter(campaign_credential::Column::CampaignId.eq(campaign.to_owned()))
        .filter(campaign_credential::Column::Kind.eq(kind.as_str()))
        .filter(campaign_credential::Column::Status.eq(CredentialStatus::Active))
        .one(db)
        .await?)
}

/// The secret of the campaign's active Custom S2S key named `key_id` (postback checks).
pub async fn s2s_secret(
    ctx: &Ctx,
    campaign: &str,
    key_id: &str,
) -> Result<Option<String>, AppError> {
    match active(&ctx.db, campaign, TrackingKind::CustomS2s).await? {
        Some(c) if crypto::constant_time_eq(c.key_id.as_bytes(), key_id.as_bytes()) => {
            Ok(Some(open_secret(ctx, &c)?))
        }
        _ => Ok(None),
    }
}

/// The campaign's conversion endpoint for its provider.
pub fn postback_url(ctx: &Ctx, m: &offer_campaign::Model) -> String {
    let base = format!("{}/performance-marketing/v2/postbacks", ctx.config.base_url);
    match kind_of(&m.tracking_provider) {
        TrackingKind::CustomS2s => format!("{base}/custom-s2s/{}", m.id),
        TrackingKind::Mmp => format!(
            "{base}/mmp/{}/{}",
            m.id,
            mmp_code(&m.tracking_provider)
                .unwrap_or_default()
                .to_ascii_lowercase()
        ),
        TrackingKind::Direct => format!("{base}/direct"),
        TrackingKind::Managed => format!("{base}/managed"),
    }
}

pub(super) fn require_kind(m: &offer_campaign::Model, kind: TrackingKind) -> Result<(), AppError> {
    if kind_of(&m.tracking_provider) == kind {
        Ok(())
    } else {
        Err(AppError::conflict(format!(
            "the campaign tracks with {}, not {}",
            m.tracking_provider,
            kind.as_str()
        ))
        .with_code("tracking_provider_mismatch"))
    }
}

pub(super) fn require_open(m: &offer_campaign::Model) -> Result<(), AppError> {
    match m.status {
        CampaignStatus::Ended | CampaignStatus::Archived => Err(AppError::conflict(
            "credentials of an ended campaign cannot change",
        )
        .with_code("campaign_not_editable")),
        _ => Ok(()),
    }
}

/// Retires every active credential of `kind`.
async fn retire<C: ConnectionTrait>(
    db: &C,
    campaign: &str,
    kind: TrackingKind,
    now: DateTime<Utc>,
) -> Result<u64, AppError> {
    Ok(campaign_credential::Entity::update_many()
        .col_expr(
            campaign_credential::Column::Status,
            Expr::value(CredentialStatus::Retired),
        )
        .col_expr(
            campaign_credential::Column::RetiredAt,
            Expr::value(Some(now)),
        )
        .filter(campaign_credential::Column::CampaignId.eq(campaign.to_owned()))
        .filter(campaign_credential::Column::Kind.eq(kind.as_str()))
        .filter(campaign_credential::Column::Status.eq(CredentialStatus::Active))
        .exec(db)
        .await?
        .rows_affected)
}

/// Creates a credential of `kind` and returns the issuance (secret or token, once).
async fn issue<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    m: &offer_campaign::Model,
    kind: TrackingKind,
    now: DateTime<Utc>,
) -> Result<CredentialIssued, AppError> {
    let key_id = new_id(match kind {
        TrackingKind::CustomS2s => "s2sk",
        TrackingKind::Mmp => "mmpk",
        TrackingKind::Direct => "drtk",
        TrackingKind::Managed => "mgdk",
    });
    let (secret, token) = match kind {
        TrackingKind::CustomS2s => (Some(crypto::random_token("mkt_s2s")), None),
        TrackingKind::Mmp => (None, Some(crypto::random_token("mkt_mmp"))),
        TrackingKind::Direct => (None, Some(crypto::random_token("mkt_drt"))),
        TrackingKind::Managed => (None, Some(crypto::random_token("mkt_mgd"))),
    };
    let row_id = new_id("ccr");
    campaign_credential::ActiveModel {
        id: Set(row_id.clone()),
        campaign_id: Set(m.id.clone()),
        kind: Set(kind),
        key_id: Set(key_id.clone()),
        secret_sealed: Set(secret
            .as_deref()
            .map(|s| ctx.keys.seal(&seal_binding(&row_id), s))
            .transpose()?),
        token_hash: Set(token.as_deref().map(crypto::sha256_hex)),
        status: Set(CredentialStatus::Active),
        created_at: Set(now),
        retired_at: Set(None),
    }
    .insert(db)
    .await
    .map_err(db::race_on_unique)?;
    Ok(CredentialIssued {
        campaign_id: m.id.clone(),
        kind,
        key_id,
        status: CredentialStatus::Active,
        secret,
        token,
        created: true,
        created_at: now,
        postback_url: postback_url(ctx, m),
    })
}

async fn audit_credential<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    actor: &Principal,
    action: &str,
    issued: &CredentialIssued,
) -> Result<(), AppError> {
    actor
        .audit(
            db,
            now,
            action,
            (SUBJECT, &issued.campaign_id),
            serde_json::json!({"kind": issued.kind, "keyId": issued.key_id}),
        )
        .await
}

/// `custom-s2s/credentials`: the campaign's first signing key. A second call is refused;
/// use rotate to replace the key.
pub async fn create_s2s(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<CredentialIssued, AppError> {
    db::retry_on_race(|| s2s_key_once(ctx, actor, id, S2sKey::First)).await
}

/// `custom-s2s/rotate`: a new key replaces the active one at once.
pub async fn rotate_s2s(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<CredentialIssued, AppError> {
    db::retry_on_race(|| s2s_key_once(ctx, actor, id, S2sKey::Replacement)).await
}

/// Which Custom S2S key is asked for: the first (refused when one exists) or a
/// replacement (refused when none exists).
#[derive(Clone, Copy, PartialEq, Eq)]
enum S2sKey {
    First,
    Replacement,
}

async fn s2s_key_once(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    which: S2sKey,
) -> Result<CredentialIssued, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    require_kind(&m, TrackingKind::CustomS2s)?;
    require_open(&m)?;
    let action = match which {
        S2sKey::First => {
            if has_active(&txn, &m.id, TrackingKind::CustomS2s).await? {
                return Err(AppError::conflict(
                    "the campaign already has a Custom S2S key; rotate it to get a new secret",
                )
                .with_code("credential_exists"));
            }
            "campaign.s2s_key_created"
        }
        S2sKey::Replacement => {
            if retire(&txn, &m.id, TrackingKind::CustomS2s, now).await? == 0 {
                return Err(AppError::conflict(
                    "the campaign has no Custom S2S key yet; create one first",
                )
                .with_code("credential_missing"));
            }
            "campaign.s2s_key_rotated"
        }
    };
    let issued = issue(ctx, &txn, &m, TrackingKind::CustomS2s, now).await?;
    audit_credential(&txn, now, actor, action, &issued).await?;
    txn.commit().await?;
    Ok(issued)
}

/// `mmp/credentials` (and the direct and managed equivalents): generates the campaign token
/// (201, shown once) or reports the existing one without it (200, `created: false`).
pub async fn token(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    kind: TrackingKind,
) -> Result<CredentialIssued, AppError> {
    db::retry_on_race(|| token_once(ctx, actor, id, kind)).await
}

async fn token_once(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    kind: TrackingKind,
) -> Result<CredentialIssued, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    require_kind(&m, kind)?;
    if let Some(c) = active(&txn, &m.id, kind).await? {
        return Ok(CredentialIssued {
            campaign_id: m.id.clone(),
            kind: c.kind,
            key_id: c.key_id,
            status: c.status,
            secret: None,
            token: None,
            created: false,
            created_at: c.created_at,
            postback_url: postback_url(ctx, &m),
        });
    }
    require_open(&m)?;
    let issued = issue(ctx, &txn, &m, kind, now).await?;
    audit_credential(&txn, now, actor, "campaign.token_created", &issued).await?;
    txn.commit().await?;
    Ok(issued)
}

/// `mmp/rotate`: only while DRAFT or IN_REVIEW; clears the live-test verification.
pub async fn rotate_mmp(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<CredentialIssued, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    require_kind(&m, TrackingKind::Mmp)?;
    let status = m.status;
    if !matches!(status, CampaignStatus::Draft | CampaignStatus::InReview) {
        return Err(AppError::conflict(format!(
            "the campaign token can be rotated only while DRAFT or IN_REVIEW; this campaign is {}",
            status.as_str()
        ))
        .with_code("rotation_not_allowed"));
    }
    retire(&txn, &m.id, TrackingKind::Mmp, now).await?;
    let issued = issue(ctx, &txn, &m, TrackingKind::Mmp, now).await?;
    let mut a = m.into_active_model();
    a.mmp_verified_revision = Set(None);
    a.mmp_verified_at = Set(None);
    a.mmp_verified_by = Set(None);
    a.updated_at = Set(now);
    a.update(&txn).await?;
    audit_credential(&txn, now, actor, "campaign.token_rotated", &issued).await?;
    txn.commit().await?;
    Ok(issued)
}

/// What a credential's sealed secret is bound to (its row).
pub(crate) fn seal_binding(credential_row_id: &str) -> String {
    format!("campaign_credentials:{credential_row_id}")
}

/// The plain secret of a stored Custom S2S credential.
pub(super) fn open_secret(ctx: &Ctx, c: &campaign_credential::Model) -> Result<String, AppError> {
    ctx.keys.open(
        &seal_binding(&c.id),
        c.secret_sealed.as_deref().unwrap_or_default(),
    )
}
