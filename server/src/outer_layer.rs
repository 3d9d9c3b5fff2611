//! The one layer every request passes through, put around each route of the one route table
//! (`routes.rs`, with `Router::layer`, so the matched route template is known). It does in
//! one hand-written service what used to take eight tower layers (request id, panic guard,
//! body limit, client address, metrics, error bodies, deadline, failure log): each of those
//! boxes a future, clones a service or builds labels per request, and together they cost
//! half of this machine's throughput on a route that runs no query (BENCHMARKS.md). Route
//! groups add their own extras inside it (a trace span and compression for the consoles and
//! dashboards, CORS for the SDK, compression on the delivery reads).
//!
//! Per request it keeps or sets `X-Request-Id`, resolves the client address, refuses a
//! declared body over the route's limit, bounds the whole request by its route class's
//! deadline, turns a panic into the JSON 500, gives a bare error status the JSON error body
//! of CONTRACT.md section 6, counts the request in Prometheus with handles made once per
//! route and method, logs every 5xx with its request id, method, route and path, and every
//! other answer in the access log (request id, method, route template, status, latency),
//! and adds the `RateLimit-Policy` and `RateLimit` headers of the limits the handler checked.

use std::convert::Infallible;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::extract::ClientIp;
use app::error::AppError;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::response::{IntoResponse, Response};
use futures::FutureExt;
use http::{HeaderName, HeaderValue, Method};
use tower::{Layer, Service};

use crate::extract::MAX_BODY_BYTES;
use crate::metrics::RouteSeries;
use crate::middleware::{
    client_ip_of, declares_more_than, panic_response, with_error_body, with_rate_limit_headers,
};
use crate::route_facts::{self, Carries};
use app::domain::rate_limit::recording;

pub(crate) const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The deadline of uploads and exports (evidence files, CSV reports), or the ordinary
/// deadline (`--request-deadline-seconds`, 10 s by default) when that is longer.
const LONG_REQUEST_DEADLINE: Duration = Duration::from_secs(30);

/// The layer; one per router, cloned onto every route.
#[derive(Clone)]
pub struct OuterLayer {
    trusted_proxies: Arc<[ipnet::IpNet]>,
    ids: RequestIds,
    /// The whole-request deadline of ordinary routes (reading the body included).
    deadline: Duration,
}

impl OuterLayer {
    pub fn new(trusted_proxies: &[ipnet::IpNet], deadline: Duration) -> Self {
        Self {
            trusted_proxies: Arc::from(trusted_proxies),
            ids: RequestIds::default(),
            deadline,
        }
    }
}

impl<S> Layer<S> for OuterLayer {
    type Service = OuterService<S>;

    /// Called once per route and method: each gets its own metric handles.
    fn layer(&self, inner: S) -> Self::Service {
        OuterService {
            inner: DefaultBodyLimit::max(MAX_BODY_BYTES).layer(inner),
            layer: self.clone(),
            series: Arc::default(),
            class: Arc::default(),
        }
    }
}

#[derive(Clone)]
pub struct OuterService<S> {
    inner: <DefaultBodyLimit as Layer<S>>::Service,
    layer: OuterLayer,
    /// This route's series for the first method it answered (a route's service answers one
    /// method; the 405 fallback of a route answers several and takes the slow path).
    series: Arc<OnceLock<(Method, RouteSeries)>>,
    /// This route's class (`route_facts`) for the first method it answered, found once.
    class: Arc<OnceLock<(Method, RouteClass)>>,
}

impl<S> Service<Request> for OuterService<S>
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
                let v = self.layer.ids.next_value();
                if let Some(v) = &v {
                    req.headers_mut().insert(REQUEST_ID, v.clone());
                }
                v
            }
        };
        let ip = client_ip_of(&req, &self.layer.trusted_proxies);
        req.extensions_mut().insert(ClientIp(ip));
        let method = req.method().clone();
        let route = req.extensions().get::<MatchedPath>().cloned();
        let of = || {
            RouteClass(route.as_ref().map_or(Carries::Ordinary, |r| {
                route_facts::carries(&method, r.as_str())
            }))
        };
        let class = match self.class.get_or_init(|| (method.clone(), of())) {
            (m, class) if *m == method => *class,
            _ => of(),
        };
        let deadline = class.deadline(self.layer.deadline);
        let too_big = declares_more_than(req.headers(), class.body_limit());
        // The usual tower pattern: the clone takes the next call, this one is ready.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let series = self.series.clone();
        // For the 5xx log line: the path only, never the query (signatures, tokens).
        let uri = req.uri().clone();
        Box::pin(async move {
            let res = if too_big {
                AppError::payload_too_large(class.shown_limit()).into_response()
            } else {
                // The limits the handler checked are recorded for the `RateLimit` headers.
                let call = AssertUnwindSafe(recording(inner.call(req))).catch_unwind();
                match tokio::time::timeout(deadline, call).await {
                    Ok(Ok((Ok(res), limits))) => with_rate_limit_headers(res, &limits),
                    Ok(Ok((Err(never), _))) => match never {},
                    Ok(Err(panic)) => panic_response(panic),
                    Err(_) => deadline_passed(),
                }
            };
            let mut res = with_error_body(res);
            if let Some(id) = &id {
                res.headers_mut().insert(REQUEST_ID, id.clone());
            }
            let status = res.status();
            let route = route.as_ref().map_or("unmatched", MatchedPath::as_str);
            record(&series, &method, route, status, started);
            // A warming process's `/readyz` 503 is its answer, not a failure: it goes to
            // the access log like any other.
            if status.is_server_error() && route != "/readyz" {
                tracing::error!(
                    id = id.as_ref().and_then(|v| v.to_str().ok()).unwrap_or("-"),
                    method = %method,
                    route,
                    path = uri.path(),
                    status = status.as_u16(),
                    "request failed"
                );
            } else {
                // The access log (telemetry.rs): the route template, never the path, whose
                // segments and query can carry tokens.
                tracing::info!(
                    target: "access",
                    id = id.as_ref().and_then(|v| v.to_str().ok()).unwrap_or("-"),
                    method = %method,
                    route,
                    status = status.as_u16(),
                    micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
                );
            }
            Ok(res)
        })
    }
}

/// Counts the request: with the route's handles when they are this method's, else with a
/// series looked up by labels (a route's 405 fallback, the router's fallback).
fn record(
    series: &OnceLock<(Method, RouteSeries)>,
    method: &Method,
    route: &str,
    status: http::StatusCode,
    started: Instant,
) {
    let (m, s) = series.get_or_init(|| {
        (
            method.clone(),
            RouteSeries::new(method_label(method), route.to_owned()),
        )
    });
    if m == method {
        s.record(status, started);
    } else {
        RouteSeries::new(method_label(method), route.to_owned()).record(status, started);
    }
}

/// A static label for the usual methods (HEAD is answered by GET and counted as itself).
fn method_label(m: &Method) -> metrics::SharedString {
    match *m {
        Method::GET => "GET".into(),
        Method::POST => "POST".into(),
        Method::PUT => "PUT".into(),
        Method::PATCH => "PATCH".into(),
        Method::DELETE => "DELETE".into(),
        Method::HEAD => "HEAD".into(),
        Method::OPTIONS => "OPTIONS".into(),
        _ => m.as_str().to_owned().into(),
    }
}

/// The deadline's answer: 503 `service_unavailable` during a database outage (the wait was
/// the database), else 408 `timeout`. A client that declares a body and never sends it holds
/// its connection's slot no longer than the deadline.
fn deadline_passed() -> Response {
    if app::domain::db::recently_unavailable() {
        AppError::database_unavailable().into_response()
    } else {
        AppError::new(408, "timeout", "the request took too long").into_response()
    }
}

/// A route's limits by what it carries (`route_facts`): evidence uploads take a 5 MiB file
/// and 30 s; a bulk reconciliation 4 MiB (10,000 lines) and 30 s; CSV reports and exports
/// take 30 s; everything else 1 MiB and the ordinary deadline.
#[derive(Clone, Copy)]
struct RouteClass(Carries);

impl RouteClass {
    fn deadline(self, ordinary: Duration) -> Duration {
        match self.0 {
            Carries::Ordinary => ordinary,
            Carries::Upload | Carries::Reconciliation | Carries::Export => {
                LONG_REQUEST_DEADLINE.max(ordinary)
            }
        }
    }

    /// The declared body size refused before reading (multipart framing included).
    fn body_limit(self) -> usize {
        match self.0 {
            Carries::Upload => crate::extract::EVIDENCE_BODY_BYTES,
            Carries::Reconciliation => crate::extract::RECONCILIATION_BODY_BYTES,
            Carries::Ordinary | Carries::Export => MAX_BODY_BYTES,
        }
    }

    /// The limit the refusal names (the file's own limit for uploads).
    fn shown_limit(self) -> usize {
        match self.0 {
            Carries::Upload => app::domain::delivery::support_cases::evidence::MAX_EVIDENCE_BYTES,
            Carries::Reconciliation => crate::extract::RECONCILIATION_BODY_BYTES,
            Carries::Ordinary | Carries::Export => MAX_BODY_BYTES,
        }
    }
}

/// Request ids `<process prefix>-<counter>`: unique within a process's life and across
/// restarts (random prefix), without a random-number syscall per request as UUIDs cost.
#[derive(Clone)]
struct RequestIds {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl Default for RequestIds {
    fn default() -> Self {
        let r = app::domain::crypto::random_bytes::<4>();
        Self {
            prefix: Arc::from(hex::encode(r)),
            next: Arc::default(),
        }
    }
}

impl RequestIds {
    fn next_value(&self) -> Option<HeaderValue> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n:x}", self.prefix)).ok()
    }
}
