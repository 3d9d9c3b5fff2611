//! The reward-callback receiver of `scripts/bench_callbacks.py`: an HTTPS endpoint (a
//! throwaway CA, as in the integration tests) that answers 200 at once and counts, per
//! placement and per benchmark phase, what arrived and how long after its delivery was
//! created (`benchCreatedMs` in the payload). A plain-HTTP side port serves the figures.
//!
//! Prints one JSON line on start: `{"port", "statsPort", "caFile"}`; runs until killed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::net::TcpListener;

#[derive(Default)]
struct Phase {
    count: u64,
    first_ms: u64,
    last_ms: u64,
    latencies_ms: Vec<u64>,
    per_placement: HashMap<String, u64>,
}

type Stats = Arc<Mutex<HashMap<String, Phase>>>;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

async fn hook(State(stats): State<Stats>, body: Bytes) -> &'static str {
    let at = now_ms();
    let v: Value = serde_json::from_slice(&body).unwrap_or_default();
    let phase = v["benchPhase"].as_str().unwrap_or("none").to_owned();
    let placement = v["placementId"].as_str().unwrap_or("?").to_owned();
    let created = v["benchCreatedMs"].as_u64();
    if let Ok(mut s) = stats.lock() {
        let p = s.entry(phase).or_default();
        if p.count == 0 {
            p.first_ms = at;
        }
        p.count += 1;
        p.last_ms = at;
        if let Some(c) = created {
            p.latencies_ms.push(at.saturating_sub(c));
        }
        *p.per_placement.entry(placement).or_default() += 1;
    }
    "ok"
}

fn percentile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

async fn report(
    State(stats): State<Stats>,
    Query(q): Query<HashMap<String, String>>,
) -> axum::Json<Value> {
    let phase = q.get("phase").cloned().unwrap_or_default();
    let Ok(s) = stats.lock() else {
        return axum::Json(json!({}));
    };
    let Some(p) = s.get(&phase) else {
        return axum::Json(json!({"count": 0}));
    };
    let mut l = p.latencies_ms.clone();
    l.sort_unstable();
    axum::Json(json!({
        "count": p.count,
        "firstMs": p.first_ms,
        "lastMs": p.last_ms,
        "p50Ms": percentile(&l, 0.5),
        "p99Ms": percentile(&l, 0.99),
        "maxMs": l.last().copied().unwrap_or(0),
        "placements": p.per_placement.len(),
    }))
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (tls, ca_file) = tests::receiver::tls_identity(dir.path());
    let stats: Stats = Arc::default();
    let hooks = axum::Router::new()
        .route("/hook/{placement}", post(hook))
        .with_state(stats.clone());
    let tcp = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = tcp.local_addr().expect("addr").port();
    let side = TcpListener::bind("127.0.0.1:0").await.expect("bind stats");
    let stats_port = side.local_addr().expect("addr").port();
    let _task = tests::receiver::serve_tls(tcp, tls, hooks);
    println!(
        "{}",
        json!({"port": port, "statsPort": stats_port, "caFile": ca_file})
    );
    let app = axum::Router::new()
        .route("/stats", get(report))
        .with_state(stats);
    let _ = axum::serve(side, app).await;
}
