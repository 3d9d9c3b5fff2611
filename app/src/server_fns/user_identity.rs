//! A placement's signed user identity from the dashboard: read the setting, issue the
//! secret (shown once), require signed users or not.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::user_identity::{UserIdentitySecret, UserIdentitySettings};

/// The placement's setting.
#[server(prefix = "/fn", endpoint = "publisher_user_identity")]
pub async fn load_user_identity(placement_id: String) -> Result<UserIdentitySettings, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::publisher::user_identity::settings(&ctx, &p, &placement_id).await
    })
    .await
}

/// Issues the secret; a plain form post finds it on the page it returns to (flash).
#[server(prefix = "/fn", endpoint = "publisher_user_identity_secret")]
pub async fn issue_user_identity_secret(
    placement_id: String,
    csrf: String,
) -> Result<UserIdentitySecret, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = super::web::writer(&csrf).await?;
        let issued =
            crate::domain::publisher::user_identity::issue_secret(&ctx, &p, &placement_id).await?;
        super::flash::put_secret(
            &ctx,
            &session,
            &placement_id,
            "User identity secret",
            &issued.secret,
        )
        .await?;
        Ok(issued)
    })
    .await
}

/// The "require signed users" checkbox.
#[server(prefix = "/fn", endpoint = "publisher_user_identity_required")]
pub async fn set_user_identity_required(
    placement_id: String,
    required: Option<String>,
    csrf: String,
) -> Result<UserIdentitySettings, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let input = crate::model::user_identity::UserIdentityUpdate {
            required: required.is_some(),
        };
        crate::domain::publisher::user_identity::set_required(&ctx, &p, &placement_id, input).await
    })
    .await
}
