//! argon2id password hashing, run on the blocking pool so it never stalls the executor.

use argon2::{Argon2, PasswordHasher, PasswordVerifier};

use crate::error::AppError;

/// Hashes a password into a PHC string.
pub async fn hash(password: String) -> Result<String, AppError> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
    })
    .await
    .map_err(|e| {
        tracing::error!(error = %e, "password hashing task failed");
        AppError::internal()
    })?
    .map_err(|e| {
        tracing::error!(error = %e, "password hashing failed");
        AppError::internal()
    })
}

/// Checks a password against a PHC string. With no stored hash it still does the work of
/// one verification, so an unknown e-mail takes as long as a wrong password.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || match stored {
        Some(hash) => Argon2::default()
            .verify_password(password.as_bytes(), hash.as_str())
            .is_ok(),
        None => {
            let _ = Argon2::default().verify_password(password.as_bytes(), dummy_hash());
            false
        }
    })
    .await
    .unwrap_or(false)
}

/// A real argon2id hash of a random string nobody knows, made once per process.
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| {
        let secret = crate::domain::crypto::random_token("dummy");
        Argon2::default()
            .hash_password(secret.as_bytes())
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}
