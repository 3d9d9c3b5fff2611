//! Background work that runs beside the HTTP server. Each worker exposes `run_once` so
//! tests drain it without sleeping.

pub mod sweep;

use std::time::Duration;

use tokio::task::JoinHandle;

use crate::state::AppState;

/// Starts every worker loop; aborting the handle stops them.
pub fn spawn(state: AppState) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(300));
        loop {
            tick.tick().await;
            if let Err(e) = sweep::run_once(&state).await {
                tracing::warn!(error = %e, "sweep failed");
            }
        }
    })
}

/// Runs every worker once (tests).
pub async fn run_once(state: &AppState) -> anyhow::Result<()> {
    sweep::run_once(state).await
}
