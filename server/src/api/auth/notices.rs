//! Being told (`/auth/v1/notifications…`, `/auth/v1/webhooks…`, docs/notifications.md): the
//! organisation's notices as this person shows them, their preferences, and the
//! organisation's account webhooks. Only with a dashboard token.

use app::domain::accounts::notices;
use app::domain::callback_delivery::account_webhooks;
use app::error::AppError;
use app::model::notice::*;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::api::paging::PageQuery;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_notifications))
        .routes(routes!(mark_notifications_seen))
        .routes(routes!(get_preferences, put_preferences))
        .routes(routes!(list_webhooks, create_webhook))
        .routes(routes!(remove_webhook))
        .routes(routes!(webhook_deliveries))
        .routes(routes!(test_webhook))
        .routes(routes!(resume_webhook))
}

/// The organisation's notices of the topics this person shows on the dashboard, newest
/// first, and how many of the newest 100 they have not seen.
#[utoipa::path(get, path = "/notifications", tag = "auth", security(("dashboardBearer" = [])), params(PageQuery),
    responses((status = 200, body = NoticeList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn list_notifications(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<PageQuery>,
) -> Result<AppJson<NoticeList>, AppError> {
    let page = q.page("ntc")?;
    notices::list(&s.ctx, &p, &page).await.map(AppJson)
}

/// Marks every notice up to now as seen by this person (the unread count drops to 0).
#[utoipa::path(post, path = "/notifications/seen", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 204, description = "Seen"), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn mark_notifications_seen(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<StatusCode, AppError> {
    notices::mark_seen(&s.ctx, &p).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// This person's choice, per topic of the organisation's side, of what they get by e-mail
/// and on the dashboard (a topic never chosen shows the role's default); for advertisers, the
/// budget alert share.
#[utoipa::path(get, path = "/notification-preferences", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 200, body = NoticePreferences), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn get_preferences(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<NoticePreferences>, AppError> {
    notices::preferences(&s.ctx, &p).await.map(AppJson)
}

/// Changes the named topics' choices (the others stay). `budgetAlertPercent` (advertisers,
/// 0-50, 0 off) needs a role that may change billing (403 `insufficient_role`).
#[utoipa::path(put, path = "/notification-preferences", tag = "auth", security(("dashboardBearer" = [])), request_body = NoticePreferencesUpdate,
    responses((status = 200, body = NoticePreferences), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn put_preferences(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<NoticePreferencesUpdate>,
) -> Result<AppJson<NoticePreferences>, AppError> {
    notices::update(&s.ctx, &p, &req).await.map(AppJson)
}

/// The organisation's account webhooks (never their secrets), with each one's health.
#[utoipa::path(get, path = "/webhooks", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 200, body = AccountWebhookList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn list_webhooks(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<AccountWebhookList>, AppError> {
    account_webhooks::list(&s.ctx, &p).await.map(AppJson)
}

/// Register an endpoint for account events (HTTPS, a public address). The Standard Webhooks
/// secret (`whsec_…`) is in this answer only. Owners, admins and developers (403
/// `insufficient_role`); at most 10 (409 `too_many_webhooks`).
#[utoipa::path(post, path = "/webhooks", tag = "auth", security(("dashboardBearer" = [])), request_body = AccountWebhookCreate,
    responses((status = 201, body = AccountWebhookIssued), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn create_webhook(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<AccountWebhookCreate>,
) -> Result<(StatusCode, AppJson<AccountWebhookIssued>), AppError> {
    let issued = account_webhooks::create(&s.ctx, &p, &req).await?;
    Ok((StatusCode::CREATED, AppJson(issued)))
}

/// Remove an endpoint: nothing more is sent to it and what waited is cancelled.
#[utoipa::path(delete, path = "/webhooks/{webhookId}", tag = "auth", security(("dashboardBearer" = [])),
    params(("webhookId" = String, Path, description = "The endpoint's `whk_…` id")),
    responses((status = 204, description = "Removed"), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn remove_webhook(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    account_webhooks::remove(&s.ctx, &p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The endpoint's newest 100 deliveries: status, attempts, the last answer.
#[utoipa::path(get, path = "/webhooks/{webhookId}/deliveries", tag = "auth", security(("dashboardBearer" = [])),
    params(("webhookId" = String, Path, description = "The endpoint's `whk_…` id")),
    responses((status = 200, body = AccountWebhookDeliveries), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn webhook_deliveries(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<AccountWebhookDeliveries>, AppError> {
    account_webhooks::deliveries(&s.ctx, &p, &id)
        .await
        .map(AppJson)
}

/// Send a `webhook.test` event to the endpoint through the ordinary delivery path.
#[utoipa::path(post, path = "/webhooks/{webhookId}/test", tag = "auth", security(("dashboardBearer" = [])),
    params(("webhookId" = String, Path, description = "The endpoint's `whk_…` id")),
    responses((status = 202, body = AccountWebhookDelivery), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn test_webhook(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<(StatusCode, AppJson<AccountWebhookDelivery>), AppError> {
    let d = account_webhooks::send_test(&s.ctx, &p, &id).await?;
    Ok((StatusCode::ACCEPTED, AppJson(d)))
}

/// Resume a paused endpoint (a day of failures pauses it): what waits is sent now.
#[utoipa::path(post, path = "/webhooks/{webhookId}/resume", tag = "auth", security(("dashboardBearer" = [])),
    params(("webhookId" = String, Path, description = "The endpoint's `whk_…` id")),
    responses((status = 200, body = AccountWebhook), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn resume_webhook(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<AccountWebhook>, AppError> {
    account_webhooks::resume(&s.ctx, &p, &id).await.map(AppJson)
}
