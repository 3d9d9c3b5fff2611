//! Reward callback settings and signing. The receiver must be HTTPS and public (unless
//! `APP_CALLBACK_ALLOW_PRIVATE` outside production). A placement has a CURRENT signing key
//! and optionally a NEXT one: rotate creates NEXT while CURRENT keeps signing, promote
//! switches. Secrets are sealed at rest and shown once.
//!
//! Signature (spec "Events", CONTRACT.md section 8): `X-Service-Signature` is the lower-case
//! hex HMAC-SHA256, keyed with the secret's UTF-8 bytes, of `timestamp.nonce.body`, where the
//! body is canonical JSON (object keys sorted recursively, array order kept, no whitespace)
//! and the timestamp is the RFC 3339 UTC value sent in `X-Service-Timestamp`.

use chrono::{DateTime, SecondsFormat, Utc};
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use serde_json::{Value, json};
use std::collections::BTreeMap;

use crate::domain::callback_delivery::address::{AddressRefused, resolve_checked};
use crate::domain::callback_delivery::outbox;
use crate::domain::changes::Change;
use crate::domain::publisher::owned_placement;
use crate::domain::{Ctx, Principal, crypto, ids::new_id};
use crate::error::AppError;
use crate::model::publisher::*;
use entity::{callback_key, placement};

pub mod remove;
pub mod standard_webhooks;
pub mod test_event;

pub use entity::values::CallbackKeyState;

/// Prefix of callback signing secrets.
pub const SECRET_PREFIX: &str = "mkt_cbs";

/// Serialises JSON canonically: object keys sorted recursively, arrays in order, compact.
pub fn canonical_json(v: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let sorted: BTreeMap<&String, Value> =
                    m.iter().map(|(k, v)| (k, sort(v))).collect();
                Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    // serde_json's map keeps insertion order only with `preserve_order`; writing sorted keys
    // in order makes the result canonical either way.
    sort(v).to_string()
}

/// Lower-case hex HMAC-SHA256 over `timestamp.nonce.body`.
pub fn signature(secret: &str, timestamp: &str, nonce: &str, body: &str) -> String {
    crypto::hmac_sha256_hex(
        secret.as_bytes(),
        format!("{timestamp}.{nonce}.{body}").as_bytes(),
    )
}

/// A signed request ready to send: headers and the exact body bytes.
pub struct SignedDelivery {
    pub headers: BTreeMap<String, String>,
    pub body: String,
    pub signed_string: String,
}

/// Builds the headers and body of one delivery (used by the test route and the delivery
/// worker): the specification's headers signed by the CURRENT key, and the Standard Webhooks
/// headers signed by it and, during a rotation, by the NEXT key too.
pub fn sign_delivery(
    key: &KeySecrets,
    payload: &Value,
    now: DateTime<Utc>,
    nonce: &str,
    idempotency_key: &str,
) -> SignedDelivery {
    let body = canonical_json(payload);
    let timestamp = now.to_rfc3339_opts(SecondsFormat::Secs, true);
    let sig = signature(&key.secret, &timestamp, nonce, &body);
    let secrets: Vec<&str> = std::iter::once(key.secret.as_str())
        .chain(key.next_secret.as_deref())
        .collect();
    let standard = standard_webhooks::headers(&secrets, idempotency_key, now.timestamp(), &body);
    let key_id = key.id.as_str();
    let mut headers = BTreeMap::from([
        ("Content-Type".to_owned(), "application/json".to_owned()),
        ("Idempotency-Key".to_owned(), idempotency_key.to_owned()),
        ("X-Service-Key-Id".to_owned(), key_id.to_owned()),
        ("X-Service-Nonce".to_owned(), nonce.to_owned()),
        ("X-Service-Signature".to_owned(), sig),
        ("X-Service-Timestamp".to_owned(), timestamp.clone()),
    ]);
    headers.extend(standard);
    SignedDelivery {
        headers,
        signed_string: format!("{timestamp}.{nonce}.{body}"),
        body,
    }
}

/// Checks a receiver URL: HTTPS, a host, no credentials or control characters, and (unless
/// private receivers are allowed) no local name, no private address literal and no name
/// that resolves to a private address. A name that does not resolve *yet* is accepted here
/// (nothing is sent at configuration time, and DNS may still be propagating); every send
/// resolves it again and fails closed (see `callback_delivery::address`).
pub async fn validate_receiver(raw: &str, allow_private: bool) -> Result<String, AppError> {
    let field = |why: &str| AppError::field("url", why);
    if raw.chars().any(char::is_control) {
        return Err(field("must not contain control characters"));
    }
    let u = url::Url::parse(raw.trim()).map_err(|_| field("must be an absolute HTTPS URL"))?;
    if u.scheme() != "https" {
        return Err(field("must use https"));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err(field("must not contain credentials"));
    }
    if u.fragment().is_some() {
        return Err(field("must not contain a fragment"));
    }
    let host = u.host_str().ok_or_else(|| field("must have a host"))?;
    if !allow_private {
        let port = u.port_or_known_default().unwrap_or(443);
        if let Err(AddressRefused::Private) = resolve_checked(host, port, false).await {
            return Err(field(
                "must not point to a loopback or private network address",
            ));
        }
    }
    Ok(u.to_string())
}

async fn keys<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
) -> Result<Vec<callback_key::Model>, AppError> {
    Ok(callback_key::Entity::find()
        .filter(callback_key::Column::PlacementId.eq(placement_id.to_owned()))
        .filter(
            callback_key::Column::State.is_in([CallbackKeyState::Current, CallbackKeyState::Next]),
        )
        .all(db)
        .await?)
}

async fn new_key<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    placement_id: &str,
    state: CallbackKeyState,
) -> Result<(String, String), AppError> {
    let secret = crypto::random_token(SECRET_PREFIX);
    let id = new_id("cbk");
    callback_key::ActiveModel {
        id: Set(id.clone()),
        placement_id: Set(placement_id.to_owned()),
        state: Set(state),
        secret_ciphertext: Set(ctx.keys.seal(&seal_binding(&id), &secret)?),
        created_at: Set(ctx.now()),
        promoted_at: Set(None),
        retired_at: Set(None),
    }
    .insert(db)
    .await
    .map_err(crate::domain::db::race_on_unique)?;
    Ok((id, secret))
}

fn settings_of(
    p: &placement::Model,
    keys: &[callback_key::Model],
    secret: Option<String>,
) -> Result<CallbackSettings, AppError> {
    let url = p
        .callback_url
        .clone()
        .ok_or_else(|| AppError::not_found("callback configuration"))?;
    let current = keys
        .iter()
        .find(|k| k.state == CallbackKeyState::Current)
        .ok_or_else(|| AppError::not_found("callback configuration"))?;
    Ok(CallbackSettings {
        url,
        key_id: current.id.clone(),
        status: "ACTIVE".to_owned(),
        next_key_id: keys
            .iter()
            .find(|k| k.state == CallbackKeyState::Next)
            .map(|k| k.id.clone()),
        standard_webhooks_secret: secret.as_deref().map(standard_webhooks::secret),
        secret,
    })
}

/// Sets the receiver URL. The first configuration creates the signing key and returns its
/// secret once; later calls change the URL only.
pub async fn configure(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    url: &str,
) -> Result<CallbackSettings, AppError> {
    let url = validate_receiver(url, ctx.config.callback_allow_private).await?;
    // Two first configurations at once: the loser sees the winner's key and answers
    // without a secret, as a sequential second call would.
    crate::domain::db::retry_on_race(|| configure_once(ctx, actor, placement_id, &url)).await
}

async fn configure_once(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    url: &str,
) -> Result<CallbackSettings, AppError> {
    let url = url.to_owned();
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    let mut secret = None;
    if keys(&txn, &p.id)
        .await?
        .iter()
        .all(|k| k.state != CallbackKeyState::Current)
    {
        secret = Some(
            new_key(ctx, &txn, &p.id, CallbackKeyState::Current)
                .await?
                .1,
        );
    }
    let mut am: placement::ActiveModel = p.into();
    am.callback_url = Set(Some(url.clone()));
    am.updated_at = Set(now);
    let p = am.update(&txn).await?;
    // Rewards kept while no receiver was configured are sent now.
    outbox::release_waiting(&txn, now, &p.id).await?;
    let detail = json!({"url": url});
    actor
        .audit(
            &txn,
            now,
            "callback.configure",
            ("placement", placement_id),
            detail,
        )
        .await?;
    let ks = keys(&txn, &p.id).await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    crate::domain::callback_delivery::announce(ctx).await;
    settings_of(&p, &ks, secret)
}

/// The current settings (no secret).
pub async fn settings(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<CallbackSettings, AppError> {
    let p = owned_placement(&ctx.db, actor, placement_id).await?;
    let ks = keys(&ctx.db, &p.id).await?;
    settings_of(&p, &ks, None)
}

/// Creates (or replaces) the NEXT key; CURRENT keeps signing until promotion.
pub async fn rotate(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<CallbackKeyIssued, AppError> {
    crate::domain::db::retry_on_race(|| rotate_once(ctx, actor, placement_id)).await
}

async fn rotate_once(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<CallbackKeyIssued, AppError> {
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    let ks = keys(&txn, &p.id).await?;
    if p.callback_url.is_none() || ks.iter().all(|k| k.state != CallbackKeyState::Current) {
        return Err(AppError::conflict(
            "configure the callback before rotating its key",
        ));
    }
    for k in ks.into_iter().filter(|k| k.state == CallbackKeyState::Next) {
        let mut am: callback_key::ActiveModel = k.into();
        am.state = Set(CallbackKeyState::Retired);
        am.retired_at = Set(Some(now));
        am.update(&txn).await?;
    }
    let (key_id, secret) = new_key(ctx, &txn, &p.id, CallbackKeyState::Next).await?;
    let detail = json!({"keyId": key_id});
    actor
        .audit(
            &txn,
            now,
            "callback.rotate",
            ("placement", placement_id),
            detail,
        )
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    Ok(CallbackKeyIssued {
        key_id,
        standard_webhooks_secret: standard_webhooks::secret(&secret),
        secret,
    })
}

/// NEXT becomes CURRENT; the old CURRENT is retired.
pub async fn promote(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<CallbackKeyRef, AppError> {
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    let ks = keys(&txn, &p.id).await?;
    let Some(next) = ks
        .iter()
        .find(|k| k.state == CallbackKeyState::Next)
        .cloned()
    else {
        return Err(AppError::conflict(
            "there is no next key to promote; rotate first",
        ));
    };
    for k in ks
        .into_iter()
        .filter(|k| k.state == CallbackKeyState::Current)
    {
        let mut am: callback_key::ActiveModel = k.into();
        am.state = Set(CallbackKeyState::Retired);
        am.retired_at = Set(Some(now));
        am.update(&txn).await?;
    }
    let key_id = next.id.clone();
    let mut am: callback_key::ActiveModel = next.into();
    am.state = Set(CallbackKeyState::Current);
    am.promoted_at = Set(Some(now));
    am.update(&txn).await?;
    let detail = json!({"keyId": key_id});
    actor
        .audit(
            &txn,
            now,
            "callback.promote",
            ("placement", placement_id),
            detail,
        )
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    Ok(CallbackKeyRef { key_id })
}

/// The secrets that sign a placement's callbacks: the CURRENT key's, and the NEXT key's
/// while a rotation is in progress. Never in `Debug` output.
#[derive(Clone)]
pub struct KeySecrets {
    pub id: String,
    pub secret: String,
    pub next_secret: Option<String>,
}

impl std::fmt::Debug for KeySecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeySecrets")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The signing secrets of a placement (for signing deliveries).
pub async fn signing_key<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    placement_id: &str,
) -> Result<KeySecrets, AppError> {
    let ks = keys(db, placement_id).await?;
    let k = ks
        .iter()
        .find(|k| k.state == CallbackKeyState::Current)
        .ok_or_else(|| AppError::conflict("the callback is not configured"))?;
    let next = ks.iter().find(|k| k.state == CallbackKeyState::Next);
    Ok(KeySecrets {
        id: k.id.clone(),
        secret: open_secret(ctx, k)?,
        next_secret: next.and_then(|n| open_secret(ctx, n).ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_recursively_and_keeps_arrays() {
        let v = json!({"b": 1, "a": {"z": [3, {"y": 1, "x": 2}], "c": null}});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":{"c":null,"z":[3,{"x":2,"y":1}]},"b":1}"#
        );
    }

    #[test]
    fn signature_is_hmac_of_timestamp_nonce_body() {
        let sig = signature("secret", "2026-01-01T00:00:00Z", "n1", "{}");
        assert_eq!(
            sig,
            crypto::hmac_sha256_hex(b"secret", b"2026-01-01T00:00:00Z.n1.{}")
        );
        assert_eq!(sig.len(), 64);
    }

    /// The test vectors published in `docs/callbacks.md` hold for this implementation.
    #[test]
    fn published_test_vectors_verify() {
        let doc = include_str!("../../../../../docs/callbacks.md");
        let field = |name: &str, nth: usize| -> String {
            doc.lines()
                .skip_while(|l| !l.starts_with("## Test vectors"))
                .filter(|l| l.trim_start().starts_with(&format!("- {name}")))
                .nth(nth)
                .and_then(|l| l.split('`').nth(1))
                .unwrap_or_default()
                .to_owned()
        };
        let bodies: Vec<String> = doc
            .lines()
            .skip_while(|l| !l.starts_with("## Test vectors"))
            .filter(|l| l.trim_start().starts_with("`{"))
            .map(|l| l.trim().trim_matches('`').to_owned())
            .collect();
        assert_eq!(bodies.len(), 2);
        let (secret, ts, nonce) = (field("secret", 0), field("timestamp", 0), field("nonce", 0));
        for (i, body) in bodies.iter().enumerate() {
            let parsed: Value = serde_json::from_str(body).unwrap_or_default();
            assert_eq!(
                &canonical_json(&parsed),
                body,
                "the published body is canonical"
            );
            assert_eq!(signature(&secret, &ts, &nonce, body), field("signature", i));
        }
    }
}

/// What a callback key's sealed secret is bound to (its row).
pub(crate) fn seal_binding(key_id: &str) -> String {
    format!("callback_keys:{key_id}")
}

/// The plain signing secret of a stored callback key.
pub fn open_secret(ctx: &Ctx, k: &callback_key::Model) -> Result<String, AppError> {
    ctx.keys.open(&seal_binding(&k.id), &k.secret_ciphertext)
}
