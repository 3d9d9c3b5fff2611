//! Live inventory: the offer campaigns that can deliver now. Shared by the publisher offer
//! gallery and (later) SDK delivery and the static feed, so every surface agrees on what is
//! live: status LIVE, inside its schedule, with money left in its reserve.

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::live_config;
use crate::domain::billing::ledger;
use crate::error::AppError;
use crate::model::campaign::{CampaignConfig, CampaignStatus};
use entity::offer_campaign;

/// A live campaign with its delivering (approved) configuration and remaining reserve.
pub struct LiveOffer {
    pub campaign: offer_campaign::Model,
    pub config: CampaignConfig,
    pub reserved_micros: i64,
}

impl LiveOffer {
    /// The destination host, for domain blacklists.
    pub fn destination_host(&self) -> String {
        url::Url::parse(&self.config.destination_url.replace("{click_id}", "x"))
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

/// Every campaign that can deliver at `now`, newest approval first.
pub async fn live_offers<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
) -> Result<Vec<LiveOffer>, AppError> {
    live(db, now, None).await
}

/// Only `campaign_id`, when it can deliver (single-offer reads, impressions, launches).
pub async fn live_offer<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    campaign_id: &str,
) -> Result<Vec<LiveOffer>, AppError> {
    live(db, now, Some(campaign_id)).await
}

async fn live<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    only: Option<&str>,
) -> Result<Vec<LiveOffer>, AppError> {
    let mut q = offer_campaign::Entity::find()
        .filter(offer_campaign::Column::Status.eq(CampaignStatus::Live.as_str()));
    if let Some(id) = only {
        q = q.filter(offer_campaign::Column::Id.eq(id.to_owned()));
    }
    let rows = q
        .order_by_desc(offer_campaign::Column::ApprovedAt)
        .all(db)
        .await?;
    let mut out = Vec::new();
    for campaign in rows {
        let config = live_config(db, &campaign).await?;
        let started = config.schedule.start_at.is_none_or(|s| s <= now);
        let not_ended = config.schedule.end_at.is_none_or(|e| now < e);
        if !(started && not_ended) {
            continue;
        }
        let reserved_micros =
            ledger::reserved_for(db, &campaign.advertiser_id, &campaign.id).await?;
        let cheapest = config
            .goals
            .iter()
            .map(|g| g.payout_micros)
            .min()
            .unwrap_or(i64::MAX);
        if reserved_micros < cheapest {
            continue;
        }
        out.push(LiveOffer {
            campaign,
            config,
            reserved_micros,
        });
    }
    Ok(out)
}
