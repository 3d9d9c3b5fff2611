//! User-bound SDK sessions: created without a dashboard token from the identity the app
//! reports (checked against the placement), valid fifteen minutes, refreshed or revoked
//! with an Idempotency-Key. Tokens are stored as SHA-256; a refresh keeps the replacement
//! token sealed so that a retried refresh returns the same session.

use std::sync::Arc;

use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::{SESSION_TTL, deliverable_sdk_slot};
use crate::domain::changes::Change;
use crate::domain::idempotency::IdempotencyKey;
use crate::domain::principal::SdkActor;
use crate::domain::publisher::placements::{CONSENTS, accepted_consents};
use crate::domain::publisher::{bans, slots};
use crate::domain::{Ctx, crypto, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::delivery::*;
use crate::model::language::Language;
use crate::model::publisher::rules::sdk_version;
use crate::model::publisher::{PlacementStatus, SlotType};
use entity::{ad_slot, placement, sdk_session};

const ENVIRONMENTS: [&str; 3] = ["sandbox", "development", "production"];

/// `POST /sdk/v2/sessions`.
pub async fn create(ctx: &Ctx, input: CreateSession) -> Result<SdkSession, AppError> {
    let now = ctx.now();
    let mut errs = FieldErrors::new();
    let text = |v: &Option<String>| v.as_deref().map(str::trim).unwrap_or_default().to_owned();
    let placement_id = text(&input.placement_id);
    let user = text(&input.external_user_id);
    let platform = text(&input.platform).to_ascii_lowercase();
    let version = text(&input.sdk_version);
    let identity = text(&input.package_bundle_or_domain);
    let environment = text(&input.environment).to_ascii_lowercase();
    let consent = text(&input.consent).to_ascii_uppercase();
    if placement_id.is_empty() {
        errs.add("placementId", "is required");
    }
    if user.is_empty() || user.chars().count() > 128 {
        errs.add("externalUserId", "must be 1 to 128 characters");
    }
    if !["android", "ios", "web"].contains(&platform.as_str()) {
        errs.add("platform", "must be android, ios or web");
    }
    let parsed_version = errs.check("sdkVersion", sdk_version(&version));
    if identity.is_empty() {
        errs.add("packageBundleOrDomain", "is required");
    }
    if !ENVIRONMENTS.contains(&environment.as_str()) {
        errs.add("environment", "must be sandbox, development or production");
    }
    if !CONSENTS.contains(&consent.as_str()) {
        errs.add(
            "consent",
            "must be GRANTED, DENIED, UNKNOWN or NOT_REQUIRED",
        );
    }
    let att = input
        .att_status
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned);
    if att.as_ref().is_some_and(|a| a.len() > 32) {
        errs.add("attStatus", "must be at most 32 characters");
    }
    let device_id = Some(text(&input.device_id)).filter(|d| !d.is_empty());
    if device_id
        .as_deref()
        .is_some_and(|d| d.chars().count() > 128 || d.chars().any(char::is_control))
    {
        errs.add("deviceId", "must be at most 128 printable characters");
    }
    let language = Some(text(&input.lang)).filter(|l| !l.is_empty());
    if language.as_deref().is_some_and(|l| !Language::is_tag(l)) {
        errs.add("lang", "must be a language tag such as de, pt-BR or ar");
    }
    errs.finish()?;

    let p = placement::Entity::find_by_id(placement_id.clone())
        .filter(placement::Column::ArchivedAt.is_null())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("placement"))?;
    if p.status != PlacementStatus::Verified {
        return Err(AppError::forbidden("the placement is not verified")
            .with_code("placement_not_verified"));
    }
    if environment == "production" && !p.released {
        return Err(
            AppError::forbidden("production sessions need a released placement")
                .with_code("placement_not_released"),
        );
    }
    // The app must be the one registered on the placement.
    let mut errs = FieldErrors::new();
    if platform != p.platform {
        errs.add("platform", format!("the placement runs on {}", p.platform));
    }
    if identity != p.platform_identity {
        errs.add(
            "packageBundleOrDomain",
            "does not match the identity registered on the placement",
        );
    }
    let minimum = sdk_version(&p.minimum_sdk_version).ok();
    if let (Some(v), Some(min)) = (parsed_version, minimum) {
        if v < min {
            errs.add(
                "sdkVersion",
                format!("must be at least {}", p.minimum_sdk_version),
            );
        }
    }
    if !accepted_consents(p.require_consent).contains(&consent.as_str()) {
        errs.add("consent", "this placement requires consent GRANTED");
    }
    errs.finish()?;
    let slot_id = input
        .ad_slot_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if let Some(id) = slot_id {
        let s = ad_slot::Entity::find_by_id(id.to_owned())
            .filter(ad_slot::Column::PlacementId.eq(p.id.clone()))
            .filter(ad_slot::Column::ArchivedAt.is_null())
            .one(&ctx.db)
            .await?
            .ok_or_else(|| AppError::field("adSlotId", "no such ad slot on this placement"))?;
        if !deliverable_sdk_slot(&s) {
            return Err(AppError::conflict(
                "the ad slot must be an OFFERWALL or OFFER_API slot that is READY or ACTIVE",
            )
            .with_code("slot_not_ready"));
        }
    }
    refuse_banned(&ctx.db, &p.id, &user, now).await?;
    let verified = crate::domain::publisher::user_identity::verify(
        ctx,
        now,
        &p.id,
        &user,
        input.user_signature.as_deref(),
        input.user_signature_expires_at,
    )
    .await?;

    let token = crypto::random_token("sdk");
    let row = sdk_session::ActiveModel {
        id: Set(new_id("ses")),
        token_hash: Set(crypto::sha256_hex(&token)),
        placement_id: Set(p.id.clone()),
        ad_slot_id: Set(slot_id.map(str::to_owned)),
        external_user_id: Set(user),
        platform: Set(platform),
        sdk_version: Set(version),
        package_bundle_or_domain: Set(identity),
        environment: Set(environment),
        consent: Set(consent),
        att_status: Set(att),
        issued_at: Set(now),
        expires_at: Set(now + SESSION_TTL),
        revoked_at: Set(None),
        replaced_by: Set(None),
        refresh_key: Set(None),
        sealed_token: Set(None),
        revoke_key: Set(None),
        user_verified: Set(verified.is_some()),
        user_verified_until: Set(verified.as_ref().map(|v| v.until)),
        user_secret_issued_at: Set(verified.and_then(|v| v.secret_issued_at)),
        language: Set(language),
        device_id: Set(device_id),
    }
    .insert(&ctx.db)
    .await?;
    view(ctx, &SdkActor::from(&row), Some(token)).await
}

async fn refuse_banned<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
    user: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), AppError> {
    if bans::active_ban(db, placement_id, user, now)
        .await?
        .is_some()
    {
        return Err(banned());
    }
    Ok(())
}

fn banned() -> AppError {
    AppError::forbidden("this user is banned from the placement").with_code("user_banned")
}

/// The session a bearer token names, whatever its state (refresh retries need replaced ones).
async fn by_token(ctx: &Ctx, token: &str) -> Result<sdk_session::Model, AppError> {
    by_hash(ctx, crypto::sha256_hex(token)).await
}

async fn by_hash(ctx: &Ctx, hash: String) -> Result<sdk_session::Model, AppError> {
    sdk_session::Entity::find()
        .filter(sdk_session::Column::TokenHash.eq(hash))
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::unauthorized("unknown SDK session token"))
}

/// The live session of a bearer token: 401 `sdk_session_expired` after fifteen minutes,
/// 401 `sdk_session_revoked` once revoked or replaced, 403 `user_banned` while the user is
/// banned (a ban stops sessions that already exist).
///
/// Every SDK request starts here, so the session and the user's bans come from the hot
/// cache (refresh, revoke and ban changes invalidate it; expiry is checked on every call).
pub async fn authenticate(ctx: &Ctx, token: &str) -> Result<Arc<SdkActor>, AppError> {
    let hash = crypto::sha256_hex(token);
    let s = ctx
        .hot
        .sessions
        .get_or_load(&hash, || async {
            let row = by_hash(ctx, hash.clone()).await?;
            Ok(Arc::new(SdkActor::from(&row)))
        })
        .await?;
    check_live(ctx, &s).await?;
    Ok(s)
}

/// Whether the user has an active ban on the placement now, from the hot cache.
async fn banned_now(ctx: &Ctx, placement_id: &str, user: &str) -> Result<bool, AppError> {
    let key = crate::domain::hot_cache::user_key(placement_id, user);
    let expiries = ctx
        .hot
        .bans
        .get_or_load(&key, || async {
            let bans = bans::active_bans(&ctx.db, placement_id, user).await?;
            Ok(std::sync::Arc::new(
                bans.into_iter().map(|b| b.expires_at).collect(),
            ))
        })
        .await?;
    let now = ctx.now();
    Ok(expiries.iter().any(|e| e.is_none_or(|e| e > now)))
}

async fn check_live(ctx: &Ctx, s: &SdkActor) -> Result<(), AppError> {
    let now = ctx.now();
    if s.revoked_at.is_some() {
        return Err(AppError::unauthorized(
            "the session was revoked or replaced; use the current session or create a new one",
        )
        .with_code("sdk_session_revoked"));
    }
    if s.expires_at <= now {
        return Err(AppError::unauthorized(
            "the session expired; create a new session for the same user and placement",
        )
        .with_code("sdk_session_expired"));
    }
    if banned_now(ctx, &s.placement_id, &s.external_user_id).await? {
        return Err(banned());
    }
    Ok(())
}

fn same_session(session_id: &str, path_id: &str) -> Result<(), AppError> {
    if session_id != path_id {
        return Err(AppError::forbidden(
            "the session in the path is not the bearer's session",
        ));
    }
    Ok(())
}

/// `GET /sdk/v2/sessions/{sessionId}/configuration` (no token in the answer).
pub async fn configuration(ctx: &Ctx, s: &SdkActor, path_id: &str) -> Result<SdkSession, AppError> {
    same_session(&s.id, path_id)?;
    view(ctx, s, None).await
}

/// `POST /sdk/v2/sessions/{sessionId}/refresh`: a replacement session with a new token and
/// a fresh fifteen minutes; the old token stops working. Retrying with the same
/// Idempotency-Key (even with the replaced token) returns the same replacement.
pub async fn refresh(
    ctx: &Ctx,
    token: &str,
    path_id: &str,
    key: &IdempotencyKey,
) -> Result<SdkSession, AppError> {
    let key = key.as_str();
    let old = by_token(ctx, token).await?;
    same_session(&old.id, path_id)?;
    if let Some(next) = old.replaced_by.as_deref() {
        if old.refresh_key.as_deref() != Some(key) {
            return Err(AppError::conflict(
                "the session was already refreshed with another Idempotency-Key",
            )
            .with_code("session_already_refreshed"));
        }
        let n = sdk_session::Entity::find_by_id(next.to_owned())
            .one(&ctx.db)
            .await?
            .ok_or_else(|| AppError::not_found("session"))?;
        check_live(ctx, &SdkActor::from(&n)).await?;
        let token = ctx.keys.open(
            &seal_binding(&n.id),
            n.sealed_token.as_deref().unwrap_or_default(),
        )?;
        return view(ctx, &SdkActor::from(&n), Some(token)).await;
    }
    check_live(ctx, &SdkActor::from(&old)).await?;
    let now = ctx.now();
    let token = crypto::random_token("sdk");
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let next_id = new_id("ses");
    let next = sdk_session::ActiveModel {
        id: Set(next_id.clone()),
        token_hash: Set(crypto::sha256_hex(&token)),
        placement_id: Set(old.placement_id.clone()),
        ad_slot_id: Set(old.ad_slot_id.clone()),
        external_user_id: Set(old.external_user_id.clone()),
        platform: Set(old.platform.clone()),
        sdk_version: Set(old.sdk_version.clone()),
        package_bundle_or_domain: Set(old.package_bundle_or_domain.clone()),
        environment: Set(old.environment.clone()),
        consent: Set(old.consent.clone()),
        att_status: Set(old.att_status.clone()),
        issued_at: Set(now),
        expires_at: Set(now + SESSION_TTL),
        revoked_at: Set(None),
        replaced_by: Set(None),
        refresh_key: Set(None),
        sealed_token: Set(Some(ctx.keys.seal(&seal_binding(&next_id), &token)?)),
        revoke_key: Set(None),
        // A refresh keeps the user the publisher signed, but only as long as its signature
        // holds: the expiry travels with it (issue 52).
        user_verified: Set(old.user_verified),
        user_verified_until: Set(old.user_verified_until),
        user_secret_issued_at: Set(old.user_secret_issued_at),
        language: Set(old.language.clone()),
        device_id: Set(old.device_id.clone()),
    }
    .insert(&txn)
    .await?;
    // Guarded on "not yet replaced" so two concurrent refreshes cannot both win.
    let moved = sdk_session::Entity::update_many()
        .col_expr(
            sdk_session::Column::RevokedAt,
            sea_orm::sea_query::Expr::value(now),
        )
        .col_expr(
            sdk_session::Column::ReplacedBy,
            sea_orm::sea_query::Expr::value(next.id.clone()),
        )
        .col_expr(
            sdk_session::Column::RefreshKey,
            sea_orm::sea_query::Expr::value(key.to_owned()),
        )
        .filter(sdk_session::Column::Id.eq(old.id.clone()))
        .filter(sdk_session::Column::ReplacedBy.is_null())
        .filter(sdk_session::Column::RevokedAt.is_null())
        .exec(&txn)
        .await?;
    if moved.rows_affected != 1 {
        return Err(AppError::conflict("the session changed; retry the refresh")
            .with_code("session_already_refreshed"));
    }
    ctx.commit_and_announce(txn, [Change::Session(old.token_hash.clone())])
        .await?;
    view(ctx, &SdkActor::from(&next), Some(token)).await
}

/// `POST /sdk/v2/sessions/{sessionId}/revoke`: the token stops working. Revoking a session
/// that is already revoked is a no-op (204 again).
pub async fn revoke(
    ctx: &Ctx,
    token: &str,
    path_id: &str,
    key: &IdempotencyKey,
) -> Result<(), AppError> {
    let key = key.as_str();
    let s = by_token(ctx, token).await?;
    same_session(&s.id, path_id)?;
    if s.revoked_at.is_some() {
        return Ok(());
    }
    let now = ctx.now();
    let hash = s.token_hash.clone();
    let mut am: sdk_session::ActiveModel = s.into();
    am.revoked_at = Set(Some(now));
    am.revoke_key = Set(Some(key.to_owned()));
    am.update(&ctx.db).await?;
    ctx.announce([Change::Session(hash)]);
    Ok(())
}

/// The session as the SDK sees it; `token` only when it is being issued.
pub async fn view(ctx: &Ctx, s: &SdkActor, token: Option<String>) -> Result<SdkSession, AppError> {
    let db = &ctx.db;
    let p = placement::Entity::find_by_id(s.placement_id.clone())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("placement"))?;
    let mut q = ad_slot::Entity::find().filter(ad_slot::Column::PlacementId.eq(p.id.clone()));
    if let Some(id) = &s.ad_slot_id {
        q = q.filter(ad_slot::Column::Id.eq(id.clone()));
    }
    let mut rows = q.all(db).await?;
    rows.retain(deliverable_sdk_slot);
    rows.sort_by(|a, b| a.created_at.cmp(&b.created_at));
    let ad_slots: Vec<SessionSlot> = rows
        .iter()
        .map(|r| {
            let v = slots::view(r, &p);
            SessionSlot {
                ad_slot_id: v.ad_slot_id,
                name: v.name,
                slot_type: v.slot_type,
                state: v.state,
                currency: v.currency,
            }
        })
        .collect();
    let has = |t: SlotType| ad_slots.iter().any(|s| s.slot_type == t);
    // The hosted wall renders OFFERWALL slots; its URL carries the token, so it exists
    // only in the answers that issue one.
    let hosted = has(SlotType::Offerwall);
    let hosted_offerwall_url = token
        .as_deref()
        .filter(|_| hosted)
        .map(|t| super::hosted_wall::url(&ctx.config.base_url, t, s.language.as_deref()));
    let lang = s.language.clone();
    Ok(SdkSession {
        session_id: s.id.clone(),
        token,
        token_type: "Bearer".to_owned(),
        issued_at: s.issued_at,
        expires_at: s.expires_at,
        contract_version: CONTRACT_VERSION.to_owned(),
        placement_id: s.placement_id.clone(),
        ad_slot_id: s.ad_slot_id.clone(),
        external_user_id: s.external_user_id.clone(),
        platform: s.platform.clone(),
        environment: s.environment.clone(),
        consent: s.consent.clone(),
        capabilities: SessionCapabilities {
            offerwall: has(SlotType::Offerwall),
            offer_api: has(SlotType::OfferApi),
            reward_status: true,
            support: true,
            evidence_upload: super::support_cases::evidence::allowed(ctx, s),
            hosted_offerwall: hosted,
        },
        ad_slots,
        hosted_offerwall_url,
        lang,
    })
}

/// What a session's sealed token is bound to (its row), so it cannot be moved to another.
fn seal_binding(session_id: &str) -> String {
    format!("sdk_sessions:{session_id}")
}
