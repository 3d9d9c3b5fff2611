//! Signed user identity. SDK session creation is unauthenticated (the specification's
//! design: the SDK runs in the user's browser or app), so anyone can open a session for any
//! `externalUserId`. Offers are the same for everybody, but a user's support cases, the
//! publisher's replies and the reward history are that user's. A placement can therefore
//! hold a secret its server signs users with:
//!
//! `userSignature = hex(HMAC-SHA256(secret, "v1:{placementId}:{externalUserId}:{userSignatureExpiresAt}"))`
//!
//! with `userSignatureExpiresAt` in Unix seconds, at most 30 days ahead. The SDK passes both
//! at session creation; a wrong or expired signature is refused (401
//! `invalid_user_signature`), a valid one marks the session's user as verified until the
//! signature's expiry (a refresh does not extend it) and while the secret that signed it is
//! accepted: issuing a new secret keeps the previous one for [`ROTATION_OVERLAP`], so the
//! publisher's servers can switch, then sessions it signed stop counting. When the
//! placement requires it, sessions without a verified user get 403 `signed_user_required`
//! on the support and reward-history reads; offers, launches and new support cases work as
//! before.

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, IntoActiveModel, Set};

use super::owned_placement;
use crate::domain::principal::SdkActor;
use crate::domain::{Ctx, Principal, crypto};
use crate::error::AppError;
use crate::model::user_identity::*;
use entity::placement_user_identity as identity;

/// Prefix of user identity secrets.
pub const PREFIX: &str = "mkt_uis";
/// The furthest ahead a signature may expire.
const LONGEST_VALIDITY_DAYS: i64 = 30;
/// How long the previous secret is still accepted after a new one is issued.
pub const ROTATION_OVERLAP: Duration = Duration::hours(24);

/// A signature that verified: until when it holds and which secret signed it.
#[derive(Debug, Clone)]
pub struct Verified {
    pub until: DateTime<Utc>,
    pub secret_issued_at: Option<DateTime<Utc>>,
}

/// What a sealed secret is bound to (`server reseal` re-seals it under the current key).
pub fn seal_binding(placement_id: &str) -> String {
    format!("placement_user_identities:{placement_id}")
}

/// The message the publisher's server signs.
pub fn signed_message(placement_id: &str, external_user_id: &str, expires_at: i64) -> String {
    format!("v1:{placement_id}:{external_user_id}:{expires_at}")
}

fn view(placement_id: &str, row: Option<&identity::Model>) -> UserIdentitySettings {
    UserIdentitySettings {
        placement_id: placement_id.to_owned(),
        required: row.is_some_and(|r| r.required),
        secret_issued_at: row.and_then(|r| r.issued_at),
    }
}

async fn row_of<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
) -> Result<Option<identity::Model>, AppError> {
    Ok(identity::Entity::find_by_id(placement_id.to_owned())
        .one(db)
        .await?)
}

/// `GET …/placements/{placementId}/user-identity`.
pub async fn settings(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<UserIdentitySettings, AppError> {
    let p = owned_placement(&ctx.db, actor, placement_id).await?;
    Ok(view(&p.id, row_of(&ctx.db, &p.id).await?.as_ref()))
}

/// `POST …/user-identity/secret`: a new secret, shown once; the previous one is still
/// accepted for [`ROTATION_OVERLAP`], then stops.
pub async fn issue_secret(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<UserIdentitySecret, AppError> {
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    let secret = crypto::random_token(PREFIX);
    let sealed = ctx.keys.seal(&seal_binding(&p.id), &secret)?;
    match row_of(&txn, &p.id).await? {
        Some(r) => {
            let (previous, previous_issued_at) = (r.secret_sealed.clone(), r.issued_at);
            let mut a = r.into_active_model();
            a.previous_until = Set(previous.as_ref().map(|_| now + ROTATION_OVERLAP));
            a.previous_secret_sealed = Set(previous);
            a.previous_issued_at = Set(previous_issued_at);
            a.secret_sealed = Set(Some(sealed));
            a.issued_at = Set(Some(now));
            a.updated_at = Set(now);
            a.update(&txn).await?;
        }
        None => {
            identity::ActiveModel {
                placement_id: Set(p.id.clone()),
                secret_sealed: Set(Some(sealed)),
                required: Set(false),
                issued_at: Set(Some(now)),
                updated_at: Set(now),
                previous_secret_sealed: Set(None),
                previous_issued_at: Set(None),
                previous_until: Set(None),
            }
            .insert(&txn)
            .await
            .map_err(crate::domain::db::race_on_unique)?;
        }
    }
    let detail = serde_json::json!({});
    actor
        .audit(
            &txn,
            now,
            "user_identity.secret_issued",
            ("placement", &p.id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok(UserIdentitySecret {
        placement_id: p.id,
        secret,
        issued_at: now,
        displayed_once: true,
    })
}

/// `PUT …/user-identity`: require (or stop requiring) signed users. Requiring needs a secret.
pub async fn set_required(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    input: UserIdentityUpdate,
) -> Result<UserIdentitySettings, AppError> {
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    let row = row_of(&txn, &p.id).await?;
    let Some(r) = row.filter(|r| r.secret_sealed.is_some()) else {
        if input.required {
            return Err(AppError::conflict(
                "issue a user identity secret first: your server signs users with it",
            )
            .with_code("no_user_identity_secret"));
        }
        txn.commit().await?;
        return Ok(view(&p.id, None));
    };
    let mut a = r.into_active_model();
    a.required = Set(input.required);
    a.updated_at = Set(now);
    let r = a.update(&txn).await?;
    let detail = serde_json::json!({"required": input.required});
    actor
        .audit(
            &txn,
            now,
            "user_identity.updated",
            ("placement", &p.id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok(view(&p.id, Some(&r)))
}

/// At session creation: whether the signature given (if any) verifies `external_user_id`,
/// by the current secret or the previous one during its overlap. `Ok(None)` when none was
/// given; an error when one was given and does not verify.
pub async fn verify(
    ctx: &Ctx,
    now: DateTime<Utc>,
    placement_id: &str,
    external_user_id: &str,
    signature: Option<&str>,
    expires_at: Option<i64>,
) -> Result<Option<Verified>, AppError> {
    let (signature, expires_at) = match (signature.map(str::trim), expires_at) {
        (None | Some(""), None) => return Ok(None),
        (Some(s), Some(e)) if !s.is_empty() => (s, e),
        _ => {
            return Err(AppError::field(
                "userSignature",
                "userSignature and userSignatureExpiresAt go together",
            ));
        }
    };
    let refused = |why: &str| {
        AppError::unauthorized(format!("the user signature {why}"))
            .with_code("invalid_user_signature")
    };
    let expires = DateTime::from_timestamp(expires_at, 0).ok_or_else(|| refused("is expired"))?;
    if expires <= now {
        return Err(refused("is expired"));
    }
    if expires > now + Duration::days(LONGEST_VALIDITY_DAYS) {
        return Err(AppError::field(
            "userSignatureExpiresAt",
            "must be at most 30 days ahead",
        ));
    }
    let Some(row) = row_of(&ctx.db, placement_id)
        .await?
        .filter(|r| r.secret_sealed.is_some())
    else {
        return Err(AppError::field(
            "userSignature",
            "this placement has no user identity secret",
        ));
    };
    let message = signed_message(placement_id, external_user_id, expires_at);
    let signed_by = |sealed: &str| -> Result<bool, AppError> {
        let secret = ctx.keys.open(&seal_binding(placement_id), sealed)?;
        let expected = crypto::hmac_sha256_hex(secret.as_bytes(), message.as_bytes());
        Ok(crypto::constant_time_eq(
            expected.as_bytes(),
            signature.to_ascii_lowercase().as_bytes(),
        ))
    };
    if let Some(current) = &row.secret_sealed
        && signed_by(current)?
    {
        return Ok(Some(Verified {
            until: expires,
            secret_issued_at: row.issued_at,
        }));
    }
    if let Some(previous) = &row.previous_secret_sealed
        && row.previous_until.is_some_and(|u| u > now)
        && signed_by(previous)?
    {
        // Signed by the secret being rotated out: verified no longer than its overlap.
        return Ok(Some(Verified {
            until: row.previous_until.map_or(expires, |u| u.min(expires)),
            secret_issued_at: row.previous_issued_at,
        }));
    }
    Err(refused("does not match this user"))
}

/// Whether the session's user still counts as signed now: signed, within the signature's
/// expiry, by a secret still accepted (the current one, or the previous during its
/// overlap).
fn still_verified(s: &SdkActor, row: Option<&identity::Model>, now: DateTime<Utc>) -> bool {
    if !s.user_verified || s.user_verified_until.is_none_or(|u| u <= now) {
        return false;
    }
    let Some(r) = row else {
        return false;
    };
    let by = s.user_secret_issued_at;
    by.is_some()
        && (by == r.issued_at
            || (by == r.previous_issued_at && r.previous_until.is_some_and(|u| u > now)))
}

/// Before a read of the user's history: refused when the placement requires signed users
/// and this session's user is not signed now ([`still_verified`]).
pub async fn require_verified(ctx: &Ctx, s: &SdkActor) -> Result<(), AppError> {
    let row = row_of(&ctx.db, &s.placement_id).await?;
    if still_verified(s, row.as_ref(), ctx.now()) {
        return Ok(());
    }
    if row.is_some_and(|r| r.required && r.secret_sealed.is_some()) {
        return Err(AppError::forbidden(
            "this placement shows a user's history only to sessions whose user its server signed",
        )
        .with_code("signed_user_required"));
    }
    Ok(())
}
