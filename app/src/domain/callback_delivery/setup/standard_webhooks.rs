//! Standard Webhooks (<https://www.standardwebhooks.com>) beside the specification's headers:
//! every reward callback also carries `webhook-id`, `webhook-timestamp` and
//! `webhook-signature`, so a publisher can verify it with the scheme's libraries.
//!
//! The key is the placement's callback signing secret itself, written in the scheme's
//! encoding (`whsec_` and the base64 of the secret's UTF-8 bytes): both schemes key their
//! HMAC with the same bytes, so there is nothing more to store, seal, show or rotate. While a
//! rotation is in progress the NEXT key signs as well (the header then holds two
//! space-separated signatures, as the scheme provides for rotation), so a receiver may switch
//! to the new secret at any moment before it is promoted.

use base64::Engine;

use crate::domain::crypto;

/// The prefix of a Standard Webhooks secret.
pub const SECRET_PREFIX: &str = "whsec_";

/// The Standard Webhooks form of a callback signing secret.
pub fn secret(callback_secret: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(callback_secret.as_bytes());
    format!("{SECRET_PREFIX}{encoded}")
}

/// `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, once per secret,
/// space-separated.
pub fn signature(secrets: &[&str], id: &str, timestamp: i64, body: &str) -> String {
    let message = format!("{id}.{timestamp}.{body}");
    secrets
        .iter()
        .map(|s| {
            format!(
                "v1,{}",
                crypto::hmac_sha256_base64(s.as_bytes(), message.as_bytes())
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The scheme's three headers for one message: `id` stays the same on every retry of it.
pub fn headers(secrets: &[&str], id: &str, timestamp: i64, body: &str) -> [(String, String); 3] {
    [
        ("webhook-id".to_owned(), id.to_owned()),
        ("webhook-timestamp".to_owned(), timestamp.to_string()),
        (
            "webhook-signature".to_owned(),
            signature(secrets, id, timestamp, body),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the scheme's reference libraries: the key is the base64-decoded part
    /// of `whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw`.
    #[test]
    fn signs_as_the_reference_libraries_do() {
        let key = base64::engine::general_purpose::STANDARD
            .decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
            .unwrap_or_default();
        let message = r#"msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}"#;
        assert_eq!(
            crypto::hmac_sha256_base64(&key, message.as_bytes()),
            "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn the_secret_is_the_callback_secret_in_the_schemes_encoding() {
        assert_eq!(secret("mkt_cbs_abc"), "whsec_bWt0X2Nic19hYmM=");
        let one = signature(&["a"], "evt_1", 1, "{}");
        assert!(one.starts_with("v1,") && !one.contains(' '));
        let two = signature(&["a", "b"], "evt_1", 1, "{}");
        assert_eq!(
            two.split(' ').next(),
            Some(one.as_str()),
            "the current key signs first"
        );
        assert_eq!(two.split(' ').count(), 2);
    }
}
