//! The one route table: JSON APIs (with their OpenAPI document), the dashboards, and the
//! layers. Every route sits behind [`OuterLayer`]; each route group adds its own extras
//! inside it: the consoles and dashboards a trace span and compression, the delivery routes
//! (`api::delivery_routes`) only what each needs (CORS for the SDK, compression on reads).

use std::sync::Arc;

use axum::routing::get;
use axum::{Json, Router};

use crate::layers::{compression, trace};
use crate::outer_layer::OuterLayer;
use crate::state::AppState;

pub fn router(state: AppState) -> Router {
    let (api, mut openapi) = crate::api::router(&state).split_for_parts();
    crate::api::document::finish(&mut openapi);
    let openapi = Arc::new(openapi);
    let spec = openapi.clone();
    let reference = crate::api::reference::router(&openapi);
    let documents = Router::new()
        .route(
            "/openapi.json",
            get(move || async move { Json(spec.as_ref().clone()) }),
        )
        .route("/metrics", get(crate::metrics::scrape))
        .with_state(state.clone())
        .merge(reference)
        .merge(crate::api::billing::checkout::router(state.clone()))
        .merge(crate::web::router(state.clone()));
    let outer = OuterLayer::new(
        &state.settings.trusted_proxies,
        std::time::Duration::from_secs(state.settings.request_deadline_seconds.into()),
    );
    let mut api = api.with_state(state);
    // Development only: records exchanges for the document's examples when
    // APP_RECORD_EXAMPLES is set (api/examples/record.rs); otherwise not in the stack at all.
    if crate::api::examples::record::enabled() {
        api = api.layer(axum::middleware::from_fn(
            crate::api::examples::record::record,
        ));
    }
    Router::new()
        .merge(api)
        .merge(documents.layer(compression()).layer(trace()))
        .layer(outer)
}
