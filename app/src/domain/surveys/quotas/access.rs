//! How every targeting write reaches its rows: the status policy (`for_change`), the lookup
//! of a campaign's quota and the audit record each change leaves. Quotas, qualifications and
//! custom questions all go through it, so the policy is enforced in exactly one place.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait,
    IntoActiveModel, QueryFilter, Set,
};

use crate::domain::changes::Change;
use crate::domain::surveys::campaigns::{SUBJECT, owned};
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::survey::campaign::SurveyStatus;
use entity::{survey_campaign as survey, survey_quota as quota};

/// What a change may touch given the campaign's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Who qualifies and what is asked (DRAFT, PENDINGAPPROVAL).
    Targeting,
    /// Only quota sizes (LIVE, PAUSED too).
    QuotaSize,
}

/// Loads an owned campaign for a change of `scope`; a targeting change of a pending
/// campaign withdraws it to DRAFT and moves its revision on.
pub async fn for_change<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    campaign_id: &str,
    scope: Scope,
    now: DateTime<Utc>,
) -> Result<survey::Model, AppError> {
    let m = owned(db, actor, campaign_id).await?;
    let status = m.status;
    let allowed = match status {
        SurveyStatus::Draft | SurveyStatus::PendingApproval => true,
        SurveyStatus::Live | SurveyStatus::Paused => scope == Scope::QuotaSize,
        SurveyStatus::Closed => false,
    };
    if !allowed {
        return Err(AppError::conflict(format!(
            "the targeting of a {} survey campaign cannot change (only quota sizes while LIVE or PAUSED; clone it for a new study)",
            status.as_str()
        ))
        .with_code("campaign_not_editable"));
    }
    if matches!(status, SurveyStatus::Draft | SurveyStatus::PendingApproval) {
        let mut a = m.clone().into_active_model();
        a.revision = Set(m.revision + 1);
        a.status = Set(SurveyStatus::Draft);
        a.updated_at = Set(now);
        return Ok(a.update(db).await?);
    }
    Ok(m)
}

pub(super) async fn quota_of<C: ConnectionTrait>(
    db: &C,
    campaign_id: &str,
    quota_id: &str,
) -> Result<quota::Model, AppError> {
    quota::Entity::find_by_id(quota_id.to_owned())
        .filter(quota::Column::CampaignId.eq(campaign_id.to_owned()))
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("quota"))
}

/// Who changed which campaign's targeting, and when (the time the rows were written with).
pub(super) struct Edit<'a> {
    actor: &'a Principal,
    campaign_id: &'a str,
    now: DateTime<Utc>,
}

impl<'a> Edit<'a> {
    pub(super) fn new(actor: &'a Principal, campaign_id: &'a str, now: DateTime<Utc>) -> Self {
        Edit {
            actor,
            campaign_id,
            now,
        }
    }

    /// Records the change (`action`, `detail`) in the audit log and commits it with the
    /// rows, announcing it so every process's survey inventory is rebuilt.
    pub(super) async fn commit(
        self,
        ctx: &Ctx,
        txn: DatabaseTransaction,
        action: &str,
        detail: serde_json::Value,
    ) -> Result<(), AppError> {
        let subject = (SUBJECT, self.campaign_id);
        self.actor
            .audit(&txn, self.now, action, subject, detail)
            .await?;
        ctx.commit_and_announce(txn, [Change::Surveys]).await
    }
}
