//! The placement's reward callback from the dashboard: its URL, the signing secret (shown
//! once through a flash on a plain form post), rotation, promotion and a signed test.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::*;

#[cfg(feature = "ssr")]
use super::support;

#[server(prefix = "/fn", endpoint = "publisher_configure_callback")]
pub async fn configure_callback(
    placement_id: String,
    url: String,
    csrf: String,
) -> Result<CallbackSettings, AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let settings =
            crate::domain::publisher::callbacks::configure(&ctx, &p, &placement_id, &url).await?;
        if let Some(secret) = &settings.secret {
            let label = format!("Callback signing secret (key {})", settings.key_id);
            crate::server_fns::flash::put_secret(&ctx, &session, &placement_id, &label, secret)
                .await?;
        }
        Ok(settings)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_rotate_callback")]
pub async fn rotate_callback(
    placement_id: String,
    csrf: String,
) -> Result<CallbackKeyIssued, AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let issued = crate::domain::publisher::callbacks::rotate(&ctx, &p, &placement_id).await?;
        let label = format!("Next callback signing secret (key {})", issued.key_id);
        crate::server_fns::flash::put_secret(&ctx, &session, &placement_id, &label, &issued.secret)
            .await?;
        Ok(issued)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_promote_callback")]
pub async fn promote_callback(
    placement_id: String,
    csrf: String,
) -> Result<CallbackKeyRef, AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, _, p) = support::writer(&csrf).await?;
        crate::domain::publisher::callbacks::promote(&ctx, &p, &placement_id).await
    })
    .await
}

/// Sends a signed test event to the receiver and shows its answer (kept in a flash for a
/// plain form post, like the preview).
#[server(prefix = "/fn", endpoint = "publisher_test_callback")]
pub async fn test_callback(placement_id: String, csrf: String) -> Result<CallbackTest, AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let test =
            crate::domain::publisher::callbacks::test_event::send_test(&ctx, &p, &placement_id)
                .await?;
        crate::server_fns::flash::put(&session, support::CALLBACK_TEST, &placement_id, &test)
            .await?;
        Ok(test)
    })
    .await
}
