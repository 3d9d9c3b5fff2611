//! Server-side helpers for server functions: the domain context, the cookie session, the
//! signed-in principal, CSRF tokens and the caller's address.

use std::net::IpAddr;

use tower_sessions::Session;

use crate::domain::{Ctx, Principal, accounts, crypto};
use crate::error::AppError;

/// Session key of the signed-in account id.
const ACCOUNT_KEY: &str = "account_id";
/// Session key of the synchronizer CSRF token.
const CSRF_KEY: &str = "csrf";

/// The client address resolved by the server's middleware (socket or trusted proxy).
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

pub fn ctx() -> Result<Ctx, AppError> {
    leptos::prelude::use_context::<Ctx>().ok_or_else(|| {
        tracing::error!("domain context missing from the Leptos context");
        AppError::internal()
    })
}

pub async fn session() -> Result<Session, AppError> {
    leptos_axum::extract::<Session>().await.map_err(|e| {
        tracing::error!(error = %e, "session layer missing");
        AppError::internal()
    })
}

/// The caller's rate-limit bucket (its address; IPv6 by /64), or `unknown`.
pub async fn client_ip() -> String {
    match leptos_axum::extract::<axum::Extension<ClientIp>>().await {
        Ok(axum::Extension(ClientIp(ip))) => crate::domain::rate_limit::client_bucket(ip),
        Err(_) => "unknown".to_owned(),
    }
}

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
pub struct PreloadedVisitor(pub Result<super::auth::Visitor, AppError>);

/// The visitor behind a browser session: the signed-in account (if any) and the CSRF token.
pub async fn visitor(ctx: &Ctx, session: &Session) -> Result<super::auth::Visitor, AppError> {
    let csrf = csrf_token(session).await?;
    let user = match principal(ctx, session).await? {
        Some(p) => Some(accounts::view(&accounts::get(ctx, &p.account_id).await?)),
        None => None,
    };
    Ok(super::auth::Visitor { user, csrf })
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
    match accounts::get(ctx, &id).await {
        Ok(a) if a.status != "DISABLED" => Ok(Some(accounts::principal(&a))),
        _ => Ok(None),
    }
}

/// The signed-in account or `401`.
pub async fn require_principal(ctx: &Ctx, session: &Session) -> Result<Principal, AppError> {
    principal(ctx, session)
        .await?
        .ok_or_else(|| AppError::unauthorized("sign in first"))
}

/// Binds the session to an account, with a fresh session id (no fixation).
pub async fn sign_in(session: &Session, account_id: &str) -> Result<(), AppError> {
    session.cycle_id().await.map_err(session_err)?;
    session
        .insert(ACCOUNT_KEY, account_id.to_owned())
        .await
        .map_err(session_err)?;
    // A new CSRF token for the signed-in session.
    session
        .insert(CSRF_KEY, crypto::random_token("csrf"))
        .await
        .map_err(session_err)?;
    Ok(())
}

/// Ends the session and deletes it from the store.
pub async fn sign_out(session: &Session) -> Result<(), AppError> {
    session.flush().await.map_err(session_err)
}

/// Runs a server function body and, when it fails for a script caller, answers with the
/// refusal's own status instead of the generic 500. Plain form posts (`Accept: text/html`)
/// keep the redirect back to the form, which shows the error.
pub async fn run<T>(body: impl Future<Output = Result<T, AppError>>) -> Result<T, AppError> {
    let result = body.await;
    if let Err(e) = &result {
        let html = leptos::prelude::use_context::<http::request::Parts>()
            .and_then(|p| {
                p.headers
                    .get(http::header::ACCEPT)
                    .and_then(|v| v.to_str().ok())
                    .map(|v| v.contains("text/html"))
            })
            .unwrap_or(false);
        if !html {
            if let (Some(opts), Ok(status)) = (
                leptos::prelude::use_context::<leptos_axum::ResponseOptions>(),
                http::StatusCode::from_u16(e.status),
            ) {
                opts.set_status(status);
            }
        }
    }
    result
}

/// The signed-in caller of a read.
pub async fn reader() -> Result<(Ctx, Principal), AppError> {
    let ctx = ctx()?;
    let session = session().await?;
    let p = require_principal(&ctx, &session).await?;
    Ok((ctx, p))
}

/// The signed-in caller of a form post, after the CSRF check.
pub async fn writer(csrf: &str) -> Result<(Ctx, Session, Principal), AppError> {
    let ctx = ctx()?;
    let session = session().await?;
    check_csrf(&session, csrf).await?;
    let p = require_principal(&ctx, &session).await?;
    Ok((ctx, session, p))
}

/// A plain HTML form post (no script): Leptos redirects it back and drops the answer, so
/// anything to show must travel in a flash (see `flash`).
pub fn plain_form_post() -> bool {
    leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|p| {
            p.headers
                .get(http::header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.contains("text/html"))
        })
        .unwrap_or(false)
}
