//! Questions about delivery history asked by other rules (placement deletion). SDK sessions
//! are recorded by the delivery surface; until it is built, no placement has any.

use sea_orm::ConnectionTrait;

use crate::error::AppError;

/// Whether any SDK session was ever created for the placement.
pub async fn placement_has_sessions<C: ConnectionTrait>(
    _db: &C,
    _placement_id: &str,
) -> Result<bool, AppError> {
    Ok(false)
}
