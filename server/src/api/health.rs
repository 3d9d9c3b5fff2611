//! Liveness and readiness probes.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use sea_orm::ConnectionTrait;
use serde_json::json;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(healthz))
        .routes(routes!(readyz))
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "health", responses((status = 200, description = "alive")))]
async fn healthz() -> impl IntoResponse {
    axum::Json(json!({"status": "ok"}))
}

/// Start-up has built the offer inventory, and the database answers.
#[utoipa::path(get, path = "/readyz", tag = "health", responses((status = 200, description = "ready"), (status = 503, description = "still warming up, or the database is unreachable")))]
async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    if !state.warm.load(std::sync::atomic::Ordering::Acquire) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"status": "warming"})),
        );
    }
    let backend = state.ctx.db.get_database_backend();
    // Bounded: a database whose packets stall must not hold the probe (or the load
    // balancer asking it) longer than the pool's own acquire timeout.
    let ping = tokio::time::timeout(
        std::time::Duration::from_secs(2),
        state
            .ctx
            .db
            .execute_raw(sea_orm::Statement::from_string(backend, "SELECT 1")),
    )
    .await
    .unwrap_or_else(|_| Err(sea_orm::DbErr::Custom("timed out".to_owned())));
    match ping {
        Ok(_) => (
            StatusCode::OK,
            axum::Json(json!({"status": "ready", "database": "ok"})),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                axum::Json(json!({"status": "unavailable", "database": "unreachable"})),
            )
        }
    }
}
