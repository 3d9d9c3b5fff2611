//! Prometheus metrics at `GET /metrics` (docs/operations.md has a scrape example):
//! requests and latency per route, the inventory snapshot's age and size, the reward
//! callback outbox by status and callback attempt outcomes. The recorder is process-wide
//! (installed once; tests start many applications in one process); values that live in the
//! database or the inventory are read when Prometheus scrapes.

use std::sync::OnceLock;
use std::time::Instant;

use app::domain::callback_delivery::backlog;
use app::domain::conversions::inbox;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::state::AppState;

/// Latency buckets in seconds: the hot paths live in the first few.
const BUCKETS: [f64; 14] = [
    0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0,
];

/// Settlement-to-delivery buckets in seconds (the target is under one second at p99).
const DELIVERY_BUCKETS: [f64; 12] = [
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 30.0, 300.0, 3_600.0,
];

/// The process's recorder handle.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(
                Matcher::Full("http_request_duration_seconds".into()),
                &BUCKETS,
            )
            .and_then(|b| {
                b.set_buckets_for_metric(
                    Matcher::Full("reward_callback_delivery_seconds".into()),
                    &DELIVERY_BUCKETS,
                )
            })
            .map(PrometheusBuilder::build_recorder)
            .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
        let handle = recorder.handle();
        // Fails only when another recorder is installed already; the handle still renders.
        let _ = metrics::set_global_recorder(recorder);
        handle
    })
}

/// The `status` label values, by [`class_index`].
const CLASSES: [&str; 5] = ["1xx", "2xx", "3xx", "4xx", "5xx"];

fn class_index(status: StatusCode) -> usize {
    usize::from((status.as_u16() / 100).clamp(1, 5)) - 1
}

/// The request series of one route and method with their handles made once
/// (`outer_layer.rs` keeps one per route).
pub struct RouteSeries {
    requests: [metrics::Counter; 5],
    latency: metrics::Histogram,
}

impl RouteSeries {
    pub fn new(method: metrics::SharedString, route: impl Into<metrics::SharedString>) -> Self {
        let route = route.into();
        Self {
            requests: CLASSES.map(|c| {
                metrics::counter!("http_requests_total", "method" => method.clone(), "route" => route.clone(), "status" => c)
            }),
            latency: metrics::histogram!("http_request_duration_seconds", "method" => method, "route" => route),
        }
    }

    pub fn record(&self, status: StatusCode, started: Instant) {
        self.requests[class_index(status)].increment(1);
        self.latency.record(started.elapsed().as_secs_f64());
    }
}

/// Time from settlement (the delivery's creation) to the receiver's 2xx.
pub fn callback_delivered_after(seconds: f64) {
    metrics::histogram!("reward_callback_delivery_seconds").record(seconds);
}

/// Reward callbacks this process has in flight.
pub fn callbacks_in_flight(n: usize) {
    metrics::gauge!("reward_callback_in_flight").set(n as f64);
}

/// One reward callback attempt's outcome (the callback worker calls this).
pub fn callback_attempt(status: &str) {
    metrics::counter!("reward_callback_attempts_total", "status" => status.to_owned()).increment(1);
}

/// `GET /metrics`: with `APP_METRICS_TOKEN` set, only with that bearer token; without one,
/// in development only.
pub async fn scrape(State(s): State<AppState>, headers: axum::http::HeaderMap) -> Response {
    let allowed = match s
        .settings
        .metrics_token
        .as_deref()
        .filter(|t| !t.is_empty())
    {
        Some(token) => headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|given| {
                app::domain::crypto::constant_time_eq(given.trim().as_bytes(), token.as_bytes())
            }),
        None => s.ctx.config.environment == app::domain::Environment::Development,
    };
    if !allowed {
        return StatusCode::NOT_FOUND.into_response();
    }
    let snap = s.ctx.inventory.peek();
    metrics::gauge!("inventory_snapshot_age_seconds").set(snap.age().as_secs_f64());
    metrics::gauge!("inventory_snapshot_offers").set(snap.len() as f64);
    metrics::gauge!("inventory_snapshot_version").set(snap.version as f64);
    let surveys = s.ctx.surveys.live.peek();
    metrics::gauge!("survey_snapshot_surveys").set(surveys.len() as f64);
    metrics::gauge!("survey_snapshot_age_seconds").set(surveys.built.elapsed().as_secs_f64());
    metrics::gauge!("survey_fetch_writes_waiting").set(s.ctx.surveys.writes.backlog() as f64);
    metrics::counter!("cache_changes_heard_total").absolute(s.ctx.changes.heard());
    pool_gauges(&s.ctx.db).await;
    let depth = backlog::by_status(&s.ctx.db).await.unwrap_or_default();
    for (status, n) in depth {
        metrics::gauge!("reward_callback_outbox", "status" => status.as_str()).set(n as f64);
    }
    callback_lag(&s).await;
    let queued = inbox::queued_count(&s.ctx.db).await.unwrap_or(0);
    metrics::gauge!("postback_inbox_queued").set(queued as f64);
    let g = s.ctx.inbox.group_counts();
    // SQLite's group commit (`inbox::group`): reports per group is their ratio; the turn
    // with more seconds is the one that limits the rate.
    metrics::counter!("postback_settlement_groups_total").absolute(g.groups);
    metrics::counter!("postback_settlement_group_reports_total").absolute(g.reports);
    metrics::counter!("postback_settlement_group_failures_total").absolute(g.failed);
    metrics::gauge!("postback_settlement_group_reading_seconds").set(g.reading.as_secs_f64());
    metrics::gauge!("postback_settlement_group_writing_seconds").set(g.writing.as_secs_f64());
    if let Ok((held, paused)) = app::domain::conversions::holds::gauges(&s.ctx.db).await {
        metrics::gauge!("fraud_conversions_held").set(held as f64);
        metrics::gauge!("fraud_placements_paused").set(paused as f64);
    }
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        handle().render(),
    )
        .into_response()
}

/// Callback lag at scrape time: the age of the oldest due delivery in all and for the 20
/// placements that lag most (`reward_callback_lag_seconds{placement}`; a placement that
/// caught up is set to 0, so its series does not keep its last value).
async fn callback_lag(s: &AppState) {
    static SHOWN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let now = s.ctx.now();
    let oldest = backlog::oldest_due(&s.ctx.db, now, 20)
        .await
        .unwrap_or_default();
    let age = |t: &chrono::DateTime<chrono::Utc>| {
        now.signed_duration_since(*t).num_milliseconds().max(0) as f64 / 1_000.0
    };
    metrics::gauge!("reward_callback_oldest_due_seconds")
        .set(oldest.first().map_or(0.0, |(_, t)| age(t)));
    let Ok(mut shown) = SHOWN.lock() else {
        return;
    };
    for gone in shown
        .iter()
        .filter(|p| !oldest.iter().any(|(q, _)| q == *p))
    {
        metrics::gauge!("reward_callback_lag_seconds", "placement" => gone.clone()).set(0.0);
    }
    for (placement, t) in &oldest {
        metrics::gauge!("reward_callback_lag_seconds", "placement" => placement.clone())
            .set(age(t));
    }
    *shown = oldest.into_iter().map(|(p, _)| p).collect();
}

/// The database pool at scrape time: connections open, idle and in use, the maximum, and
/// how long taking a connection takes right now (what a request would wait).
async fn pool_gauges(db: &sea_orm::DatabaseConnection) {
    use sea_orm::DbBackend;
    let (open, idle, max) = match db.get_database_backend() {
        DbBackend::Postgres => {
            let p = db.get_postgres_connection_pool();
            (p.size(), p.num_idle(), p.options().get_max_connections())
        }
        _ => {
            let p = db.get_sqlite_connection_pool();
            (p.size(), p.num_idle(), p.options().get_max_connections())
        }
    };
    let idle = u32::try_from(idle).unwrap_or(u32::MAX);
    metrics::gauge!("db_pool_connections").set(f64::from(open));
    metrics::gauge!("db_pool_idle").set(f64::from(idle));
    metrics::gauge!("db_pool_in_use").set(f64::from(open.saturating_sub(idle)));
    metrics::gauge!("db_pool_max").set(f64::from(max));
    let started = std::time::Instant::now();
    let waited = match db.get_database_backend() {
        DbBackend::Postgres => tokio::time::timeout(
            std::time::Duration::from_secs(2),
            db.get_postgres_connection_pool().acquire(),
        )
        .await
        .is_ok_and(|c| c.is_ok()),
        _ => tokio::time::timeout(
            std::time::Duration::from_secs(2),
            db.get_sqlite_connection_pool().acquire(),
        )
        .await
        .is_ok_and(|c| c.is_ok()),
    };
    let seconds = if waited {
        started.elapsed().as_secs_f64()
    } else {
        2.0
    };
    metrics::gauge!("db_pool_acquire_seconds").set(seconds);
}
