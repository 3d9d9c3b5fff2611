//! The reward-callback deliveries console from the dashboard: the log, one delivery with
//! its attempts, replay, and a placement's delivery health.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::callback_delivery::{
    DeliveryDetail, DeliveryHealth, DeliveryList, DeliverySummary, PausedReceiver, ReceiverResumed,
};

/// The publisher's deliveries, newest first, optionally one status and a cursor.
#[server(prefix = "/fn", endpoint = "publisher_deliveries")]
pub async fn list_deliveries(
    status: Option<String>,
    cursor: Option<String>,
) -> Result<DeliveryList, AppError> {
    crate::server_fns::web::run(async move {
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
        let q = crate::model::callback_delivery::DeliveryListQuery {
            status,
            cursor,
            ..Default::default()
        };
        crate::domain::callback_delivery::console::list(&ctx, &p, &q).await
    })
    .await
}

/// One delivery with its attempts.
#[server(prefix = "/fn", endpoint = "publisher_delivery")]
pub async fn read_delivery(delivery_id: String) -> Result<DeliveryDetail, AppError> {
    crate::server_fns::web::run(async move {
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
        crate::domain::callback_delivery::console::read(&ctx, &p, &delivery_id).await
    })
    .await
}

/// Queues a DELIVERED or FAILED callback to be sent again.
#[server(prefix = "/fn", endpoint = "publisher_delivery_replay")]
pub async fn replay_delivery(
    delivery_id: String,
    csrf: String,
) -> Result<DeliverySummary, AppError> {
    crate::server_fns::web::run(async move {
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        crate::server_fns::web::check_csrf(&session, &csrf).await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
        crate::domain::callback_delivery::console::replay(&ctx, &p, &delivery_id).await
    })
    .await
}

/// The delivery health card of a placement.
#[server(prefix = "/fn", endpoint = "publisher_delivery_health")]
pub async fn load_delivery_health(placement_id: String) -> Result<DeliveryHealth, AppError> {
    crate::server_fns::web::run(async move {
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
        crate::domain::callback_delivery::console::health(&ctx, &p, &placement_id).await
    })
    .await
}

/// Resumes a paused callback receiver (or retries its pending deliveries now).
#[server(prefix = "/fn", endpoint = "publisher_receiver_resume")]
pub async fn resume_receiver(
    placement_id: String,
    csrf: String,
) -> Result<ReceiverResumed, AppError> {
    crate::server_fns::web::run(async move {
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        crate::server_fns::web::check_csrf(&session, &csrf).await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
        crate::domain::callback_delivery::receivers::resume(&ctx, &p, &placement_id).await
    })
    .await
}

/// Removes a placement's callback receiver (its unsent rewards wait for the next one).
#[server(prefix = "/fn", endpoint = "publisher_callback_remove")]
pub async fn remove_callback(
    placement_id: String,
    csrf: String,
) -> Result<crate::model::callback_delivery::CallbackRemoved, AppError> {
    crate::server_fns::web::run(async move {
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        crate::server_fns::web::check_csrf(&session, &csrf).await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
        crate::domain::callback_delivery::setup::remove::remove_callback(&ctx, &p, &placement_id)
            .await
    })
    .await
}

/// The publisher's placements whose callback receiver is paused.
#[server(prefix = "/fn", endpoint = "publisher_paused_receivers")]
pub async fn paused_receivers() -> Result<Vec<PausedReceiver>, AppError> {
    crate::server_fns::web::run(async move {
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
        crate::domain::callback_delivery::receivers::paused(&ctx, &p).await
    })
    .await
}
