//! argon2id password hashing, run on the blocking pool so it never stalls the executor, and
//! bounded: at most [`max_hashing`] hashes run at once (each takes about 19 MiB and tens of
//! milliseconds), so a flood of sign-ins queues for a permit instead of exhausting memory;
//! a caller that waits more than two seconds gets 503 with `Retry-After`.

use argon2::{Argon2, PasswordHasher, PasswordVerifier};

use crate::error::AppError;

/// How many password hashes may run at once: two per core, at least four.
pub fn max_hashing() -> usize {
    std::thread::available_parallelism().map_or(4, |n| (n.get() * 2).max(4))
}

/// A permit to hash, or 503 when the hashing slots stayed taken for two seconds.
async fn permit() -> Result<tokio::sync::SemaphorePermit<'static>, AppError> {
    static SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    let slots = SLOTS.get_or_init(|| tokio::sync::Semaphore::new(max_hashing()));
    match tokio::time::timeout(std::time::Duration::from_secs(2), slots.acquire()).await {
        Ok(Ok(p)) => Ok(p),
        _ => {
            let mut e = AppError::new(
                503,
                "service_unavailable",
                "too many sign-ins are being checked right now; try again in a moment",
            );
            e.retry_after = Some(2);
            Err(e)
        }
    }
}

/// Hashes a password into a PHC string.
pub async fn hash(password: String) -> Result<String, AppError> {
    let _permit = permit().await?;
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
pub async fn verify(password: String, stored: Option<String>) -> Result<bool, AppError> {
    let _permit = permit().await?;
    Ok(tokio::task::spawn_blocking(move || match stored {
        Some(hash) => Argon2::default()
            .verify_password(password.as_bytes(), hash.as_str())
            .is_ok(),
        None => {
            let _ = Argon2::default().verify_password(password.as_bytes(), dummy_hash());
            false
        }
    })
    .await
    .unwrap_or(false))
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
