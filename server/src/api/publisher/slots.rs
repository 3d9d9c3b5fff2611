//! Ad slots: create, read, merge-PATCH, state changes, reward preview, snippets, static keys.

use app::domain::publisher::{placements, slots, static_keys};
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
        .routes(routes!(create, list))
        .routes(routes!(read, patch, archive))
        .routes(routes!(activate))
        .routes(routes!(disable))
        .routes(routes!(reward_preview))
        .routes(routes!(snippets))
        .routes(routes!(static_key))
}

type SlotPath = AppPath<(String, String)>;

/// Create a slot. Allowed types per placement type: ANDROID_APP and IOS_APP → OFFERWALL,
/// OFFER_API; WEBSITE → OFFERWALL, OFFER_API, STATIC_API; API_NETWORK → OFFER_API, STATIC_API.
/// The slot is READY when the placement is VERIFIED and the currency rate is positive.
#[utoipa::path(post, path = "/placements/{placementId}/ad-slots", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), request_body = SlotInput,
    responses((status = 201, body = AdSlot), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "`limit_reached`: the placement holds 100 ad slots")))]
async fn create(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(pid): AppPath<String>,
    AppJson(b): AppJson<SlotInput>,
) -> Result<(StatusCode, AppJson<AdSlot>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(slots::create(&s.ctx, &p, &pid, b).await?),
    ))
}

/// The placement's slots, every state included (a placement holds at most 100, so the list is
/// answered whole).
#[utoipa::path(get, path = "/placements/{placementId}/ad-slots", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), responses((status = 200, body = AdSlotList), (status = 404, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(pid): AppPath<String>,
) -> Result<AppJson<AdSlotList>, AppError> {
    let items = placements::get(&s.ctx, &p, &pid)
        .await?
        .ad_slots
        .unwrap_or_default();
    Ok(AppJson(AdSlotList {
        count: items.len(),
        items,
    }))
}

/// One slot.
#[utoipa::path(get, path = "/placements/{placementId}/ad-slots/{adSlotId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path), ("adSlotId" = String, Path)), responses((status = 200, body = AdSlot), (status = 404, body = ErrorBody)))]
async fn read(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((pid, sid)): SlotPath,
) -> Result<AppJson<AdSlot>, AppError> {
    let placement = placements::get(&s.ctx, &p, &pid).await?;
    placement
        .ad_slots
        .unwrap_or_default()
        .into_iter()
        .find(|x| x.ad_slot_id == sid)
        .map(AppJson)
        .ok_or_else(|| AppError::not_found("ad slot"))
}

/// Merge the named sections (fields inside `currency`, `policy`, `offerDelivery`, `design` and
/// `exposure` are merged too); `type` cannot change. Increments `configurationVersion` and
/// stores an immutable revision.
#[utoipa::path(patch, path = "/placements/{placementId}/ad-slots/{adSlotId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path), ("adSlotId" = String, Path)), request_body = SlotInput,
    responses((status = 200, body = AdSlot), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn patch(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((pid, sid)): SlotPath,
    AppJson(b): AppJson<SlotInput>,
) -> Result<AppJson<AdSlot>, AppError> {
    slots::patch(&s.ctx, &p, &pid, &sid, b).await.map(AppJson)
}

/// Archive a slot that is not ACTIVE (disable an active slot first: 409 `slot_active`). It
/// leaves lists and delivery, its static keys stop opening the feed, and it no longer holds
/// the placement's deletion; history keeps naming it. 204.
#[utoipa::path(delete, path = "/placements/{placementId}/ad-slots/{adSlotId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path), ("adSlotId" = String, Path)),
    responses((status = 204, description = "archived"), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn archive(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((pid, sid)): SlotPath,
) -> Result<axum::http::StatusCode, AppError> {
    app::domain::publisher::retire::archive_slot(&s.ctx, &p, &pid, &sid).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

/// READY (or DISABLED) → ACTIVE; needs a ready slot on a released placement.
#[utoipa::path(post, path = "/placements/{placementId}/ad-slots/{adSlotId}/activate", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path), ("adSlotId" = String, Path)), responses((status = 200, body = AdSlot), (status = 409, body = ErrorBody)))]
async fn activate(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((pid, sid)): SlotPath,
    _b: EmptyObject,
) -> Result<AppJson<AdSlot>, AppError> {
    slots::set_state(&s.ctx, &p, &pid, &sid, SlotState::Active)
        .await
        .map(AppJson)
}

/// READY or ACTIVE → DISABLED: delivery stops, configuration is kept.
#[utoipa::path(post, path = "/placements/{placementId}/ad-slots/{adSlotId}/disable", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path), ("adSlotId" = String, Path)), responses((status = 200, body = AdSlot), (status = 409, body = ErrorBody)))]
async fn disable(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((pid, sid)): SlotPath,
    _b: EmptyObject,
) -> Result<AppJson<AdSlot>, AppError> {
    slots::set_state(&s.ctx, &p, &pid, &sid, SlotState::Disabled)
        .await
        .map(AppJson)
}

/// Convert USD micros with the slot's rate and rounding (exact integer arithmetic).
#[utoipa::path(post, path = "/placements/{placementId}/ad-slots/{adSlotId}/reward-preview", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path), ("adSlotId" = String, Path)), request_body = RewardPreviewRequest,
    responses((status = 200, body = RewardPreview), (status = 400, body = ErrorBody)))]
async fn reward_preview(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((pid, sid)): SlotPath,
    AppJson(b): AppJson<RewardPreviewRequest>,
) -> Result<AppJson<RewardPreview>, AppError> {
    slots::reward_preview(&s.ctx, &p, &pid, &sid, b.usd_micros)
        .await
        .map(AppJson)
}

/// Credential-free android, ios and web initialisation snippets.
#[utoipa::path(get, path = "/placements/{placementId}/ad-slots/{adSlotId}/snippets", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path), ("adSlotId" = String, Path)), responses((status = 200, body = Snippets), (status = 404, body = ErrorBody)))]
async fn snippets(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((pid, sid)): SlotPath,
) -> Result<AppJson<Snippets>, AppError> {
    slots::snippets(&s.ctx, &p, &pid, &sid).await.map(AppJson)
}

/// Issue a static feed key (STATIC_API slots only, 409 otherwise); expiry in the future and at
/// most one year ahead; earlier keys of the slot stop working; the token is shown once.
#[utoipa::path(post, path = "/placements/{placementId}/ad-slots/{adSlotId}/static-key", tag = "publisher", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path), ("adSlotId" = String, Path)), request_body = StaticKeyRequest,
    responses((status = 201, body = StaticKeyIssued), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn static_key(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((pid, sid)): SlotPath,
    AppJson(b): AppJson<StaticKeyRequest>,
) -> Result<(StatusCode, AppJson<StaticKeyIssued>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(static_keys::issue(&s.ctx, &p, &pid, &sid, b).await?),
    ))
}
