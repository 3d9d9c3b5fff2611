//! The one route table: JSON APIs (with their OpenAPI document), the dashboards, and the
//! layers. Every route sits behind [`OuterLayer`]; each route group adds its own extras
//! inside it: the consoles and dashboards a trace span and compression, the delivery routes
//! (`api::delivery_routes`) only what each needs (CORS for the SDK, compression on reads).

use std::sync::Arc;

use axum::body::Body;
use axum::response::Html;
use axum::routing::get;
use axum::{Json, Router};
use http::Request;
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{And, DefaultPredicate, NotForContentType, Predicate};
use tower_http::trace::{
    DefaultOnBodyChunk, DefaultOnEos, DefaultOnRequest, DefaultOnResponse, TraceLayer,
};

use crate::outer_layer::{OuterLayer, REQUEST_ID};
use crate::state::AppState;

pub fn router(state: AppState) -> Router {
    let (api, mut openapi) = crate::api::router(&state).split_for_parts();
    crate::api::document::finish(&mut openapi);
    let openapi = Arc::new(openapi);
    let spec = openapi.clone();
    let reference = Html(crate::api::reference::render(&openapi));
    let documents = Router::new()
        .route(
            "/openapi.json",
            get(move || async move { Json(spec.as_ref().clone()) }),
        )
        .route("/docs", get(move || async move { reference.clone() }))
        .route("/metrics", get(crate::metrics::scrape))
        .with_state(state.clone())
        .merge(crate::api::billing::checkout::router(state.clone()))
        .merge(crate::web::router(state.clone()));
    let outer = OuterLayer::new(&state.settings.trusted_proxies);
    Router::new()
        .merge(api.with_state(state))
        .merge(documents.layer(compression()).layer(trace()))
        .layer(outer)
}

/// Compression for a console or dashboard group: HTML and JSON answers in brotli or gzip
/// when the client asks; the browser bundle is served precompressed
/// (scripts/precompress.mjs), never compressed per request.
pub(crate) fn compression() -> CompressionLayer<And<DefaultPredicate, NotForContentType>> {
    CompressionLayer::new().compress_when(
        DefaultPredicate::new().and(NotForContentType::const_new("application/wasm")),
    )
}

/// The trace span of a console or dashboard request, so what its handler logs carries the
/// request id. Failures are logged by the outer layer (once, for every route).
pub(crate) type Traced = TraceLayer<
    SharedClassifier<ServerErrorsAsFailures>,
    fn(&Request<Body>) -> tracing::Span,
    DefaultOnRequest,
    DefaultOnResponse,
    DefaultOnBodyChunk,
    DefaultOnEos,
    (),
>;

pub(crate) fn trace() -> Traced {
    TraceLayer::new_for_http()
        .make_span_with(request_span as fn(&Request<Body>) -> tracing::Span)
        .on_failure(())
}

fn request_span(req: &Request<Body>) -> tracing::Span {
    let id = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    // Path only: query strings can carry signatures and hosted-offerwall tokens.
    tracing::info_span!("request", id = %id, method = %req.method(), path = %req.uri().path())
}
