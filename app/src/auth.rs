//! The browser session's edge (server only): who the visitor is, the signed-in principal,
//! the CSRF token, sign-in and sign-out, the client address the middleware resolved, and
//! what a page handler hands its render (the preloaded visitor and the flashes it took).
//! The page handlers in `server` and the server functions both use it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tower_sessions::Session;

use crate::domain::{Ctx, Principal, accounts, crypto};
use crate::error::AppError;
use crate::model::{AccountStatus, Visitor};

/// Session keys of the signed-in account id and of its session generation when the session
/// was signed in (a session of an earlier generation than its account's is signed out), and
/// of what the owner's list of sessions shows.
use crate::domain::accounts::sessions::{
    ACCOUNT_KEY, ADDRESS_KEY, DEVICE_KEY, GENERATION_KEY, SIGNED_IN_AT_KEY,
};
/// Session key of the synchronizer CSRF token.
const CSRF_KEY: &str = "csrf";

/// The client address resolved by the server's middleware (socket or trusted proxy).
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

fn session_err(e: tower_sessions::session::Error) -> AppError {
    // The store notes a database outage before it fails (server::session_store).
    if crate::domain::db::recently_unavailable() {
        tracing::warn!(error = %e, "session store unavailable");
        return AppError::database_unavailable();
    }
    tracing::error!(error = %e, "session store error");
    AppError::internal()
}

/// The session's CSRF token, created on first use.
pub async fn csrf_token(session: &Session) -> Result<String, AppError> {
    if let Some(t) = session.get::<String>(CSRF_KEY).await.map_err(session_err)? {
        return Ok(t);
    }
    let t = crypto::random_token("csrf");
    session
        .insert(CSRF_KEY, t.clone())
        .await
        .map_err(session_err)?;
    Ok(t)
}

/// The visitor of a page render, resolved by the page handler before rendering starts.
#[derive(Debug, Clone)]
pub struct PreloadedVisitor(pub Result<Visitor, AppError>);

/// The visitor behind a browser session: the signed-in account (if any) and the CSRF token.
pub async fn visitor(ctx: &Ctx, session: &Session) -> Result<Visitor, AppError> {
    let csrf = csrf_token(session).await?;
    let user = match principal(ctx, session).await? {
        Some(p) => Some(accounts::me(ctx, &p).await?),
        None => None,
    };
    Ok(Visitor { user, csrf })
}

/// Refuses a form post whose CSRF token does not match the session's.
pub async fn check_csrf(session: &Session, presented: &str) -> Result<(), AppError> {
    let expected = session.get::<String>(CSRF_KEY).await.map_err(session_err)?;
    match expected {
        Some(t) if crypto::constant_time_eq(t.as_bytes(), presented.as_bytes()) => Ok(()),
        _ => Err(
            AppError::forbidden("the form has expired; reload the page and try again")
                .with_code("csrf_failed"),
        ),
    }
}

/// The signed-in account, if any (read fresh so approvals and suspensions apply at once).
pub async fn principal(ctx: &Ctx, session: &Session) -> Result<Option<Principal>, AppError> {
    let Some(id) = session
        .get::<String>(ACCOUNT_KEY)
        .await
        .map_err(session_err)?
    else {
        return Ok(None);
    };
    let a = match accounts::get(ctx, &id).await {
        Ok(a) if a.status != AccountStatus::Disabled => a,
        _ => return Ok(None),
    };
    // Read with the account on every request, so a reset or "sign out everywhere" signs
    // out the sessions of every process at once.
    let generation = session
        .get::<i32>(GENERATION_KEY)
        .await
        .map_err(session_err)?
        .unwrap_or(0);
    if generation != a.session_generation {
        return Ok(None);
    }
    // A member of a disabled organisation is signed out like the organisation itself.
    let p = accounts::principal_of(ctx, &a).await?;
    Ok((p.status != AccountStatus::Disabled).then_some(p))
}

/// The signed-in account or `401`; an administrator without the second factor the service
/// requires is refused (`second_factor::admin_may_act`). Every dashboard action starts here.
pub async fn require_principal(ctx: &Ctx, session: &Session) -> Result<Principal, AppError> {
    let p = require_own_principal(ctx, session).await?;
    accounts::second_factor::admin_may_act(ctx, &p).await?;
    Ok(p)
}

/// The signed-in account or `401`, for what concerns the account itself (`/account`: its
/// password, second factor and sessions), open to an administrator who still has to turn on
/// a second factor.
pub async fn require_own_principal(ctx: &Ctx, session: &Session) -> Result<Principal, AppError> {
    principal(ctx, session)
        .await?
        .ok_or_else(|| AppError::unauthorized("sign in first"))
}

/// Binds the session to an account of session generation `generation`, with a fresh session
/// id (no fixation).
pub async fn sign_in(session: &Session, account_id: &str, generation: i32) -> Result<(), AppError> {
    session.cycle_id().await.map_err(session_err)?;
    session
        .insert(ACCOUNT_KEY, account_id.to_owned())
        .await
        .map_err(session_err)?;
    session
        .insert(GENERATION_KEY, generation)
        .await
        .map_err(session_err)?;
    // A new CSRF token for the signed-in session.
    session
        .insert(CSRF_KEY, crypto::random_token("csrf"))
        .await
        .map_err(session_err)?;
    Ok(())
}

/// Notes when, from which browser (its User-Agent, cut to 160 characters) and from which
/// address the session was signed in, for the owner's list of sessions.
pub async fn describe(
    session: &Session,
    now: chrono::DateTime<chrono::Utc>,
    device: &str,
    address: &str,
) -> Result<(), AppError> {
    let device: String = device.chars().take(160).collect();
    for (key, value) in [
        (SIGNED_IN_AT_KEY, now.to_rfc3339()),
        (DEVICE_KEY, device),
        (ADDRESS_KEY, address.to_owned()),
    ] {
        session.insert(key, value).await.map_err(session_err)?;
    }
    Ok(())
}

/// Ends the session and deletes it from the store.
pub async fn sign_out(session: &Session) -> Result<(), AppError> {
    session.flush().await.map_err(session_err)?;
    // Starts the anonymous session the sign-in page will use, with its CSRF token, in this
    // answer. Without it the page the browser renders next reads the session in two requests
    // at once (page and navigation), each creating a session of its own, and the form could
    // carry the token of one beside the cookie of the other (a refused sign-in).
    csrf_token(session).await?;
    Ok(())
}

/// The flashes one page request has taken, shared by its render attempts (provided as
/// context by the page handler; absent for server-function calls).
#[derive(Clone, Default)]
pub struct RenderFlashes(Arc<Mutex<HashMap<String, serde_json::Value>>>);

impl RenderFlashes {
    pub(crate) fn recall(&self, key: &str) -> Option<serde_json::Value> {
        self.0.lock().ok()?.get(key).cloned()
    }

    pub(crate) fn keep(&self, key: String, value: serde_json::Value) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(key, value);
        }
    }
}
