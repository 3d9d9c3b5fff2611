//! Secrets handling: random tokens, hashes for lookup, constant-time comparison and
//! authenticated encryption of secrets the server must be able to read back (signing
//! secrets). All keys derive from the one master key (`APP_SECRET_KEY`).

use base64::{Engine, engine::general_purpose::STANDARD, engine::general_purpose::URL_SAFE_NO_PAD};
use chacha20poly1305::{
    ChaCha20Poly1305, KeyInit as _,
    aead::{Aead, Payload},
};
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::AppError;

/// `n` bytes from the operating system's CSPRNG.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    // The OS generator failing is not recoverable; every caller would have to abort anyway.
    #[allow(clippy::expect_used)]
    getrandom::fill(&mut buf).expect("operating system random generator unavailable");
    buf
}

/// A bearer-style secret: `prefix_` and 32 random bytes, base64url.
pub fn random_token(prefix: &str) -> String {
    format!("{prefix}_{}", URL_SAFE_NO_PAD.encode(random_bytes::<32>()))
}

/// Lower-case hex SHA-256, used to store and look up high-entropy tokens.
pub fn sha256_hex(input: &str) -> String {
    sha256_bytes_hex(input.as_bytes())
}

/// Lower-case hex SHA-256 of raw bytes (content fingerprints).
pub fn sha256_bytes_hex(input: &[u8]) -> String {
    // `encode_to_slice` writes the digits directly (`hex::encode` collects an iterator of
    // chars, which showed in the static feed's profile).
    let mut out = [0u8; 64];
    if hex::encode_to_slice(Sha256::digest(input), &mut out).is_err() {
        return String::new();
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Equality that takes the same time wherever the inputs differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// Lower-case hex HMAC-SHA256 of `message` keyed with `key`'s bytes.
pub fn hmac_sha256_hex(key: &[u8], message: &[u8]) -> String {
    hex::encode(hmac_sha256(key, message))
}

/// Standard base64 (with padding) of the HMAC-SHA256 of `message` keyed with `key`'s bytes.
pub fn hmac_sha256_base64(key: &[u8], message: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(hmac_sha256(key, message))
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length, so this cannot fail.
    #[allow(clippy::expect_used)]
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("hmac takes any key length");
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// Keys derived from the master key, one per purpose, plus the encryption keys of earlier
/// master keys (`APP_SECRET_KEY_PREVIOUS`) so stored secrets stay readable while the master
/// key rotates.
pub struct Keys {
    encryption: EncryptionKey,
    previous: Vec<EncryptionKey>,
    signing: [u8; 32],
}

/// An encryption key and its public version tag: the first 8 hex characters of a SHA-256
/// of the key, written in front of every value it sealed so `open` picks the right key.
struct EncryptionKey {
    key: [u8; 32],
    version: String,
}

impl EncryptionKey {
    fn derive(master: &[u8; 32]) -> Self {
        let mut key = [0u8; 32];
        key.copy_from_slice(&hmac_sha256(master, b"encryption-v1"));
        let version = sha256_bytes_hex(&hmac_sha256(&key, b"key-version"))[..8].to_owned();
        Self { key, version }
    }

    fn cipher(&self) -> ChaCha20Poly1305 {
        ChaCha20Poly1305::new((&self.key).into())
    }
}

/// Prefix of the sealed format that binds a value to its row: `v2:<key version>:<base64>`.
const SEALED_V2: &str = "v2";

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(..)")
    }
}

impl Keys {
    /// Derives the purpose keys from 32 master bytes.
    pub fn from_master(master: &[u8; 32]) -> Self {
        Self::with_previous(master, &[])
    }

    /// Derives the purpose keys from the current master key; `previous` master keys are
    /// kept only to open secrets sealed before a rotation.
    pub fn with_previous(master: &[u8; 32], previous: &[[u8; 32]]) -> Self {
        let mut signing = [0u8; 32];
        signing.copy_from_slice(&hmac_sha256(master, b"link-signing-v1"));
        Self {
            encryption: EncryptionKey::derive(master),
            previous: previous.iter().map(EncryptionKey::derive).collect(),
            signing,
        }
    }

    /// Version tag of the current encryption key (shown to operators after a rotation).
    pub fn key_version(&self) -> &str {
        &self.encryption.version
    }

    /// Parses the `APP_SECRET_KEY` form: 64 hexadecimal characters.
    pub fn parse_master(hex_key: &str) -> Result<[u8; 32], String> {
        let bytes = hex::decode(hex_key.trim())
            .map_err(|_| "must be 64 hexadecimal characters".to_owned())?;
        bytes
            .try_into()
            .map_err(|_| "must be 64 hexadecimal characters (32 bytes)".to_owned())
    }

    /// Encrypts a secret for storage, bound to `binding` (the table and row it belongs to,
    /// as associated data), so a sealed value copied to another row does not open there:
    /// `v2:<key version>:<base64 of nonce ‖ ciphertext>`.
    pub fn seal(&self, binding: &str, plaintext: &str) -> Result<String, AppError> {
        let nonce = random_bytes::<12>();
        let ct = self
            .encryption
            .cipher()
            .encrypt(
                (&nonce).into(),
                Payload {
                    msg: plaintext.as_bytes(),
                    aad: binding.as_bytes(),
                },
            )
            .map_err(|_| {
                tracing::error!("secret encryption failed");
                AppError::internal()
            })?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ct);
        Ok(format!(
            "{SEALED_V2}:{}:{}",
            self.encryption.version,
            STANDARD.encode(out)
        ))
    }

    /// Decrypts a value made by [`Keys::seal`] for the same `binding`, with whichever key
    /// (current or previous) its version names. Values sealed before versioning (plain
    /// base64, no associated data) still open with any known key.
    pub fn open(&self, binding: &str, sealed: &str) -> Result<String, AppError> {
        let fail = || {
            tracing::error!("stored secret could not be decrypted (wrong APP_SECRET_KEY?)");
            AppError::internal()
        };
        let keys = || std::iter::once(&self.encryption).chain(self.previous.iter());
        let split = |raw: &[u8]| -> Option<(Vec<u8>, Vec<u8>)> {
            (raw.len() >= 12).then(|| (raw[..12].to_vec(), raw[12..].to_vec()))
        };
        let pt = match sealed.split_once(':') {
            Some((SEALED_V2, rest)) => {
                let (version, body) = rest.split_once(':').ok_or_else(fail)?;
                let key = keys().find(|k| k.version == version).ok_or_else(fail)?;
                let raw = STANDARD.decode(body).map_err(|_| fail())?;
                let (nonce, ct) = split(&raw).ok_or_else(fail)?;
                key.cipher()
                    .decrypt(
                        nonce.as_slice().into(),
                        Payload {
                            msg: &ct,
                            aad: binding.as_bytes(),
                        },
                    )
                    .map_err(|_| fail())?
            }
            _ => {
                let raw = STANDARD.decode(sealed).map_err(|_| fail())?;
                let (nonce, ct) = split(&raw).ok_or_else(fail)?;
                keys()
                    .find_map(|k| {
                        k.cipher()
                            .decrypt(nonce.as_slice().into(), ct.as_slice())
                            .ok()
                    })
                    .ok_or_else(fail)?
            }
        };
        String::from_utf8(pt).map_err(|_| fail())
    }

    /// True when `sealed` was made by the current key in the bound format (a rotation job
    /// re-seals the others).
    pub fn is_current(&self, sealed: &str) -> bool {
        sealed
            .strip_prefix(SEALED_V2)
            .and_then(|r| r.strip_prefix(':'))
            .and_then(|r| r.split_once(':'))
            .is_some_and(|(v, _)| v == self.encryption.version)
    }

    /// Lower-case hex HMAC of `message` with the link-signing key (signed URLs).
    pub fn sign(&self, message: &str) -> String {
        hmac_sha256_hex(&self.signing, message.as_bytes())
    }

    /// Checks a signature made by [`Keys::sign`] in constant time.
    pub fn verify(&self, message: &str, signature: &str) -> bool {
        constant_time_eq(self.sign(message).as_bytes(), signature.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_round_trips_and_rejects_tampering() {
        let keys = Keys::from_master(&[7u8; 32]);
        let sealed = keys.seal("callback_keys:k1", "s3cret").unwrap_or_default();
        assert!(sealed.starts_with(&format!("v2:{}:", keys.key_version())));
        assert!(!sealed.contains("s3cret"));
        assert_eq!(
            keys.open("callback_keys:k1", &sealed).ok().as_deref(),
            Some("s3cret")
        );
        let other = Keys::from_master(&[8u8; 32]);
        assert!(other.open("callback_keys:k1", &sealed).is_err());
    }

    #[test]
    fn sealed_values_are_bound_to_their_row() {
        let keys = Keys::from_master(&[7u8; 32]);
        let sealed = keys.seal("callback_keys:k1", "s3cret").unwrap_or_default();
        assert!(keys.open("callback_keys:k2", &sealed).is_err());
    }

    #[test]
    fn previous_master_keys_open_old_values_after_rotation() {
        let old = Keys::from_master(&[7u8; 32]);
        let sealed = old.seal("row:1", "s3cret").unwrap_or_default();
        let rotated = Keys::with_previous(&[9u8; 32], &[[7u8; 32]]);
        assert_ne!(rotated.key_version(), old.key_version());
        assert!(!rotated.is_current(&sealed));
        assert_eq!(
            rotated.open("row:1", &sealed).ok().as_deref(),
            Some("s3cret")
        );
        let fresh = rotated.seal("row:1", "s3cret").unwrap_or_default();
        assert!(rotated.is_current(&fresh));
        assert!(
            Keys::from_master(&[9u8; 32])
                .open("row:1", &sealed)
                .is_err()
        );
    }

    #[test]
    fn legacy_unversioned_values_still_open() {
        let keys = Keys::from_master(&[7u8; 32]);
        let cipher = keys.encryption.cipher();
        let nonce = [1u8; 12];
        let mut raw = nonce.to_vec();
        raw.extend(
            cipher
                .encrypt((&nonce).into(), b"old".as_slice())
                .unwrap_or_default(),
        );
        let legacy = STANDARD.encode(raw);
        assert_eq!(keys.open("any:row", &legacy).ok().as_deref(), Some("old"));
    }

    #[test]
    fn master_key_must_be_32_hex_bytes() {
        assert!(Keys::parse_master(&"ab".repeat(32)).is_ok());
        assert!(Keys::parse_master("abc").is_err());
        assert!(Keys::parse_master(&"zz".repeat(32)).is_err());
    }

    #[test]
    fn hmac_matches_rfc4231_case_2() {
        assert_eq!(
            hmac_sha256_hex(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn tokens_are_unique_and_prefixed() {
        let a = random_token("dsh");
        assert!(a.starts_with("dsh_") && a.len() > 40);
        assert_ne!(a, random_token("dsh"));
    }
}
