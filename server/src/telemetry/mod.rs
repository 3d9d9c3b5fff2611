//! Structured logs. `RUST_LOG` filters (default `info`); `APP_LOG_FORMAT=json` for machines.
//! Request spans carry the request id; no header, body or query string is logged, so
//! tokens and signatures never reach the log.
//!
//! Lines are written by a thread of their own, in batches (`batched`), so a request never
//! waits on the terminal or the log collector's pipe; the access log (target `access`, one
//! line per request at info) would otherwise put a write of stdout on every hot-path
//! request. `RUST_LOG=info,access=off` turns the access log off.

mod batched;

pub use batched::Guard;
use tracing_subscriber::{EnvFilter, fmt, prelude::*};

/// Starts logging; keep the guard until the process ends (dropping it flushes the lines
/// still queued).
pub fn init(format: &str) -> Option<Guard> {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,sea_orm=warn,tower_sessions=warn"));
    let (writer, guard) = batched::Batched::new(std::io::stdout());
    let registry = tracing_subscriber::registry().with(filter);
    let result = if format == "json" {
        registry
            .with(
                fmt::layer()
                    .json()
                    .with_current_span(true)
                    .with_writer(writer),
            )
            .try_init()
    } else {
        // Colours only for a person at a terminal: escape codes cost formatting time on
        // every access line and clutter a collector's records.
        let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
        registry
            .with(
                fmt::layer()
                    .with_target(false)
                    .with_ansi(ansi)
                    .with_writer(writer),
            )
            .try_init()
    };
    // A second init (tests start many applications in one process) is harmless.
    result.ok().map(|()| guard)
}
