//! The whole router: JSON APIs (with their OpenAPI document), the dashboards, and the
//! layers every request passes through.

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::Html;
use axum::routing::get;
use axum::{Json, Router};
use http::{HeaderName, Request};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, NotForContentType, Predicate};
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::TraceLayer;

use crate::extract::MAX_BODY_BYTES;
use crate::middleware;
use crate::state::AppState;

pub(crate) const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

pub fn router(state: AppState) -> Router {
    let ids = CountingRequestId::default();
    let full = full_stack(state.clone(), ids.clone());
    // The delivery routes answer through their own lean stack; everything else (and any
    // method those routes do not take) falls through to the full one. Every request of
    // both has a deadline.
    crate::delivery_lane::router(state, ids, full).layer(from_fn(middleware::request_deadline))
}

/// Every route behind the general layers.
fn full_stack(state: AppState, ids: CountingRequestId) -> Router {
    let (api, mut openapi) = crate::api::router(&state).split_for_parts();
    crate::api::document::finish(&mut openapi);
    let openapi = Arc::new(openapi);
    let spec = openapi.clone();
    let reference = Html(crate::api::reference::render(&openapi));
    let api = api
        .route(
            "/openapi.json",
            get(move || async move { Json(spec.as_ref().clone()) }),
        )
        .route("/docs", get(move || async move { reference.clone() }))
        .route("/metrics", get(crate::metrics::scrape))
        .with_state(state.clone())
        .layer(from_fn(middleware::error_bodies));

    Router::new()
        .merge(api)
        .merge(crate::api::billing::checkout::router(state.clone()))
        .merge(crate::web::router(state.clone()))
        // Runs after routing (Router::layer), so the matched route template is known.
        .layer(from_fn(crate::metrics::track))
        .layer(from_fn_with_state(state, middleware::client_ip))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(from_fn(middleware::body_limit))
        // HTML and JSON answers in brotli or gzip when the client asks; the browser bundle
        // is served precompressed (scripts/precompress.mjs), never compressed per request.
        .layer(CompressionLayer::new().compress_when(
            DefaultPredicate::new().and(NotForContentType::const_new("application/wasm")),
        ))
        .layer(CatchPanicLayer::custom(middleware::panic_response))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
            let id = req.extensions().get::<RequestId>().and_then(|r| r.header_value().to_str().ok()).unwrap_or("-");
            // Path only: query strings can carry signatures and hosted-offerwall tokens.
            tracing::info_span!("request", id = %id, method = %req.method(), path = %req.uri().path())
        }))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, ids))
}

/// Request ids `<process prefix>-<counter>`: unique within a process's life and across
/// restarts (random prefix), without a random-number syscall per request as UUIDs cost.
#[derive(Clone)]
pub(crate) struct CountingRequestId {
    prefix: Arc<str>,
    next: Arc<std::sync::atomic::AtomicU64>,
}

impl Default for CountingRequestId {
    fn default() -> Self {
        let r = app::domain::crypto::random_bytes::<4>();
        Self {
            prefix: Arc::from(hex::encode(r)),
            next: Arc::default(),
        }
    }
}

impl CountingRequestId {
    /// The next id as a header value.
    pub(crate) fn next_value(&self) -> Option<http::HeaderValue> {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        http::HeaderValue::from_str(&format!("{}-{n:x}", self.prefix)).ok()
    }
}

impl MakeRequestId for CountingRequestId {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        self.next_value().map(RequestId::new)
    }
}
