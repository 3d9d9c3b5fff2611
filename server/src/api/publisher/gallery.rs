//! The offer gallery: live inventory the publisher is eligible for.

use app::domain::publisher::gallery::{self, GalleryQuery};
use app::error::AppError;
use app::model::campaign::Platform;
use app::model::publisher::ops::OfferGallery;
use axum::extract::State;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(offer_gallery))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct GalleryParams {
    /// One of the publisher's placements: its platform and placement blacklist apply.
    placement_id: Option<String>,
    /// Two-letter country the offers must target.
    country: Option<String>,
    /// android, ios or web (ignored when a placement is named).
    #[param(value_type = Option<Platform>, inline)]
    platform: Option<String>,
    /// The previous page's `nextCursor`; omit for the first page.
    cursor: Option<String>,
    /// Offers per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// Live offers (LIVE, inside their schedule, with budget left) after the publisher's
/// blacklists, highest total payout first, a page at a time: `{items, count, nextCursor}`.
/// Payouts are the advertiser's gross amounts.
#[utoipa::path(get, path = "/offer-gallery", tag = "publisher", security(("dashboardBearer" = [])), params(GalleryParams),
    responses((status = 200, body = OfferGallery), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn offer_gallery(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<GalleryParams>,
) -> Result<AppJson<OfferGallery>, AppError> {
    let q = GalleryQuery {
        placement_id: q.placement_id,
        country: q.country,
        platform: q.platform,
        limit: q.limit,
        cursor: q.cursor,
    };
    gallery::gallery(&s.ctx, &p, q).await.map(AppJson)
}
