//! The static offer feed, pulled by the publisher's server with the slot key (a delivery
//! surface: off with the delivery switch). 120 requests per minute per slot, key and source.

use crate::extract::ClientIp;
use app::domain::Policy;
use app::domain::delivery::static_feed;
use app::domain::rate_limit::client_bucket;
use app::error::AppError;
use app::model::delivery::StaticFeed;
use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppPath, AppQuery};
use crate::state::AppState;

/// A delivery route (`api::delivery_routes`): compressed when asked, no other extras.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(static_offers))
        .layer(crate::layers::compression())
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct FeedParams {
    /// Two uppercase letters; without it geography is less precise.
    country: Option<String>,
    /// web, android or ios; must be the placement's platform.
    #[param(value_type = Option<app::model::campaign::Platform>, inline)]
    platform: Option<String>,
}

/// Inventory for a STATIC_API slot: live offers after schedule, budget, country, platform,
/// the publisher's blacklists and the slot policy (at most 100), with `ETag` and
/// `Cache-Control: max-age=60`; `If-None-Match` with the current ETag answers 304. Not user
/// eligibility and not proof of reward. Refusals: 401 `invalid_static_key` (missing,
/// unknown, inactive or expired key), 403 `static_key_slot_mismatch`, 409 `slot_not_ready`
/// or `placement_not_verified`, 400 bad query, 429.
#[utoipa::path(get, path = "/ad-slots/{adSlotId}/static-offers", tag = "publisher", security(("staticKey" = [])),
    params(("adSlotId" = String, Path), FeedParams, ("If-None-Match" = Option<String>, Header)),
    responses((status = 200, body = StaticFeed), (status = 304, description = "unchanged"), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 409, body = ErrorBody), (status = 429, body = ErrorBody)))]
pub(crate) async fn static_offers(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    headers: HeaderMap,
    AppPath(slot): AppPath<String>,
    AppQuery(q): AppQuery<FeedParams>,
) -> Result<Response, AppError> {
    if !s.settings.feature_delivery {
        return Err(AppError::not_found("route"));
    }
    let key = headers
        .get("x-service-static-key")
        .and_then(|v| v.to_str().ok());
    // The limiter keeps only a keyed 64-bit hash of this key, never the key itself.
    s.ctx.limits.check(
        Policy::StaticFeed,
        &format!("{slot}|{}|{}", key.unwrap_or_default(), client_bucket(ip)),
    )?;
    let feed = static_feed::feed(
        &s.ctx,
        &slot,
        key,
        q.country.as_deref(),
        q.platform.as_deref(),
    )
    .await?;
    let cache = format!("private, max-age={}", static_feed::MAX_AGE_SECONDS);
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|t| t.trim() == feed.etag || t.trim() == "*")
        });
    if unchanged {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, feed.etag), (header::CACHE_CONTROL, cache)],
        )
            .into_response());
    }
    Ok((
        [
            (header::ETAG, feed.etag.clone()),
            (header::CACHE_CONTROL, cache),
            (header::CONTENT_TYPE, "application/json".to_owned()),
        ],
        feed.body,
    )
        .into_response())
}
