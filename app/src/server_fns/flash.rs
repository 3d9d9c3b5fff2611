//! One-time values a plain (no-JavaScript) form post leaves in the session for the page it
//! redirects to: a secret shown once (sealed with the service key) or a test result. Each is
//! tied to a scope (placement, slot or campaign id), so another page never shows it, and is
//! removed when read. A page render that stalls is started again (`server::web`); what the
//! first attempt took is kept for the request (`auth::RenderFlashes`), so the retry shows the
//! secret the user has not seen yet instead of an empty page.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tower_sessions::Session;

use super::web::plain_form_post;
use crate::auth::RenderFlashes;
use crate::domain::Ctx;
use crate::error::AppError;
use crate::model::OneTimeSecret;

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

/// Takes the value left in `slot` for `scope`; a value of another scope stays. Within one
/// page request every render attempt gets what the first one took.
pub async fn take<T: DeserializeOwned>(
    session: &Session,
    slot: &str,
    scope: &str,
) -> Result<Option<T>, AppError> {
    let render = leptos::prelude::use_context::<RenderFlashes>();
    take_for(session, slot, scope, render.as_ref()).await
}

async fn take_for<T: DeserializeOwned>(
    session: &Session,
    slot: &str,
    scope: &str,
    render: Option<&RenderFlashes>,
) -> Result<Option<T>, AppError> {
    let key = format!("{slot}|{scope}");
    let value = match render.and_then(|r| r.recall(&key)) {
        Some(v) => v,
        None => {
            let stored: Option<Scoped<serde_json::Value>> =
                session.get(slot).await.map_err(session_err)?;
            let Some(s) = stored.filter(|s| s.scope == scope) else {
                return Ok(None);
            };
            session.remove_value(slot).await.map_err(session_err)?;
            if let Some(r) = render {
                r.keep(key, s.value.clone());
            }
            s.value
        }
    };
    serde_json::from_value(value)
        .map(Some)
        .map_err(|_| AppError::internal())
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tower_sessions::{MemoryStore, Session};

    use super::*;

    #[tokio::test]
    async fn a_render_retry_shows_what_the_first_attempt_took() {
        let session = Session::new(None, Arc::new(MemoryStore::default()), None);
        let stored = Scoped {
            scope: "plc_1".to_owned(),
            value: "the secret".to_owned(),
        };
        session.insert(SECRET, &stored).await.expect("insert");
        let render = RenderFlashes::default();
        for attempt in 0..2 {
            let got: Option<String> = take_for(&session, SECRET, "plc_1", Some(&render))
                .await
                .expect("take");
            assert_eq!(got.as_deref(), Some("the secret"), "attempt {attempt}");
        }
        // Gone from the session: the next page request (a reload) shows nothing.
        let later: Option<String> =
            take_for(&session, SECRET, "plc_1", Some(&RenderFlashes::default()))
                .await
                .expect("take");
        assert_eq!(later, None);
        // Another scope's page never shows it.
        session.insert(SECRET, &stored).await.expect("insert");
        let other: Option<String> = take_for(&session, SECRET, "plc_2", None)
            .await
            .expect("take");
        assert_eq!(other, None);
    }
}
