//! The delivery routes' own lean stack. End users' traffic (offer lists, single offers,
//! impressions, launches, the click redirect), the static feed, Custom S2S postbacks and the
//! survey fetch are matched first and pass through one hand-written layer instead of the
//! general stack's eight (request id, trace span, panic guard, compression, body limit,
//! client address, metrics, error bodies): each of those boxes a future, clones a service or
//! builds a span per request, and together they cost half of this machine's throughput on a
//! route that runs no query (BENCHMARKS.md, gap analysis).
//!
//! The lane does the same work once: it keeps or sets `X-Request-Id`, resolves the client
//! address, refuses a declared body over the limit, turns a panic into the JSON 500, gives a
//! bare error status its JSON body, and counts the request in the same Prometheus series
//! with handles made once per route. It logs every 5xx with its request id, method and path
//! (the general stack's trace span does the same for other routes). Anything else sent to
//! these paths (CORS preflights, other methods) falls through to the full stack unchanged.

use std::convert::Infallible;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use app::error::AppError;
use app::server_fns::web::ClientIp;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use futures::FutureExt;
use http::Method;
use tower::{Layer, Service};
use tower_http::compression::CompressionLayer;

use crate::api::postbacks::custom_s2s;
use crate::api::publisher::static_feed;
use crate::api::{sdk, survey_fetch};
use crate::extract::MAX_BODY_BYTES;
use crate::metrics::RouteSeries;
use crate::middleware::{client_ip_of, declares_more_than, panic_response, with_error_body};
use crate::routes::{CountingRequestId, REQUEST_ID};
use crate::state::AppState;

/// The delivery routes in front of `full`, which answers everything they do not match.
pub(crate) fn router(state: AppState, ids: CountingRequestId, full: Router) -> Router {
    if !state.settings.feature_delivery {
        // Switched off: the full stack's feature gate answers 404 for all of them.
        return full;
    }
    // The full stack's own routing must not see this router's match (axum would join
    // the two route templates into the metric label).
    let full = tower::util::MapRequest::new(full, forget_match as fn(Request) -> Request);
    let lane = Lane {
        state: state.clone(),
        ids,
        full: full.clone(),
    };
    // Routes with a body the client may want compressed, routes the web SDK calls from
    // other origins (CORS, as in the full stack), and both.
    let sdk_read = |path: &'static str, m: MethodRouter<AppState>| {
        lane.wrap(path, compressed(m.layer::<_, Infallible>(sdk::cors())))
    };
    let sdk_write = |path: &'static str, m: MethodRouter<AppState>| {
        lane.wrap(path, m.layer::<_, Infallible>(sdk::cors()))
    };
    let mut r = Router::new()
        .route(
            "/sdk/v2/ad-slots/{adSlotId}/offers",
            sdk_read("/sdk/v2/ad-slots/{adSlotId}/offers", get(sdk::list_offers)),
        )
        .route(
            "/sdk/v2/offers/{offerId}",
            sdk_read("/sdk/v2/offers/{offerId}", get(sdk::get_offer)),
        )
        .route(
            "/sdk/v2/offers/{offerId}/impressions",
            sdk_write(
                "/sdk/v2/offers/{offerId}/impressions",
                post(sdk::record_impression),
            ),
        )
        .route(
            "/sdk/v2/offers/{offerId}/launch",
            sdk_write("/sdk/v2/offers/{offerId}/launch", post(sdk::launch)),
        )
        .route(
            "/sdk/v2/launch/{launchId}",
            sdk_write("/sdk/v2/launch/{launchId}", get(sdk::open_launch)),
        )
        .route(
            "/performance-marketing/v2/postbacks/custom-s2s/{campaignId}",
            lane.wrap(
                "/performance-marketing/v2/postbacks/custom-s2s/{campaignId}",
                post(custom_s2s::custom_s2s_post).get(custom_s2s::custom_s2s_get),
            ),
        )
        .route(
            "/getallsurveys-api",
            lane.wrap(
                "/getallsurveys-api",
                compressed(post(survey_fetch::get_all_surveys)),
            ),
        );
    if state.settings.feature_foundation {
        let path = "/publisher/v2/ad-slots/{adSlotId}/static-offers";
        r = r.route(
            path,
            lane.wrap(path, compressed(get(static_feed::static_offers))),
        );
    }
    // Other paths go to the full stack (other methods on these paths do too: `wrap`).
    r.with_state(state).fallback_service(full)
}

/// The request as the full stack would have received it first.
fn forget_match(mut req: Request) -> Request {
    req.extensions_mut().remove::<axum::extract::MatchedPath>();
    req
}

/// The full stack, as the lane's fallback.
type FullStack = tower::util::MapRequest<Router, fn(Request) -> Request>;

/// HTML and JSON answers in brotli or gzip when the client asks (as the full stack does).
fn compressed(m: MethodRouter<AppState>) -> MethodRouter<AppState> {
    m.layer::<_, Infallible>(CompressionLayer::new())
}

#[derive(Clone)]
struct Lane {
    state: AppState,
    ids: CountingRequestId,
    full: FullStack,
}

impl Lane {
    /// Puts the lean layer around one route's handlers; other methods (CORS preflights,
    /// 405s) fall through to the full stack.
    fn wrap(&self, route: &'static str, m: MethodRouter<AppState>) -> MethodRouter<AppState> {
        m.layer::<_, Infallible>(DefaultBodyLimit::max(MAX_BODY_BYTES))
            .layer::<_, Infallible>(LaneLayer {
                lane: self.clone(),
                metrics: Arc::new(RouteMetrics::new(route)),
            })
            .fallback_service(self.full.clone())
    }
}

/// Prometheus series for one route, made once per method on its first request. HEAD is
/// counted as GET, which answers it.
struct RouteMetrics {
    route: &'static str,
    get: OnceLock<RouteSeries>,
    post: OnceLock<RouteSeries>,
}

impl RouteMetrics {
    fn new(route: &'static str) -> Self {
        Self {
            route,
            get: OnceLock::new(),
            post: OnceLock::new(),
        }
    }

    fn record(&self, method: &Method, status: http::StatusCode, started: Instant) {
        let series = match *method {
            Method::POST => self
                .post
                .get_or_init(|| RouteSeries::new("POST", self.route)),
            _ => self.get.get_or_init(|| RouteSeries::new("GET", self.route)),
        };
        series.record(status, started);
    }
}

#[derive(Clone)]
struct LaneLayer {
    lane: Lane,
    metrics: Arc<RouteMetrics>,
}

impl<S> Layer<S> for LaneLayer {
    type Service = LaneService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        LaneService {
            inner,
            lane: self.lane.clone(),
            metrics: self.metrics.clone(),
        }
    }
}

#[derive(Clone)]
struct LaneService<S> {
    inner: S,
    lane: Lane,
    metrics: Arc<RouteMetrics>,
}

impl<S> Service<Request> for LaneService<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request) -> Self::Future {
        let started = Instant::now();
        let id = match req.headers().get(&REQUEST_ID) {
            Some(v) => Some(v.clone()),
            None => {
                let v = self.lane.ids.next_value();
                if let Some(v) = &v {
                    req.headers_mut().insert(REQUEST_ID, v.clone());
                }
                v
            }
        };
        let ip = client_ip_of(&req, &self.lane.state.settings.trusted_proxies);
        req.extensions_mut().insert(ClientIp(ip));
        let too_big = declares_more_than(req.headers(), MAX_BODY_BYTES);
        let method = req.method().clone();
        // The usual tower pattern: the clone takes the next call, this one is ready.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let metrics = self.metrics.clone();
        // For the 5xx log line: the path only, never the query (signatures, tokens).
        let uri = req.uri().clone();
        Box::pin(async move {
            let res = if too_big {
                AppError::payload_too_large(MAX_BODY_BYTES).into_response()
            } else {
                match AssertUnwindSafe(inner.call(req)).catch_unwind().await {
                    Ok(Ok(res)) => res,
                    Ok(Err(never)) => match never {},
                    Err(panic) => panic_response(panic),
                }
            };
            let mut res = with_error_body(res);
            if let Some(id) = &id {
                res.headers_mut().insert(REQUEST_ID, id.clone());
            }
            let status = res.status();
            metrics.record(&method, status, started);
            if status.is_server_error() {
                tracing::error!(
                    id = id.as_ref().and_then(|v| v.to_str().ok()).unwrap_or("-"),
                    method = %method,
                    route = metrics.route,
                    path = uri.path(),
                    status = status.as_u16(),
                    "request failed"
                );
            }
            Ok(res)
        })
    }
}
