//! The audit trail: who did what to which object. Written in the same transaction as the
//! change it describes.

use sea_orm::{ActiveModelTrait, ConnectionTrait, Set};

use crate::domain::ids::new_id;
use crate::error::AppError;

/// Appends one audit event. `detail` is JSON and must never carry secrets.
pub async fn record<C: ConnectionTrait>(
    db: &C,
    now: chrono::DateTime<chrono::Utc>,
    actor: Option<&str>,
    action: &str,
    subject: (&str, &str),
    detail: serde_json::Value,
) -> Result<(), AppError> {
    entity::audit_event::ActiveModel {
        id: Set(new_id("aud")),
        actor_account_id: Set(actor.map(str::to_owned)),
        action: Set(action.to_owned()),
        subject_type: Set(subject.0.to_owned()),
        subject_id: Set(subject.1.to_owned()),
        detail: Set(detail.to_string()),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}
