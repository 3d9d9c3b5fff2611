//! Whether the database is reachable: which errors mean an outage (503 with `Retry-After`,
//! not 500), and the process's memory of the last one, for layers that fail without saying
//! why. Depends on nothing of the domain, so the error type can use it.

use std::sync::atomic::{AtomicI64, Ordering};

use sea_orm::{DbErr, RuntimeErr};

/// Whether a database error means the database cannot be reached or cannot take work now
/// (refused or lost connections, a pool that stayed exhausted, a stalled network, a
/// database shutting down, SQLite's write lock held past the busy timeout), as opposed to
/// a fault in the statement. Such errors answer 503 with `Retry-After`, not 500.
pub fn is_unavailable(err: &DbErr) -> bool {
    use sea_orm::sqlx::Error as X;
    let sqlx = match err {
        DbErr::ConnectionAcquire(_) => return true,
        DbErr::Conn(RuntimeErr::SqlxError(e))
        | DbErr::Exec(RuntimeErr::SqlxError(e))
        | DbErr::Query(RuntimeErr::SqlxError(e)) => e,
        DbErr::Conn(_) => return true,
        _ => return false,
    };
    match sqlx.as_ref() {
        X::Io(_) | X::Tls(_) | X::PoolTimedOut | X::PoolClosed | X::WorkerCrashed => true,
        X::Protocol(_) => true,
        X::Database(db) => {
            let code = db.code().unwrap_or_default();
            // PostgreSQL: class 08 connection exceptions, 57P01-57P03 shutdown and start-up,
            // 53300 too many connections. SQLite: 5 BUSY, 6 LOCKED.
            code.starts_with("08")
                || matches!(
                    code.as_ref(),
                    "57P01" | "57P02" | "57P03" | "53300" | "5" | "6"
                )
        }
        _ => false,
    }
}

/// When the database was last found unavailable (milliseconds since the epoch; 0: never).
static UNAVAILABLE_AT: AtomicI64 = AtomicI64::new(0);

/// Notes that the database was just found unavailable.
pub fn note_unavailable() {
    UNAVAILABLE_AT.store(chrono::Utc::now().timestamp_millis(), Ordering::Relaxed);
}

/// How long after a database failure another failure that cannot say why (a bare 500 from
/// a layer, a session-store error, a request past its deadline) is taken for the same
/// outage and answered 503.
const OUTAGE_WINDOW_MS: i64 = 5_000;

/// Whether the database was found unavailable within the last [`OUTAGE_WINDOW_MS`]. It
/// reads the wall clock because it describes this process's connection health, not a
/// business rule.
pub fn recently_unavailable() -> bool {
    let at = UNAVAILABLE_AT.load(Ordering::Relaxed);
    at > 0 && chrono::Utc::now().timestamp_millis() - at <= OUTAGE_WINDOW_MS
}
