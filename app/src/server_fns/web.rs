//! Server-side helpers for server functions: the domain context, the cookie session of the
//! call, the caller's address bucket and the readers and writers built on `crate::auth`.

use tower_sessions::Session;

use crate::domain::{Ctx, Principal};
use crate::error::AppError;

pub(crate) use crate::auth::{ClientIp, check_csrf, require_principal, sign_out};

/// Signs the session in (a fresh id, the account's generation) and notes the browser and
/// address it signed in from, for the owner's list of sessions.
pub async fn sign_in(
    ctx: &Ctx,
    session: &Session,
    account_id: &str,
    generation: i32,
) -> Result<(), AppError> {
    crate::auth::sign_in(session, account_id, generation).await?;
    let device = leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|p| {
            p.headers
                .get(http::header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_default();
    crate::auth::describe(session, ctx.now(), &device, &client_ip().await).await
}

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

/// A read as one line: the signed-in caller, then `body`, with the refusal's own status
/// for a script caller (`run`). `web::read(|ctx, p| async move { domain::x(&ctx, &p).await })`.
pub async fn read<T, F, Fut>(body: F) -> Result<T, AppError>
where
    F: FnOnce(Ctx, Principal) -> Fut,
    Fut: Future<Output = Result<T, AppError>>,
{
    run(async move {
        let (ctx, p) = reader().await?;
        body(ctx, p).await
    })
    .await
}

/// A form post as one line: the CSRF check, the signed-in caller, then `body`, with the
/// refusal's own status for a script caller (`run`).
/// `web::write(&csrf, |ctx, p| async move { domain::x(&ctx, &p, &id).await })`.
pub async fn write<T, F, Fut>(csrf: &str, body: F) -> Result<T, AppError>
where
    F: FnOnce(Ctx, Principal) -> Fut,
    Fut: Future<Output = Result<T, AppError>>,
{
    run(async move {
        let (ctx, _, p) = writer(csrf).await?;
        body(ctx, p).await
    })
    .await
}

/// A form post by a visitor who need not be signed in (registering, a reset link, an
/// invitation): the CSRF check, then the caller's address against `policy`'s limit.
pub async fn visitor_form(
    csrf: &str,
    policy: crate::domain::Policy,
) -> Result<(Ctx, Session), AppError> {
    let ctx = ctx()?;
    let session = session().await?;
    check_csrf(&session, csrf).await?;
    ctx.limits.check(policy, &client_ip().await)?;
    Ok((ctx, session))
}

/// The signed-in caller of a read (an administrator without a required second factor is
/// refused: `auth::require_principal`).
pub async fn reader() -> Result<(Ctx, Principal), AppError> {
    let ctx = ctx()?;
    let session = session().await?;
    let p = require_principal(&ctx, &session).await?;
    Ok((ctx, p))
}

/// The signed-in caller of a form post, after the CSRF check and the team role's
/// (`roles::check`: deny by default).
pub async fn writer(csrf: &str) -> Result<(Ctx, Session, Principal), AppError> {
    let ctx = ctx()?;
    let session = session().await?;
    check_csrf(&session, csrf).await?;
    let p = require_principal(&ctx, &session).await?;
    super::roles::check(&p)?;
    Ok((ctx, session, p))
}

/// The signed-in caller of a read about its own account (`/account`), open to an
/// administrator who still has to turn on a second factor.
pub async fn own_reader() -> Result<(Ctx, Principal), AppError> {
    let ctx = ctx()?;
    let session = session().await?;
    let p = crate::auth::require_own_principal(&ctx, &session).await?;
    Ok((ctx, p))
}

/// The form-post form of [`own_reader`], after the CSRF check.
pub async fn own_writer(csrf: &str) -> Result<(Ctx, Session, Principal), AppError> {
    let ctx = ctx()?;
    let session = session().await?;
    check_csrf(&session, csrf).await?;
    let p = crate::auth::require_own_principal(&ctx, &session).await?;
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
