//! The reward-callback delivery log: list with filters, one delivery with its attempts,
//! replay, and the delivery health of a placement.

use app::domain::callback_delivery::{console, receivers};
use app::error::AppError;
use app::model::callback_delivery::*;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_callback_deliveries))
        .routes(routes!(read_callback_delivery))
        .routes(routes!(replay_callback_delivery))
        .routes(routes!(read_callback_health))
        .routes(routes!(resume_callback_receiver))
}

/// The reward callbacks sent (or to be sent) to the caller's receivers, newest first.
/// Filters: status, placementId, from/to (creation time), externalUserId, transactionId;
/// paging with `nextCursor`.
#[utoipa::path(get, path = "/callback-deliveries", tag = "publisher", security(("dashboardBearer" = [])),
    params(DeliveryListQuery),
    responses((status = 200, description = "A page of deliveries", body = DeliveryList),
        (status = 400, description = "Invalid filter", body = ErrorBody),
        (status = 401, description = "Not signed in", body = ErrorBody)))]
async fn list_callback_deliveries(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<DeliveryListQuery>,
) -> Result<AppJson<DeliveryList>, AppError> {
    console::list(&s.ctx, &p, &q).await.map(AppJson)
}

/// One delivery: payload, canonical body, headers, and every attempt (time, status code,
/// latency, error class, first KiB of the response). Another publisher's delivery is 404.
#[utoipa::path(get, path = "/callback-deliveries/{deliveryId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("deliveryId" = String, Path)),
    responses((status = 200, description = "The delivery with its attempts", body = DeliveryDetail),
        (status = 404, description = "No such delivery of the caller", body = ErrorBody)))]
async fn read_callback_delivery(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<DeliveryDetail>, AppError> {
    console::read(&s.ctx, &p, &id).await.map(AppJson)
}

/// Send a DELIVERED or FAILED callback again: the same event and `Idempotency-Key` with a
/// fresh timestamp, nonce and signature, queued at once (202). 409
/// `delivery_not_replayable` for other states; 429 past 10 replays at once, then one
/// every 6 seconds.
#[utoipa::path(post, path = "/callback-deliveries/{deliveryId}/replay", tag = "publisher", security(("dashboardBearer" = [])),
    params(("deliveryId" = String, Path)),
    responses((status = 202, description = "Queued for sending now", body = DeliverySummary),
        (status = 404, description = "No such delivery of the caller", body = ErrorBody),
        (status = 409, description = "Not DELIVERED or FAILED", body = ErrorBody),
        (status = 429, description = "Too many replays", body = ErrorBody)))]
async fn replay_callback_delivery(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<(StatusCode, AppJson<DeliverySummary>), AppError> {
    Ok((
        StatusCode::ACCEPTED,
        AppJson(console::replay(&s.ctx, &p, &id).await?),
    ))
}

/// Delivery health of a placement: attempts and success rate over 24 hours, the last
/// failure, the next retry, and rewards waiting for a receiver or in their pending hold.
#[utoipa::path(get, path = "/placements/{placementId}/callback/health", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)),
    responses((status = 200, description = "Delivery health", body = DeliveryHealth),
        (status = 404, description = "No such placement of the caller", body = ErrorBody)))]
async fn read_callback_health(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<DeliveryHealth>, AppError> {
    console::health(&s.ctx, &p, &id).await.map(AppJson)
}

/// Resumes delivery to the placement's receiver. A receiver whose every attempt failed for
/// 24 hours is paused (the health read shows `pausedAt`); resuming clears the pause and
/// makes every pending delivery due at once. On a receiver that is not paused it is a
/// "retry now" for pending retries.
#[utoipa::path(post, path = "/placements/{placementId}/callback/resume", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)),
    responses((status = 200, description = "Delivery resumed", body = ReceiverResumed),
        (status = 404, description = "No such placement of the caller", body = ErrorBody)))]
async fn resume_callback_receiver(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<ReceiverResumed>, AppError> {
    receivers::resume(&s.ctx, &p, &id).await.map(AppJson)
}
