//! What the reward-callback outbox holds right now, for the operator's gauges: deliveries
//! by status, and the oldest due delivery of the placements that lag most.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use crate::error::AppError;
use crate::model::callback_delivery::DeliveryStatus;
use entity::callback_delivery::{Column, Entity};

/// Deliveries per status (every status, 0 where none).
pub async fn by_status(db: &DatabaseConnection) -> Result<Vec<(DeliveryStatus, i64)>, AppError> {
    let counted: Vec<(DeliveryStatus, i64)> = Entity::find()
        .select_only()
        .column(Column::Status)
        .column_as(Expr::cust("COUNT(*)"), "n")
        .group_by(Column::Status)
        .into_tuple()
        .all(db)
        .await?;
    Ok(DeliveryStatus::ALL
        .iter()
        .map(|&status| {
            let n = counted
                .iter()
                .find(|(k, _)| *k == status)
                .map_or(0, |(_, n)| *n);
            (status, n)
        })
        .collect())
}

/// The `limit` placements whose oldest due delivery (pending or held past its time) is
/// oldest, with that time, oldest first.
pub async fn oldest_due(
    db: &DatabaseConnection,
    now: DateTime<Utc>,
    limit: u64,
) -> Result<Vec<(String, DateTime<Utc>)>, AppError> {
    Ok(Entity::find()
        .select_only()
        .column(Column::PlacementId)
        .column_as(Column::NextAttemptAt.min(), "oldest")
        .filter(Column::Status.is_in([
            DeliveryStatus::Pending.as_str(),
            DeliveryStatus::Held.as_str(),
        ]))
        .filter(Column::NextAttemptAt.lte(now))
        .group_by(Column::PlacementId)
        .order_by_asc(Column::NextAttemptAt.min())
        .limit(limit)
        .into_tuple()
        .all(db)
        .await?)
}
