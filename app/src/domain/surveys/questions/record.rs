//! A stored question as every handler reads it: the API view, its options in order, the
//! limits, and the lookup that applies the targeting status policy before any change. Kept
//! apart so question and option handlers share one loading path without depending on each
//! other.

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use crate::domain::Principal;
use crate::domain::surveys::campaigns::SUBJECT;
use crate::domain::surveys::quotas::{Scope, for_change};
use crate::error::AppError;
use crate::model::survey::targeting::*;
use entity::survey_custom_question as cq;

/// At most this many questions per campaign and options per question.
pub const MAX_QUESTIONS: usize = 30;
pub const MAX_OPTIONS: usize = 50;
/// `question_type_id` and `control_state` values (the model's, which the pages read too).
pub use crate::model::survey::targeting::{
    CS_ACCEPT as ACCEPT, CS_REJECT as REJECT, MULTI_PUNCH, SINGLE_PUNCH,
};

pub fn view(m: &cq::Model) -> CustomQuestion {
    CustomQuestion {
        _id: m.id.clone(),
        campaign_id: m.campaign_id.clone(),
        display_text: m.display_text.clone(),
        question_type_id: m.question_type_id,
        sort_order: m.sort_order,
        controls: serde_json::from_str(&m.controls).unwrap_or_default(),
        options: options_of(m),
        created_at: m.created_at,
        updated_at: m.updated_at,
    }
}

pub(super) fn options_of(m: &cq::Model) -> Vec<AnswerOption> {
    let mut o: Vec<AnswerOption> = serde_json::from_str(&m.options).unwrap_or_default();
    o.sort_by(|a, b| {
        a.sort_order
            .cmp(&b.sort_order)
            .then(a.option_id.cmp(&b.option_id))
    });
    o
}

/// The campaign's questions in display order.
pub async fn of_campaign<C: ConnectionTrait>(
    db: &C,
    campaign_id: &str,
) -> Result<Vec<cq::Model>, AppError> {
    Ok(cq::Entity::find()
        .filter(cq::Column::CampaignId.eq(campaign_id.to_owned()))
        .order_by_asc(cq::Column::SortOrder)
        .order_by_asc(cq::Column::Id)
        .all(db)
        .await?)
}

pub(super) async fn question_of<C: ConnectionTrait>(
    db: &C,
    id: &str,
) -> Result<cq::Model, AppError> {
    cq::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("custom question"))
}

/// Loads a question of a campaign the actor may change.
pub(super) async fn for_edit<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    campaign_id: Option<&str>,
    id: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<cq::Model, AppError> {
    let q = question_of(db, id).await?;
    if campaign_id.is_some_and(|c| c != q.campaign_id) {
        return Err(AppError::not_found("custom question"));
    }
    for_change(db, actor, &q.campaign_id, Scope::Targeting, now).await?;
    Ok(q)
}

pub(super) async fn audit_q<C: ConnectionTrait>(
    db: &C,
    now: chrono::DateTime<chrono::Utc>,
    actor: &Principal,
    action: &str,
    q: &cq::Model,
) -> Result<(), AppError> {
    actor
        .audit(
            db,
            now,
            action,
            (SUBJECT, &q.campaign_id),
            serde_json::json!({"customQuestionId": q.id}),
        )
        .await
}
