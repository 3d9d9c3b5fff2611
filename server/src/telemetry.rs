//! Structured logs. `RUST_LOG` filters (default `info`); `APP_LOG_FORMAT=json` for machines.
//! Request spans carry the request id; no header, body or query string is logged, so
//! tokens and signatures never reach the log.

use tracing_subscriber::{EnvFilter, fmt, prelude::*};

pub fn init(format: &str) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,sea_orm=warn,tower_sessions=warn"));
    let registry = tracing_subscriber::registry().with(filter);
    let result = if format == "json" {
        registry
            .with(fmt::layer().json().with_current_span(true))
            .try_init()
    } else {
        registry.with(fmt::layer().with_target(false)).try_init()
    };
    // A second init (tests start many applications in one process) is harmless.
    let _ = result;
}
