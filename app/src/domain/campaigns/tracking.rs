//! Conversion-reporting credentials and the tracking setup of a campaign. Custom S2S keys
//! are sealed (the service must recompute signatures); measurement-partner, direct and
//! managed tokens are stored as SHA-256 only. Secrets and tokens are returned once.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, Set,
};

use super::providers::{ProviderKind, kind_of, mmp_code};
use super::store::SUBJECT;
use super::{config_of, locked_campaign, owned_campaign, status_of};
use crate::domain::{Ctx, Principal, audit, crypto, db, ids::new_id};
use crate::error::AppError;
use crate::model::campaign::rules::{CONVERSION_FIELDS, s2s_message};
use crate::model::campaign::*;
use entity::{campaign_credential, offer_campaign};

const ACTIVE: &str = "ACTIVE";
const RETIRED: &str = "RETIRED";
/// Largest accepted distance between a Custom S2S timestamp and the server clock.
pub const MAX_SKEW_SECONDS: i64 = 300;
/// Conversion statuses a reporter may send.
pub const CONVERSION_STATUSES: [&str; 4] = ["pending", "approved", "rejected", "reversed"];

/// Whether the campaign has an active credential of `kind`.
pub async fn has_active<C: ConnectionTrait>(
    db: &C,
    campaign: &str,
    kind: ProviderKind,
) -> Result<bool, AppError> {
    Ok(active(db, campaign, kind).await?.is_some())
}

async fn active<C: ConnectionTrait>(
    db: &C,
    campaign: &str,
    kind: ProviderKind,
) -> Result<Option<campaign_credential::Model>, AppError> {
    Ok(campaign_credential::Entity::find()
        .filter(campaign_credential::Column::CampaignId.eq(campaign.to_owned()))
        .filter(campaign_credential::Column::Kind.eq(kind.as_str()))
        .filter(campaign_credential::Column::Status.eq(ACTIVE))
        .one(db)
        .await?)
}

/// The secret of the campaign's active Custom S2S key named `key_id` (postback checks).
pub async fn s2s_secret(
    ctx: &Ctx,
    campaign: &str,
    key_id: &str,
) -> Result<Option<String>, AppError> {
    match active(&ctx.db, campaign, ProviderKind::CustomS2s).await? {
        Some(c) if crypto::constant_time_eq(c.key_id.as_bytes(), key_id.as_bytes()) => {
            Ok(Some(open_secret(ctx, &c)?))
        }
        _ => Ok(None),
    }
}

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

/// The campaign's conversion endpoint for its provider.
pub fn postback_url(ctx: &Ctx, m: &offer_campaign::Model) -> String {
    let base = format!("{}/performance-marketing/v2/postbacks", ctx.config.base_url);
    match kind_of(&m.tracking_provider) {
        ProviderKind::CustomS2s => format!("{base}/custom-s2s/{}", m.id),
        ProviderKind::Mmp => format!(
            "{base}/mmp/{}/{}",
            m.id,
            mmp_code(&m.tracking_provider)
                .unwrap_or_default()
                .to_ascii_lowercase()
        ),
        ProviderKind::Direct => format!("{base}/direct"),
        ProviderKind::Managed => format!("{base}/managed"),
    }
}

fn require_kind(m: &offer_campaign::Model, kind: ProviderKind) -> Result<(), AppError> {
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

fn require_open(m: &offer_campaign::Model) -> Result<(), AppError> {
    match status_of(m) {
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
    kind: ProviderKind,
    now: DateTime<Utc>,
) -> Result<u64, AppError> {
    Ok(campaign_credential::Entity::update_many()
        .col_expr(campaign_credential::Column::Status, Expr::value(RETIRED))
        .col_expr(
            campaign_credential::Column::RetiredAt,
            Expr::value(Some(now)),
        )
        .filter(campaign_credential::Column::CampaignId.eq(campaign.to_owned()))
        .filter(campaign_credential::Column::Kind.eq(kind.as_str()))
        .filter(campaign_credential::Column::Status.eq(ACTIVE))
        .exec(db)
        .await?
        .rows_affected)
}

/// Creates a credential of `kind` and returns the issuance (secret or token, once).
async fn issue<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    m: &offer_campaign::Model,
    kind: ProviderKind,
    now: DateTime<Utc>,
) -> Result<CredentialIssued, AppError> {
    let key_id = new_id(match kind {
        ProviderKind::CustomS2s => "s2sk",
        ProviderKind::Mmp => "mmpk",
        ProviderKind::Direct => "drtk",
        ProviderKind::Managed => "mgdk",
    });
    let (secret, token) = match kind {
        ProviderKind::CustomS2s => (Some(crypto::random_token("mkt_s2s")), None),
        ProviderKind::Mmp => (None, Some(crypto::random_token("mkt_mmp"))),
        ProviderKind::Direct => (None, Some(crypto::random_token("mkt_drt"))),
        ProviderKind::Managed => (None, Some(crypto::random_token("mkt_mgd"))),
    };
    let row_id = new_id("ccr");
    campaign_credential::ActiveModel {
        id: Set(row_id.clone()),
        campaign_id: Set(m.id.clone()),
        kind: Set(kind.as_str().to_owned()),
        key_id: Set(key_id.clone()),
        secret_sealed: Set(secret
            .as_deref()
            .map(|s| ctx.keys.seal(&seal_binding(&row_id), s))
            .transpose()?),
        token_hash: Set(token.as_deref().map(crypto::sha256_hex)),
        status: Set(ACTIVE.to_owned()),
        created_at: Set(now),
        retired_at: Set(None),
    }
    .insert(db)
    .await
    .map_err(db::race_on_unique)?;
    Ok(CredentialIssued {
        campaign_id: m.id.clone(),
        kind: kind.as_str().to_owned(),
        key_id,
        status: ACTIVE.to_owned(),
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
    audit::record(
        db,
        now,
        Some(&actor.account_id),
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
    db::retry_on_race(|| create_s2s_once(ctx, actor, id)).await
}

async fn create_s2s_once(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<CredentialIssued, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    require_kind(&m, ProviderKind::CustomS2s)?;
    require_open(&m)?;
    if has_active(&txn, &m.id, ProviderKind::CustomS2s).await? {
        return Err(AppError::conflict(
            "the campaign already has a Custom S2S key; rotate it to get a new secret",
        )
        .with_code("credential_exists"));
    }
    let issued = issue(ctx, &txn, &m, ProviderKind::CustomS2s, now).await?;
    audit_credential(&txn, now, actor, "campaign.s2s_key_created", &issued).await?;
    txn.commit().await?;
    Ok(issued)
}

/// `custom-s2s/rotate`: a new key replaces the active one at once.
pub async fn rotate_s2s(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<CredentialIssued, AppError> {
    db::retry_on_race(|| rotate_s2s_once(ctx, actor, id)).await
}

async fn rotate_s2s_once(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<CredentialIssued, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    require_kind(&m, ProviderKind::CustomS2s)?;
    require_open(&m)?;
    if retire(&txn, &m.id, ProviderKind::CustomS2s, now).await? == 0 {
        return Err(
            AppError::conflict("the campaign has no Custom S2S key yet; create one first")
                .with_code("credential_missing"),
        );
    }
    let issued = issue(ctx, &txn, &m, ProviderKind::CustomS2s, now).await?;
    audit_credential(&txn, now, actor, "campaign.s2s_key_rotated", &issued).await?;
    txn.commit().await?;
    Ok(issued)
}

/// `mmp/credentials` (and the direct and managed equivalents): generates the campaign token
/// (201, shown once) or reports the existing one without it (200, `created: false`).
pub async fn token(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    kind: ProviderKind,
) -> Result<CredentialIssued, AppError> {
    db::retry_on_race(|| token_once(ctx, actor, id, kind)).await
}

async fn token_once(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    kind: ProviderKind,
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
    require_kind(&m, ProviderKind::Mmp)?;
    let status = status_of(&m);
    if !matches!(status, CampaignStatus::Draft | CampaignStatus::InReview) {
        return Err(AppError::conflict(format!(
            "the campaign token can be rotated only while DRAFT or IN_REVIEW; this campaign is {}",
            status.as_str()
        ))
        .with_code("rotation_not_allowed"));
    }
    retire(&txn, &m.id, ProviderKind::Mmp, now).await?;
    let issued = issue(ctx, &txn, &m, ProviderKind::Mmp, now).await?;
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

fn web_pixel(ctx: &Ctx, m: &offer_campaign::Model, config: &CampaignConfig) -> WebPixel {
    let url = format!(
        "{}/performance-marketing/v2/pixels/web/{}.gif?click_id={{click_id}}&goal_id={}&transaction_id={{transaction_id}}",
        ctx.config.base_url,
        m.id,
        config
            .goals
            .first()
            .map(|g| g.external_goal_id.as_str())
            .unwrap_or("install")
    );
    WebPixel {
        supported: config.platforms.contains(&Platform::Web),
        html_snippet: format!(
            r#"<img src="{url}" width="1" height="1" alt="" style="display:none">"#
        ),
        pixel_url: url,
    }
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
        callback_authentication: kind.authentication().to_owned(),
        endpoint: TrackingEndpoint {
            method: "POST".to_owned(),
            url: postback_url(ctx, &m),
            also_accepts_get: true,
        },
        credentials,
        required_parameters: CONVERSION_FIELDS.iter().map(|s| (*s).to_owned()).collect(),
        signing: (kind == ProviderKind::CustomS2s).then(|| SigningRecipe {
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
        web_pixel: web_pixel(ctx, &m, &config),
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

/// `GET tracking/web-pixels`.
pub async fn pixel(ctx: &Ctx, actor: &Principal, id: &str) -> Result<WebPixel, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    Ok(web_pixel(ctx, &m, &config_of(&m)?))
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
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "campaign.ip_allowlist",
        (SUBJECT, &m.id),
        serde_json::json!({"entries": entries}),
    )
    .await?;
    txn.commit().await?;
    Ok(IpAllowlist { entries })
}

/// `custom-s2s/test`: checks a sample conversion locally against the active key. Nothing is
/// delivered and nothing is written.
pub async fn test_s2s(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: S2sTestRequest,
) -> Result<S2sTestResult, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    require_kind(&m, ProviderKind::CustomS2s)?;
    let cred = active(&ctx.db, &m.id, ProviderKind::CustomS2s)
        .await?
        .ok_or_else(|| {
            AppError::conflict("create a Custom S2S key first").with_code("credential_missing")
        })?;
    let secret = open_secret(ctx, &cred)?;
    let config = config_of(&m)?;
    let now = ctx.now();
    // The route signs only its own sample: values the caller chose are checked against the
    // caller's signature, never signed for it (the route is no signing oracle).
    let caller_values = [
        &req.click_id,
        &req.transaction_id,
        &req.goal_id,
        &req.status,
        &req.occurred_at,
        &req.timestamp,
    ]
    .iter()
    .any(|v| v.is_some());
    let click = req.click_id.unwrap_or_else(|| "clk_sample".to_owned());
    let txn_id = req
        .transaction_id
        .unwrap_or_else(|| "txn_sample_1".to_owned());
    let goal = req.goal_id.unwrap_or_else(|| {
        config
            .goals
            .first()
            .map(|g| g.external_goal_id.clone())
            .unwrap_or_default()
    });
    let status = req.status.unwrap_or_else(|| "approved".to_owned());
    let occurred = req
        .occurred_at
        .unwrap_or_else(|| now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    let timestamp = req.timestamp.unwrap_or_else(|| now.timestamp().to_string());
    let message = s2s_message(&timestamp, &click, &txn_id, &goal, &status, &occurred);
    let expected = crypto::hmac_sha256_hex(secret.as_bytes(), message.as_bytes());
    let mut checks = Vec::new();
    let mut check = |name: &str, ok: bool, message: String| {
        checks.push(TestCheck {
            name: name.to_owned(),
            ok,
            message,
        })
    };
    check(
        "click_id",
        !click.trim().is_empty(),
        "the click id received through {click_id}".to_owned(),
    );
    check(
        "transaction_id",
        !txn_id.trim().is_empty() && txn_id.len() <= 200,
        "a stable id of the conversion, 1-200 characters".to_owned(),
    );
    check(
        "goal_id",
        config.goals.iter().any(|g| g.external_goal_id == goal),
        format!(
            "one of the campaign's goals: {}",
            config
                .goals
                .iter()
                .map(|g| g.external_goal_id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    check(
        "status",
        CONVERSION_STATUSES.contains(&status.as_str()),
        "pending, approved, rejected or reversed".to_owned(),
    );
    check(
        "occurred_at",
        DateTime::parse_from_rfc3339(&occurred).is_ok(),
        "an ISO 8601 date-time, UTC".to_owned(),
    );
    let skew_ok = timestamp.parse::<i64>().is_ok_and(|t| {
        now.timestamp()
            .checked_sub(t)
            .and_then(i64::checked_abs)
            .is_some_and(|d| d <= MAX_SKEW_SECONDS)
    });
    check(
        "timestamp",
        skew_ok,
        format!("Unix seconds within {MAX_SKEW_SECONDS} seconds of the server clock"),
    );
    let signature = match req.signature {
        None if caller_values => {
            check(
                "signature",
                false,
                "send the signature you computed for your own values; only the built-in sample is signed here"
                    .to_owned(),
            );
            String::new()
        }
        Some(sig) => {
            let ok = crypto::constant_time_eq(
                sig.trim().to_ascii_lowercase().as_bytes(),
                expected.as_bytes(),
            );
            check(
                "signature",
                ok,
                "HMAC-SHA256 of the newline-joined message with the active key".to_owned(),
            );
            sig
        }
        None => expected,
    };
    let valid = checks.iter().all(|c| c.ok);
    let mut headers = BTreeMap::new();
    headers.insert("Content-Type".to_owned(), "application/json".to_owned());
    headers.insert("X-Service-Key-Id".to_owned(), cred.key_id.clone());
    headers.insert("X-Service-Timestamp".to_owned(), timestamp);
    headers.insert("X-Service-Signature".to_owned(), signature);
    Ok(S2sTestResult {
        valid,
        checks,
        delivered_externally: false,
        accounting_writes: 0,
        signed_message: message,
        request: SampleRequest {
            method: "POST".to_owned(),
            url: postback_url(ctx, &m),
            headers,
            body: serde_json::json!({
                "click_id": click, "transaction_id": txn_id, "goal_id": goal,
                "status": status, "occurred_at": occurred,
            }),
        },
    })
}

/// What a credential's sealed secret is bound to (its row).
pub(crate) fn seal_binding(credential_row_id: &str) -> String {
    format!("campaign_credentials:{credential_row_id}")
}

/// The plain secret of a stored Custom S2S credential.
fn open_secret(ctx: &Ctx, c: &campaign_credential::Model) -> Result<String, AppError> {
    ctx.keys.open(
        &seal_binding(&c.id),
        c.secret_sealed.as_deref().unwrap_or_default(),
    )
}
