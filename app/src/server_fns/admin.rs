//! Administrator actions from the dashboard.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::AccountView;

#[server(prefix = "/fn", endpoint = "pending_advertisers")]
pub async fn pending_advertisers() -> Result<Vec<AccountView>, AppError> {
    super::web::run(async move {
        use super::web;
        let ctx = web::ctx()?;
        let session = web::session().await?;
        let p = web::require_principal(&ctx, &session).await?;
        crate::domain::accounts::pending_advertisers(&ctx, &p).await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "approve_advertiser")]
pub async fn approve_advertiser(account_id: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        let ctx = web::ctx()?;
        let session = web::session().await?;
        web::check_csrf(&session, &csrf).await?;
        let p = web::require_principal(&ctx, &session).await?;
        crate::domain::accounts::approve_advertiser(&ctx, &p, &account_id).await?;
        Ok(())
    })
    .await
}
