//! Database helpers shared by every domain module: one place that maps constraint
//! violations to conflicts, so no caller leaks a 500 for a duplicate.

pub mod lease;
pub mod outage;

pub use lease::Lease;
pub use outage::{is_unavailable, note_unavailable, recently_unavailable};

use sea_orm::{DbErr, SqlErr};

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
