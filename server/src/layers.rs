//! The extras a route group adds inside the outer layer (`outer_layer.rs`): compression
//! and the trace span. Each group picks what it needs (`api::delivery_routes`, the consoles,
//! the dashboards), so these live apart from the route table that assembles the groups.

use axum::body::Body;
use http::Request;
use tower_http::classify::{ServerErrorsAsFailures, SharedClassifier};
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{And, DefaultPredicate, NotForContentType, Predicate};
use tower_http::trace::{
    DefaultOnBodyChunk, DefaultOnEos, DefaultOnRequest, DefaultOnResponse, TraceLayer,
};

use crate::outer_layer::REQUEST_ID;

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
