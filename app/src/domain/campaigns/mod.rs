//! Offer campaigns (advertiser side): configuration and revisions, the lifecycle with its
//! budget reservations, readiness, provider capabilities, tracking credentials, development
//! creatives and reports. The lifecycle is documented in docs/decisions.md.

pub mod assets;
pub mod caps;
pub mod debt;
pub mod fraud_rules;
pub mod inventory;
pub mod lifecycle;
pub mod providers;
pub mod readiness;
pub mod report;
pub mod review_diff;
pub mod snapshot;
pub mod store;
pub mod tracking;

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::domain::Principal;
use crate::domain::billing::ledger;
use crate::error::AppError;
use crate::model::campaign::{Campaign, CampaignConfig, CampaignStatus};
use crate::model::money::Micros;
use crate::model::money::format_micros;
use entity::{offer_campaign, offer_campaign_revision};

/// How long after a launch a conversion is attributed to it, in hours (30 days): the offer
/// shows it as its completion window and settlement attributes within it.
pub const ATTRIBUTION_WINDOW_HOURS: i64 = 720;

/// The campaign's lifecycle status.

/// The newest revision's configuration.
pub fn config_of(m: &offer_campaign::Model) -> Result<CampaignConfig, AppError> {
    parse_config(&m.config)
}

pub(crate) fn parse_config(raw: &str) -> Result<CampaignConfig, AppError> {
    serde_json::from_str(raw).map_err(|e| {
        tracing::error!(error = %e, "stored campaign configuration does not parse");
        AppError::internal()
    })
}

/// The configuration that delivers: the live revision's, or the newest before approval.
pub async fn live_config<C: ConnectionTrait>(
    db: &C,
    m: &offer_campaign::Model,
) -> Result<CampaignConfig, AppError> {
    let Some(live) = m.live_revision.filter(|r| *r != m.revision) else {
        return config_of(m);
    };
    let rev = offer_campaign_revision::Entity::find()
        .filter(offer_campaign_revision::Column::CampaignId.eq(m.id.clone()))
        .filter(offer_campaign_revision::Column::Revision.eq(live))
        .one(db)
        .await?
        .ok_or_else(AppError::internal)?;
    parse_config(&rev.config)
}

/// A campaign the actor may act on (its advertiser, or an administrator); anything else is
/// "not found" so another advertiser's campaigns do not reveal their existence.
pub async fn owned_campaign<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    id: &str,
) -> Result<offer_campaign::Model, AppError> {
    actor.require_approved_advertiser()?;
    let m = offer_campaign::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("campaign"))?;
    actor.require_owner(&m.advertiser_id, "campaign")?;
    Ok(m)
}

/// [`owned_campaign`] for a write: the row stays locked until `txn` ends (PostgreSQL; SQLite
/// writers are serialised anyway), so an approval and an edit of one campaign, or two
/// transitions, run one after the other instead of each acting on what it read before the
/// other wrote.
pub async fn locked_campaign(
    txn: &sea_orm::DatabaseTransaction,
    actor: &Principal,
    id: &str,
) -> Result<offer_campaign::Model, AppError> {
    actor.require_approved_advertiser()?;
    let m = offer_campaign::Entity::find_by_id(id.to_owned())
        .lock_exclusive()
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("campaign"))?;
    actor.require_owner(&m.advertiser_id, "campaign")?;
    Ok(m)
}

/// Money spent on the campaign so far (conversions paid from its reserve).
pub async fn spent_for<C: ConnectionTrait>(
    db: &C,
    m: &offer_campaign::Model,
) -> Result<i64, AppError> {
    ledger::account_balance(db, &m.advertiser_id, ledger::Kind::Spent, &m.id).await
}

/// The advertiser's view of a campaign.
pub async fn view<C: ConnectionTrait>(
    db: &C,
    m: &offer_campaign::Model,
) -> Result<Campaign, AppError> {
    let config = config_of(m)?;
    let reserved = ledger::reserved_for(db, &m.advertiser_id, &m.id).await?;
    let spent = spent_for(db, m).await?;
    Ok(Campaign {
        campaign_id: m.id.clone(),
        advertiser_id: m.advertiser_id.clone(),
        status: m.status,
        budget: format_micros(config.budget_micros),
        config,
        reserved_micros: Micros(reserved),
        reserved: format_micros(reserved),
        spent_micros: Micros(spent),
        spent: format_micros(spent),
        revision: m.revision,
        live_revision: m.live_revision,
        pending_revision: m.live_revision.is_some_and(|l| l < m.revision),
        rejection_reason: m.rejection_reason.clone(),
        created_at: m.created_at,
        updated_at: m.updated_at,
        submitted_at: m.submitted_at,
        approved_at: m.approved_at,
        ended_at: m.ended_at,
    })
}

/// A campaign addressed by a public route (web pixel): it must exist, run on the web and
/// not have ended. Anything else is "not found".
pub async fn public_web_campaign(
    ctx: &crate::domain::Ctx,
    id: &str,
) -> Result<offer_campaign::Model, AppError> {
    use crate::model::campaign::Platform;
    let m = offer_campaign::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .filter(|m| !matches!(m.status, CampaignStatus::Ended | CampaignStatus::Archived))
        .ok_or_else(|| AppError::not_found("campaign"))?;
    if !config_of(&m)?.platforms.contains(&Platform::Web) {
        return Err(AppError::not_found("campaign"));
    }
    Ok(m)
}
