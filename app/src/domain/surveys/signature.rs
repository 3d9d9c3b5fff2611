//! Survey API authentication: `X-Api-Key` plus the `enc` URL signature, a hex digest of
//! (URL without query) + (body as received, when not empty) + (advertiser secret) with the
//! credential's algorithm (SHA-1, SHA-256 or SHA3-256).
//!
//! The specification's scheme signs neither the method nor a time, so a captured request can
//! be sent again. Two stronger modes (docs/surveys.md, "Signatures"):
//! - version 2 (`X-Signature-Version: 2` with `X-Request-Timestamp`): the signed input is
//!   `v2\n<METHOD>\n<url>\n<timestamp>\n<sha256 hex of the body>\n<secret>`, so neither the
//!   method nor the body can change and no field can pass for another;
//! - the older timestamped mode (`X-Request-Timestamp` alone, URL + body + timestamp +
//!   secret), kept for callers that use it.
//!
//! In both, the timestamp must be within five minutes of the server clock and each `enc`
//! works once (kept in the database for the window, so every process refuses a replay).
//! In every mode a GET or DELETE carries no body (a body there could stand in for a
//! timestamp). SHA-1 is accepted for compatibility but deprecated.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use sha1::Sha1;
use sha2::{Digest, Sha256};
use sha3::Sha3_256;

use crate::domain::{Ctx, Principal, accounts, crypto};
use crate::error::AppError;
use crate::model::EncryptionType;
use entity::survey_api_credential as cred;

/// Lower-case hex digest of `input` with the chosen algorithm.
pub fn digest(kind: EncryptionType, input: &[u8]) -> String {
    match kind {
        EncryptionType::Sha1 => hex::encode(Sha1::digest(input)),
        EncryptionType::Sha256 => hex::encode(Sha256::digest(input)),
        EncryptionType::Sha3_256 => hex::encode(Sha3_256::digest(input)),
    }
}

/// What a signed request signs: URL, then the body when it is not empty, then the secret.
pub fn signed_input(url: &str, body: &[u8], secret: &str) -> Vec<u8> {
    let mut input = Vec::with_capacity(url.len() + body.len() + secret.len());
    input.extend_from_slice(url.as_bytes());
    input.extend_from_slice(body);
    input.extend_from_slice(secret.as_bytes());
    input
}

fn refused(message: &str) -> AppError {
    AppError::unauthorized(message.to_owned())
}

/// How far `X-Request-Timestamp` may be from the server's clock, in seconds.
pub const TIMESTAMP_WINDOW_SECONDS: i64 = 300;

/// The signed input of the timestamped mode: URL, body, timestamp, then the secret.
pub fn signed_input_at(url: &str, body: &[u8], timestamp: &str, secret: &str) -> Vec<u8> {
    let mut input = signed_input(url, body, "");
    input.extend_from_slice(timestamp.as_bytes());
    input.extend_from_slice(secret.as_bytes());
    input
}

/// The signed input of version 2: every field on its own line, the method and a digest of
/// the body included, then the secret.
pub fn signed_input_v2(
    method: &str,
    url: &str,
    body: &[u8],
    timestamp: &str,
    secret: &str,
) -> Vec<u8> {
    format!(
        "v2\n{}\n{url}\n{timestamp}\n{}\n{secret}",
        method.to_ascii_uppercase(),
        hex::encode(Sha256::digest(body))
    )
    .into_bytes()
}

/// A survey API request as the server received it.
#[derive(Debug, Clone, Copy)]
pub struct SignedRequest<'a> {
    pub api_key: Option<&'a str>,
    pub method: &'a str,
    /// The scheme, host and path the server rebuilt.
    pub url: &'a str,
    pub body: &'a [u8],
    /// The only query parameter.
    pub enc: Option<&'a str>,
    /// `X-Request-Timestamp`.
    pub timestamp: Option<&'a str>,
    /// `X-Signature-Version`.
    pub version: Option<&'a str>,
}

/// Authenticates a survey API request. Missing or unknown keys and bad signatures are 401
/// (`invalid_signature` for the signature, `replayed_signature` for a timestamped signature
/// used twice); a body on GET or DELETE is 400; a pending advertiser is 403
/// `account_pending`.
pub async fn authenticate(ctx: &Ctx, r: SignedRequest<'_>) -> Result<Principal, AppError> {
    let SignedRequest {
        api_key,
        method,
        url,
        body,
        enc,
        timestamp,
        version,
    } = r;
    let bodiless = method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("DELETE");
    let trimmed = String::from_utf8_lossy(body);
    if bodiless && !matches!(trimmed.trim(), "" | "{}") {
        return Err(AppError::invalid(format!(
            "a {method} request carries no body"
        )));
    }
    let api_key = api_key
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .ok_or_else(|| refused("the X-Api-Key header is required"))?;
    let c = cred::Entity::find()
        .filter(cred::Column::ApiKeyHash.eq(crypto::sha256_hex(api_key)))
        .filter(cred::Column::RevokedAt.is_null())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| refused("unknown or revoked API key"))?;
    let enc = enc
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .ok_or_else(|| refused("the enc signature is required").with_code("invalid_signature"))?;
    let timestamp = timestamp.map(str::trim).filter(|t| !t.is_empty());
    let v2 = match version.map(str::trim).filter(|v| !v.is_empty()) {
        None | Some("1") => false,
        Some("2") if timestamp.is_some() => true,
        Some("2") => {
            return Err(refused("version 2 signatures need X-Request-Timestamp")
                .with_code("invalid_signature"));
        }
        Some(_) => {
            return Err(
                refused("X-Signature-Version must be 1 or 2").with_code("invalid_signature")
            );
        }
    };
    if let Some(t) = timestamp {
        let secs: i64 = t.parse().map_err(|_| {
            refused("X-Request-Timestamp must be Unix seconds").with_code("invalid_signature")
        })?;
        if ctx.now().timestamp().saturating_sub(secs).unsigned_abs()
            > TIMESTAMP_WINDOW_SECONDS.unsigned_abs()
        {
            return Err(refused(
                "X-Request-Timestamp is more than 5 minutes from the server's clock",
            )
            .with_code("invalid_signature"));
        }
    }
    let secret = crate::domain::survey_api_keys::open_secret(ctx, &c)?;
    let input = match timestamp {
        Some(t) if v2 => signed_input_v2(method, url, body, t, &secret),
        Some(t) => signed_input_at(url, body, t, &secret),
        None => signed_input(url, body, &secret),
    };
    let expected = digest(EncryptionType::from_setting(&c.encryption_type), &input);
    if !crypto::constant_time_eq(enc.to_ascii_lowercase().as_bytes(), expected.as_bytes()) {
        return Err(refused("the enc signature does not match").with_code("invalid_signature"));
    }
    if timestamp.is_some() {
        use_once(ctx, &expected).await?;
    }
    let account = accounts::get(ctx, &c.account_id).await?;
    let p = accounts::principal(&account);
    p.require_approved_advertiser()?;
    Ok(p)
}

/// Records a timestamped signature's use; a second use within the window is refused.
async fn use_once(ctx: &Ctx, digest: &str) -> Result<(), AppError> {
    use entity::survey_signature_use as used;
    let now = ctx.now();
    used::Entity::delete_many()
        .filter(used::Column::ExpiresAt.lt(now))
        .exec(&ctx.db)
        .await?;
    let kept = used::ActiveModel {
        digest: Set(digest.to_owned()),
        // Twice the window: a timestamp may be up to five minutes ahead of the clock.
        expires_at: Set(now + chrono::Duration::seconds(2 * TIMESTAMP_WINDOW_SECONDS)),
    }
    .insert(&ctx.db)
    .await;
    match kept {
        Ok(_) => Ok(()),
        Err(e) if crate::domain::db::is_unique_violation(&e) => Err(refused(
            "this signed request was already used; sign each request with a new timestamp",
        )
        .with_code("replayed_signature")),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(
            digest(EncryptionType::Sha1, b"abc"),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            digest(EncryptionType::Sha256, b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            digest(EncryptionType::Sha3_256, b"abc"),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
        );
        assert_eq!(signed_input("https://h/p", b"", "s"), b"https://h/ps");
        assert_eq!(
            signed_input_at("https://h/p", b"{}", "1700000000", "s"),
            b"https://h/p{}1700000000s"
        );
        let v2 = String::from_utf8(signed_input_v2("delete", "https://h/p", b"", "17", "s"))
            .unwrap_or_default();
        assert_eq!(
            v2,
            "v2\nDELETE\nhttps://h/p\n17\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\ns"
        );
    }
}
