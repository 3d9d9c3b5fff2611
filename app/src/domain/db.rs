//! Database helpers shared by every domain module: one place that maps constraint
//! violations to conflicts, so no caller leaks a 500 for a duplicate.

use sea_orm::{DbErr, SqlErr};

use crate::error::AppError;

/// Maps a unique-constraint violation to `409 conflict` with `message`; other errors stay internal.
pub fn conflict_on_unique(err: DbErr, message: &str) -> AppError {
    match err.sql_err() {
        Some(SqlErr::UniqueConstraintViolation(_)) => AppError::conflict(message),
        _ => err.into(),
    }
}
