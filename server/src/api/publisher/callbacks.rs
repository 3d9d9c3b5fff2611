//! Reward callback settings: configure, read, remove, rotate, promote, test.

use app::domain::callback_delivery::setup as callbacks;
use app::error::AppError;
use app::model::publisher::*;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, Authenticated, EmptyObject};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(read, configure, remove))
        .routes(routes!(rotate))
        .routes(routes!(promote))
        .routes(routes!(test))
        .routes(routes!(send_test))
}

/// Current callback settings (never a secret).
#[utoipa::path(get, path = "/placements/{placementId}/callback", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 200, body = CallbackSettings), (status = 404, body = ErrorBody)))]
async fn read(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<CallbackSettings>, AppError> {
    callbacks::settings(&s.ctx, &p, &id).await.map(AppJson)
}

/// Set the HTTPS receiver. The first configuration creates the signing key and returns
/// `secret` once; private and loopback receivers are refused unless allowed by configuration.
#[utoipa::path(put, path = "/placements/{placementId}/callback", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), request_body = CallbackRequest,
    responses((status = 200, body = CallbackSettings), (status = 400, body = ErrorBody)))]
async fn configure(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<CallbackRequest>,
) -> Result<AppJson<CallbackSettings>, AppError> {
    callbacks::configure(&s.ctx, &p, &id, &b.url)
        .await
        .map(AppJson)
}

/// Remove the receiver. Its signing keys are retired (configuring a receiver again creates a
/// new key, shown once); unsent reward callbacks wait as WAITING_RECEIVER until a receiver
/// is configured again. A placement without a receiver can be deleted (if nothing else
/// holds it). 404 when no receiver is configured.
#[utoipa::path(delete, path = "/placements/{placementId}/callback", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)),
    responses((status = 200, body = app::model::callback_delivery::CallbackRemoved), (status = 404, body = ErrorBody)))]
async fn remove(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<app::model::callback_delivery::CallbackRemoved>, AppError> {
    callbacks::remove::remove_callback(&s.ctx, &p, &id)
        .await
        .map(AppJson)
}

/// Create the next signing key (shown once); the current key keeps signing until promotion.
#[utoipa::path(post, path = "/placements/{placementId}/callback/rotate", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 201, body = CallbackKeyIssued), (status = 409, body = ErrorBody)))]
async fn rotate(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<CallbackKeyIssued>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(callbacks::rotate(&s.ctx, &p, &id).await?),
    ))
}

/// Make the next key current; the previous current key is retired.
#[utoipa::path(post, path = "/placements/{placementId}/callback/promote", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 200, body = CallbackKeyRef), (status = 409, body = ErrorBody)))]
async fn promote(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<CallbackKeyRef>, AppError> {
    callbacks::promote(&s.ctx, &p, &id).await.map(AppJson)
}

/// The exact payload and headers a reward confirmation would carry, signed with the current
/// key (`X-Service-Signature` = hex HMAC-SHA256 of `timestamp.nonce.canonicalBody`). Nothing is
/// delivered and nothing is accounted.
#[utoipa::path(post, path = "/placements/{placementId}/callback/test", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 200, body = CallbackTest), (status = 409, body = ErrorBody)))]
async fn test(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<CallbackTest>, AppError> {
    callbacks::test_event::test(&s.ctx, &p, &id)
        .await
        .map(AppJson)
}

/// Sends a signed test event (`"test": true`, never credited) to the configured receiver
/// through the same client as real callbacks (HTTPS, checked addresses, no redirects) and
/// returns the request with the receiver's `answer`. Shares the replay budget (429).
#[utoipa::path(post, path = "/placements/{placementId}/callback/test/send", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 200, body = CallbackTest), (status = 409, body = ErrorBody), (status = 429, body = ErrorBody)))]
async fn send_test(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<CallbackTest>, AppError> {
    callbacks::test_event::send_test(&s.ctx, &p, &id)
        .await
        .map(AppJson)
}
