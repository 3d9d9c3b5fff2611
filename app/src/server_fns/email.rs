//! The `/account` page's e-mail card (send the verification link again, change the address)
//! and the `/confirm-email` page (using a mailed link). The rules are in
//! `domain::accounts::email`.

use leptos::prelude::*;

use crate::error::AppError;

/// Mails the verification link again.
#[server(prefix = "/fn", endpoint = "resend_verification")]
pub async fn resend_verification(csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        crate::domain::accounts::email::resend_verification(&ctx, &p).await?;
        // Without JavaScript the answer is dropped: the page says it from its address.
        if super::web::plain_form_post() {
            leptos_axum::redirect("/account?email=resent#email");
        }
        Ok(())
    })
    .await
}

/// Asks to sign in with `new_email` (a link goes there; the old address is told).
#[server(prefix = "/fn", endpoint = "change_email")]
pub async fn change_email(
    new_email: String,
    current_password: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        crate::domain::accounts::email::request_change(&ctx, &p, &new_email, &current_password)
            .await?;
        if super::web::plain_form_post() {
            leptos_axum::redirect("/account?email=sent#email");
        }
        Ok(())
    })
    .await
}

/// Uses a mailed link, then opens the account page (or the sign-in page for a visitor who is
/// not signed in) saying what it confirmed.
#[server(prefix = "/fn", endpoint = "confirm_email")]
pub async fn confirm_email(token: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        use crate::domain::Policy;
        let (ctx, session) = super::web::visitor_form(&csrf, Policy::PasswordResetAddress).await?;
        let purpose = crate::domain::accounts::email::confirm(&ctx, token.trim()).await?;
        let signed_in = crate::auth::principal(&ctx, &session).await?.is_some();
        let to = match (signed_in, purpose) {
            (true, crate::model::EmailLinkPurpose::Verify) => "/account?email=verified",
            (true, crate::model::EmailLinkPurpose::Change) => "/account?email=changed",
            (false, crate::model::EmailLinkPurpose::Verify) => "/sign-in?email=verified",
            (false, crate::model::EmailLinkPurpose::Change) => "/sign-in?email=changed",
        };
        leptos_axum::redirect(to);
        Ok(())
    })
    .await
}
