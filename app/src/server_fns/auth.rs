//! Browser sign-in, registration and sign-out.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{Role, Visitor};

#[server(prefix = "/fn", endpoint = "session_info")]
pub async fn session_info() -> Result<Visitor, AppError> {
    // A page render finds the visitor already resolved by the page handler, so the layout's
    // resource is ready at once and no `<Suspense>` waits on a database read (fewer chances
    // for leptos' lost-wakeup stall; server/src/web.rs). Browser navigation asks here.
    if let Some(crate::auth::PreloadedVisitor(v)) = use_context::<crate::auth::PreloadedVisitor>() {
        return v;
    }
    super::web::run(async move {
        let ctx = super::web::ctx()?;
        let session = super::web::session().await?;
        crate::auth::visitor(&ctx, &session).await
    })
    .await
}

/// Signs in with e-mail, password and, for an account with a second factor, its code
/// (`otp`: the authenticator app's six digits or a recovery code).
#[server(prefix = "/fn", endpoint = "sign_in")]
pub async fn sign_in(
    email: String,
    password: String,
    otp: Option<String>,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        use crate::domain::accounts;
        let ctx = web::ctx()?;
        let session = web::session().await?;
        web::check_csrf(&session, &csrf).await?;
        let client = web::client_ip().await;
        let acc = accounts::authenticate(&ctx, &email, &password, &client).await?;
        accounts::second_factor::at_sign_in(&ctx, &acc, otp.as_deref()).await?;
        web::sign_in(&ctx, &session, &acc.id, acc.session_generation).await?;
        leptos_axum::redirect(accounts::principal(&acc).role.home_path());
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "register")]
pub async fn register(
    email: String,
    password: String,
    role: Role,
    company_name: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        use crate::domain::{Policy, accounts};
        use crate::model::RegisterRequest;
        let (ctx, session) = web::visitor_form(&csrf, Policy::Register).await?;
        let view = accounts::register(
            &ctx,
            RegisterRequest {
                email,
                password,
                role,
                company_name,
            },
        )
        .await?;
        // A new account's sessions are of its first generation.
        web::sign_in(&ctx, &session, &view.account_id, 0).await?;
        leptos_axum::redirect(view.role.home_path());
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "sign_out")]
pub async fn sign_out(csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        let session = web::session().await?;
        web::check_csrf(&session, &csrf).await?;
        web::sign_out(&session).await?;
        leptos_axum::redirect("/sign-in");
        Ok(())
    })
    .await
}

/// Asks for a reset link (the page then says the same whatever the address).
#[server(prefix = "/fn", endpoint = "request_password_reset")]
pub async fn request_password_reset(email: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        let ctx = web::ctx()?;
        let session = web::session().await?;
        web::check_csrf(&session, &csrf).await?;
        let client = web::client_ip().await;
        crate::domain::accounts::recovery::request(&ctx, &email, &client).await?;
        leptos_axum::redirect("/forgot-password?sent=1");
        Ok(())
    })
    .await
}

/// Chooses a new password with a reset link's token, then goes to the sign-in page.
#[server(prefix = "/fn", endpoint = "reset_password")]
pub async fn reset_password(
    token: String,
    new_password: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use crate::domain::Policy;
        let (ctx, _) = super::web::visitor_form(&csrf, Policy::PasswordResetAddress).await?;
        crate::domain::accounts::recovery::reset(&ctx, &token, &new_password).await?;
        leptos_axum::redirect("/sign-in?reset=1");
        Ok(())
    })
    .await
}

/// Changes the password after the current one; this browser stays signed in (its session
/// takes the new generation), every other one and every bearer token is signed out.
#[server(prefix = "/fn", endpoint = "change_password")]
pub async fn change_password(
    current_password: String,
    new_password: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        let (ctx, session, p) = web::own_writer(&csrf).await?;
        let generation = crate::domain::accounts::security::change_password(
            &ctx,
            &p,
            &current_password,
            &new_password,
            None,
        )
        .await?;
        web::sign_in(&ctx, &session, &p.person_id, generation).await?;
        leptos_axum::redirect("/account?changed=1");
        Ok(())
    })
    .await
}

/// Signs out every browser (this one too) and revokes every bearer token of the account.
#[server(prefix = "/fn", endpoint = "sign_out_everywhere")]
pub async fn sign_out_everywhere(csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        let (ctx, session, p) = web::own_writer(&csrf).await?;
        crate::domain::accounts::security::sign_out_everywhere(&ctx, &p, None).await?;
        web::sign_out(&session).await?;
        leptos_axum::redirect("/sign-in");
        Ok(())
    })
    .await
}

/// The account's signed-in browsers and tokens, this browser marked.
#[server(prefix = "/fn", endpoint = "signed_in_list")]
pub async fn signed_in_list() -> Result<crate::model::signed_in::SignedInList, AppError> {
    super::web::run(async move {
        use crate::domain::accounts::sessions::{self, Current};
        let (ctx, p) = super::web::own_reader().await?;
        let session = super::web::session().await?;
        let row = session
            .id()
            .map(|id| crate::domain::crypto::sha256_hex(&id.to_string()));
        let current = Current {
            browser: row.as_deref(),
            token: None,
        };
        sessions::list(&ctx, &p, current).await
    })
    .await
}

/// Signs out one browser or revokes one token of the account.
#[server(prefix = "/fn", endpoint = "sign_out_session")]
pub async fn sign_out_session(session_id: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        crate::domain::accounts::sessions::sign_out(&ctx, &p, &session_id).await
    })
    .await
}
