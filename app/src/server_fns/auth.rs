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

#[server(prefix = "/fn", endpoint = "sign_in")]
pub async fn sign_in(email: String, password: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        use crate::domain::accounts;
        let ctx = web::ctx()?;
        let session = web::session().await?;
        web::check_csrf(&session, &csrf).await?;
        let client = web::client_ip().await;
        let acc = accounts::authenticate(&ctx, &email, &password, &client).await?;
        web::sign_in(&session, &acc.id).await?;
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
        let ctx = web::ctx()?;
        let session = web::session().await?;
        web::check_csrf(&session, &csrf).await?;
        ctx.limits
            .check(Policy::Register, &web::client_ip().await)?;
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
        web::sign_in(&session, &view.account_id).await?;
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
