//! The placement's reward callback from the dashboard: its URL, the signing secret (shown
//! once through a flash on a plain form post), rotation, promotion and a signed test.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::*;

#[cfg(feature = "ssr")]
use super::support;

/// The label of a callback secret shown once: the value holds the secret and, on its second
/// line, the same secret for Standard Webhooks libraries.
pub fn callback_secret_label(what: &str, key_id: &str) -> String {
    format!(
        "{what} (key {key_id}); the second line is the same secret for Standard Webhooks libraries"
    )
}

#[server(prefix = "/fn", endpoint = "publisher_configure_callback")]
pub async fn configure_callback(
    placement_id: String,
    url: String,
    csrf: String,
) -> Result<CallbackSettings, AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let settings =
            crate::domain::callback_delivery::setup::configure(&ctx, &p, &placement_id, &url)
                .await?;
        if let (Some(secret), Some(standard)) =
            (&settings.secret, &settings.standard_webhooks_secret)
        {
            let label = callback_secret_label("Callback signing secret", &settings.key_id);
            let both = format!("{secret}\n{standard}");
            crate::server_fns::flash::put_secret(&ctx, &session, &placement_id, &label, &both)
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
        let issued =
            crate::domain::callback_delivery::setup::rotate(&ctx, &p, &placement_id).await?;
        let label = callback_secret_label("Next callback signing secret", &issued.key_id);
        let both = format!("{}\n{}", issued.secret, issued.standard_webhooks_secret);
        crate::server_fns::flash::put_secret(&ctx, &session, &placement_id, &label, &both).await?;
        Ok(issued)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_promote_callback")]
pub async fn promote_callback(
    placement_id: String,
    csrf: String,
) -> Result<CallbackKeyRef, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::callback_delivery::setup::promote(&ctx, &p, &placement_id).await
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
            crate::domain::callback_delivery::setup::test_event::send_test(&ctx, &p, &placement_id)
                .await?;
        crate::server_fns::flash::put(&session, support::CALLBACK_TEST, &placement_id, &test)
            .await?;
        Ok(test)
    })
    .await
}
