//! Questions about delivery history asked by other rules (placement deletion).

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};

use crate::error::AppError;
use entity::sdk_session;

/// Whether any SDK session was ever created for the placement.
pub async fn placement_has_sessions<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
) -> Result<bool, AppError> {
    Ok(sdk_session::Entity::find()
        .filter(sdk_session::Column::PlacementId.eq(placement_id.to_owned()))
        .count(db)
        .await?
        > 0)
}
