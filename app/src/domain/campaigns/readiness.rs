//! What stands between a campaign and review (SUBMIT) or delivery (LAUNCH), as reasons.

use sea_orm::ConnectionTrait;

use super::providers::{TrackingKind, check_selectable, kind_of};
use super::{config_of, live_config, owned_campaign, spent_for, tracking};
use crate::domain::billing::ledger;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::campaign::{CampaignReadiness, CampaignStatus, ReadinessBlock, ReadinessReason};
use crate::model::money::format_micros;
use entity::offer_campaign;

fn reason(code: &str, blocks: ReadinessBlock, message: impl Into<String>) -> ReadinessReason {
    ReadinessReason {
        code: code.to_owned(),
        message: message.into(),
        blocks,
    }
}

/// Computes the readiness of a campaign.
pub async fn compute<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    m: &offer_campaign::Model,
) -> Result<CampaignReadiness, AppError> {
    let config = config_of(m)?;
    let status = m.status;
    let now = ctx.now();
    let mut reasons = Vec::new();
    if let Err(e) = check_selectable(ctx, &config.tracking_provider) {
        reasons.push(reason("provider_not_selectable", ReadinessBlock::Submit, e));
    }
    if config.schedule.end_at.is_some_and(|end| end <= now) {
        reasons.push(reason(
            "schedule_ended",
            ReadinessBlock::Submit,
            "the schedule's end date has passed",
        ));
    }
    // Money: what going LIVE would reserve against what is available now.
    if !matches!(
        status,
        CampaignStatus::Live | CampaignStatus::Ended | CampaignStatus::Archived
    ) {
        let needed = (live_config(db, m).await?.budget_micros.get() - spent_for(db, m).await?)
            .max(0)
            - ledger::reserved_for(db, &m.advertiser_id, &m.id).await?;
        let available = ledger::balance(db, &m.advertiser_id)
            .await?
            .available_micros;
        if needed > available.get() {
            reasons.push(reason(
                "insufficient_balance",
                ReadinessBlock::Launch,
                format!(
                    "going live reserves {} USD but only {} USD is available; fund the wallet",
                    format_micros(needed),
                    format_micros(available)
                ),
            ));
        }
    }
    match kind_of(&config.tracking_provider) {
        TrackingKind::Mmp => {
            if !tracking::has_active(db, &m.id, TrackingKind::Mmp).await? {
                reasons.push(reason(
                    "mmp_credential_missing",
                    ReadinessBlock::Launch,
                    "create the measurement-partner campaign token",
                ));
            }
            if m.mmp_verified_revision != Some(m.revision) {
                reasons.push(reason(
                    "mmp_verification_missing",
                    ReadinessBlock::Launch,
                    "an administrator must verify a live test of the current revision",
                ));
            }
        }
        kind => {
            if !tracking::has_active(db, &m.id, kind).await? {
                reasons.push(reason(
                    "tracking_credential_missing",
                    ReadinessBlock::None,
                    "create the campaign's tracking credential before reporting conversions",
                ));
            }
        }
    }
    if config.creatives.is_empty() {
        reasons.push(reason(
            "creatives_missing",
            ReadinessBlock::None,
            "offers with an icon convert better",
        ));
    }
    let submit_blocked = reasons.iter().any(|r| r.blocks == ReadinessBlock::Submit);
    let launch_blocked =
        submit_blocked || reasons.iter().any(|r| r.blocks == ReadinessBlock::Launch);
    Ok(CampaignReadiness {
        campaign_id: m.id.clone(),
        status,
        ready_to_submit: !submit_blocked
            && matches!(status, CampaignStatus::Draft | CampaignStatus::Rejected),
        ready_to_launch: !launch_blocked
            && matches!(
                status,
                CampaignStatus::Draft
                    | CampaignStatus::Rejected
                    | CampaignStatus::InReview
                    | CampaignStatus::Paused
            ),
        reasons,
    })
}

/// `GET campaigns/{id}/readiness`.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<CampaignReadiness, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    compute(ctx, &ctx.db, &m).await
}
