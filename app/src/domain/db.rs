//! Database helpers shared by every domain module: one place that maps constraint
//! violations to conflicts, so no caller leaks a 500 for a duplicate.

use std::sync::atomic::{AtomicI64, Ordering};

use sea_orm::{DbErr, RuntimeErr, SqlErr};

use crate::error::AppError;

/// Whether a database error is a unique-constraint violation (a lost race or a replay).
pub fn is_unique_violation(err: &DbErr) -> bool {
    matches!(err.sql_err(), Some(SqlErr::UniqueConstraintViolation(_)))
}

/// Maps a unique-constraint violation to `409 conflict` with `message`; other errors stay internal.
pub fn conflict_on_unique(err: DbErr, message: &str) -> AppError {
    if is_unique_violation(&err) {
        AppError::conflict(message)
    } else {
        err.into()
    }
}

/// Begins a write transaction. On SQLite it takes the write lock at BEGIN (IMMEDIATE), so a
/// transaction that reads before it writes waits for other writers (busy timeout) instead
/// of failing with a stale snapshot; PostgreSQL ignores the option.
pub async fn begin(
    db: &sea_orm::DatabaseConnection,
) -> Result<sea_orm::DatabaseTransaction, AppError> {
    use sea_orm::{SqliteTransactionMode, TransactionOptions, TransactionTrait};
    Ok(db
        .begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..Default::default()
        })
        .await?)
}

/// Code of a write that lost a race on a unique index (see [`retry_on_race`]).
pub const LOST_RACE: &str = "lost_race";

/// Maps a unique violation to a `409 lost_race` (other errors stay internal), for inserts
/// guarded by a partial unique index such as "one active key".
pub fn race_on_unique(err: DbErr) -> AppError {
    if is_unique_violation(&err) {
        AppError::conflict("a concurrent request changed this; try again").with_code(LOST_RACE)
    } else {
        err.into()
    }
}

/// Runs `op` once more when it lost a race on a unique index: the second run sees the
/// winner's row and gives the answer a sequential request would have had.
pub async fn retry_on_race<T, F, Fut>(op: F) -> Result<T, AppError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, AppError>>,
{
    match op().await {
        Err(e) if e.code == LOST_RACE => op().await,
        other => other,
    }
}

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
