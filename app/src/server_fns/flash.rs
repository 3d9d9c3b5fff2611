//! One-time values a plain (no-JavaScript) form post leaves in the session for the page it
//! redirects to: a secret shown once (sealed with the service key) or a test result. Each is
//! tied to a scope (placement, slot or campaign id), so another page never shows it, and is
//! removed when read.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tower_sessions::Session;

use super::publisher::OneTimeSecret;
use super::web::plain_form_post;
use crate::domain::Ctx;
use crate::error::AppError;

/// Session slot of the one-time secret.
const SECRET: &str = "flash_secret";

#[derive(Serialize, Deserialize)]
struct Scoped<T> {
    scope: String,
    value: T,
}

fn session_err(e: tower_sessions::session::Error) -> AppError {
    tracing::error!(error = %e, "session store error");
    AppError::internal()
}

/// Leaves `value` in `slot` for the page of `scope` (only for plain form posts: a script
/// caller gets the value in the response).
pub async fn put<T: Serialize>(
    session: &Session,
    slot: &str,
    scope: &str,
    value: T,
) -> Result<(), AppError> {
    if !plain_form_post() {
        return Ok(());
    }
    let stored = Scoped {
        scope: scope.to_owned(),
        value,
    };
    session.insert(slot, stored).await.map_err(session_err)
}

/// Takes the value left in `slot` for `scope`; a value of another scope stays.
pub async fn take<T: DeserializeOwned>(
    session: &Session,
    slot: &str,
    scope: &str,
) -> Result<Option<T>, AppError> {
    let stored: Option<Scoped<T>> = session.get(slot).await.map_err(session_err)?;
    match stored.filter(|s| s.scope == scope) {
        Some(s) => {
            session.remove_value(slot).await.map_err(session_err)?;
            Ok(Some(s.value))
        }
        None => Ok(None),
    }
}

/// Leaves a one-time secret, sealed, for the page of `scope`.
pub async fn put_secret(
    ctx: &Ctx,
    session: &Session,
    scope: &str,
    label: &str,
    secret: &str,
) -> Result<(), AppError> {
    if !plain_form_post() {
        return Ok(());
    }
    put(
        session,
        SECRET,
        scope,
        (
            label.to_owned(),
            ctx.keys.seal(&format!("flash:{scope}"), secret)?,
        ),
    )
    .await
}

/// Takes the one-time secret left for `scope`.
pub async fn take_secret(
    ctx: &Ctx,
    session: &Session,
    scope: &str,
) -> Result<Option<OneTimeSecret>, AppError> {
    match take::<(String, String)>(session, SECRET, scope).await? {
        Some((label, sealed)) => Ok(Some(OneTimeSecret {
            label,
            value: ctx.keys.open(&format!("flash:{scope}"), &sealed)?,
        })),
        None => Ok(None),
    }
}
