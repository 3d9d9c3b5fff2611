//! Survey API authentication: `X-Api-Key` plus the `enc` URL signature, a hex digest of
//! (URL without query) + (body as received, when not empty) + (advertiser secret) with the
//! credential's algorithm (SHA-1, SHA-256 or SHA3-256).
//!
//! Stronger mode: a caller that also sends `X-Request-Timestamp` (Unix seconds) signs URL +
//! body + timestamp + secret, and the server refuses a timestamp more than five minutes from
//! its clock, so a captured request cannot be replayed later. SHA-1 is accepted for
//! compatibility but deprecated: new keys should choose SHA256 or SHA3-256.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
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

/// Authenticates a survey API request. `url` is the scheme, host and path the server
/// rebuilt; `enc` the only query parameter; `timestamp` the optional `X-Request-Timestamp`. Missing or unknown keys and bad signatures are
/// 401 (`invalid_signature` for the signature); a pending advertiser is 403 `account_pending`.
pub async fn authenticate(
    ctx: &Ctx,
    api_key: Option<&str>,
    url: &str,
    body: &[u8],
    enc: Option<&str>,
    timestamp: Option<&str>,
) -> Result<Principal, AppError> {
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
        Some(t) => signed_input_at(url, body, t, &secret),
        None => signed_input(url, body, &secret),
    };
    let expected = digest(EncryptionType::from_setting(&c.encryption_type), &input);
    if !crypto::constant_time_eq(enc.to_ascii_lowercase().as_bytes(), expected.as_bytes()) {
        return Err(refused("the enc signature does not match").with_code("invalid_signature"));
    }
    let account = accounts::get(ctx, &c.account_id).await?;
    let p = accounts::principal(&account);
    p.require_approved_advertiser()?;
    Ok(p)
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
    }
}
