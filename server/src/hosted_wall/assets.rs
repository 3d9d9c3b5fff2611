//! The wall's stylesheet and enhancement script, and the web SDK a publisher's page loads.

use axum::response::{IntoResponse, Response};
use http::header;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::state::AppState;

/// Versioned asset names: a new version gets a new name, so they are cached for a year.
const WALL_CSS: &str = include_str!("../../assets/wall-v2.css");
const WALL_JS: &str = include_str!("../../assets/wall-v1.js");
const WEB_SDK: &str = include_str!("../../assets/offers-v2.js");

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(wall_css))
        .routes(routes!(wall_js))
        .routes(routes!(web_sdk))
}

fn immutable(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
        ],
        body,
    )
        .into_response()
}

/// The wall's stylesheet (mobile first; the slot design sets its colours; v2 lays out
/// right-to-left pages).
#[utoipa::path(get, path = "/offerwall/assets/wall-v2.css", tag = "offerwall",
    responses((status = 200, description = "Stylesheet, cached for a year", content_type = "text/css", body = String)))]
async fn wall_css() -> Response {
    immutable("text/css; charset=utf-8", WALL_CSS)
}

/// The wall's enhancement script (the wall works without it): the postMessage bridge.
#[utoipa::path(get, path = "/offerwall/assets/wall-v1.js", tag = "offerwall",
    responses((status = 200, description = "Script, cached for a year", content_type = "text/javascript", body = String)))]
async fn wall_js() -> Response {
    immutable("text/javascript; charset=utf-8", WALL_JS)
}

/// The web SDK, an ES module without dependencies (docs/web-sdk.md). The path names the
/// major version, so the content can improve within it; browsers keep it an hour and
/// revalidate. Any site may load it (it holds no secret).
#[utoipa::path(get, path = "/sdk/v2/offers.js", tag = "offerwall",
    responses((status = 200, description = "ES module: MarketplaceOffers (fromSession, bind, init)", content_type = "text/javascript", body = String)))]
async fn web_sdk() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        WEB_SDK,
    )
        .into_response()
}
