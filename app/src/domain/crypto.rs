//! Secrets handling: random tokens, hashes for lookup, constant-time comparison and
//! authenticated encryption of secrets the server must be able to read back (signing
//! secrets). All keys derive from the one master key (`APP_SECRET_KEY`).

use base64::{Engine, engine::general_purpose::STANDARD, engine::general_purpose::URL_SAFE_NO_PAD};
use chacha20poly1305::{ChaCha20Poly1305, KeyInit as _, aead::Aead};
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
    hex::encode(Sha256::digest(input))
}

/// Equality that takes the same time wherever the inputs differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// Lower-case hex HMAC-SHA256 of `message` keyed with `key`'s bytes.
pub fn hmac_sha256_hex(key: &[u8], message: &[u8]) -> String {
    hex::encode(hmac_sha256(key, message))
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length, so this cannot fail.
    #[allow(clippy::expect_used)]
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("hmac takes any key length");
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// Keys derived from the master key, one per purpose.
pub struct Keys {
    encryption: [u8; 32],
    signing: [u8; 32],
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(..)")
    }
}

impl Keys {
    /// Derives the purpose keys from 32 master bytes.
    pub fn from_master(master: &[u8; 32]) -> Self {
        let derive = |purpose: &str| {
            let mut out = [0u8; 32];
            out.copy_from_slice(&hmac_sha256(master, purpose.as_bytes()));
            out
        };
        Self {
            encryption: derive("encryption-v1"),
            signing: derive("link-signing-v1"),
        }
    }

    /// Parses the `APP_SECRET_KEY` form: 64 hexadecimal characters.
    pub fn parse_master(hex_key: &str) -> Result<[u8; 32], String> {
        let bytes = hex::decode(hex_key.trim())
            .map_err(|_| "must be 64 hexadecimal characters".to_owned())?;
        bytes
            .try_into()
            .map_err(|_| "must be 64 hexadecimal characters (32 bytes)".to_owned())
    }

    /// Encrypts a secret for storage: base64 of nonce ‖ ciphertext.
    pub fn seal(&self, plaintext: &str) -> Result<String, AppError> {
        let cipher = ChaCha20Poly1305::new((&self.encryption).into());
        let nonce = random_bytes::<12>();
        let ct = cipher
            .encrypt((&nonce).into(), plaintext.as_bytes())
            .map_err(|_| {
                tracing::error!("secret encryption failed");
                AppError::internal()
            })?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ct);
        Ok(STANDARD.encode(out))
    }

    /// Decrypts a value made by [`Keys::seal`].
    pub fn open(&self, sealed: &str) -> Result<String, AppError> {
        let fail = || {
            tracing::error!("stored secret could not be decrypted (wrong APP_SECRET_KEY?)");
            AppError::internal()
        };
        let raw = STANDARD.decode(sealed).map_err(|_| fail())?;
        if raw.len() < 12 {
            return Err(fail());
        }
        let (nonce, ct) = raw.split_at(12);
        let cipher = ChaCha20Poly1305::new((&self.encryption).into());
        let pt = cipher.decrypt(nonce.into(), ct).map_err(|_| fail())?;
        String::from_utf8(pt).map_err(|_| fail())
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
        let sealed = keys.seal("s3cret").unwrap_or_default();
        assert_ne!(sealed, "s3cret");
        assert_eq!(keys.open(&sealed).ok().as_deref(), Some("s3cret"));
        let other = Keys::from_master(&[8u8; 32]);
        assert!(other.open(&sealed).is_err());
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
