//! Live inventory as stored: the offer campaigns that can deliver (status LIVE, with money
//! left in the reserve for their cheapest goal). The in-memory snapshot (`snapshot.rs`) is
//! built from it; launches read one campaign from it to check money exactly.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::{config_of, parse_config};
use crate::domain::billing::ledger::Kind;
use crate::error::AppError;
use crate::model::campaign::{CampaignConfig, CampaignStatus};
use entity::{ledger_account, offer_campaign, offer_campaign_revision};

/// A live campaign with its delivering (approved) configuration and remaining reserve.
#[derive(Clone)]
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

/// Every LIVE campaign with money for its cheapest goal, whatever its schedule (the
/// in-memory snapshot checks schedules against each request's clock).
pub async fn live_any_schedule<C: ConnectionTrait>(db: &C) -> Result<Vec<LiveOffer>, AppError> {
    live(db, None, None).await
}

/// Only `campaign_id`, when it can deliver (single-offer reads, impressions, launches).
pub async fn live_offer<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    campaign_id: &str,
) -> Result<Vec<LiveOffer>, AppError> {
    live(db, Some(now), Some(campaign_id)).await
}

async fn live<C: ConnectionTrait>(
    db: &C,
    now: Option<DateTime<Utc>>,
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
    // Two batched reads, not two per campaign: the approved revisions of campaigns whose
    // newest revision awaits review, and every reserve.
    let mut pending_live: HashMap<String, i64> = HashMap::new();
    for c in &rows {
        if let Some(live) = c.live_revision.filter(|r| *r != c.revision) {
            pending_live.insert(c.id.clone(), live);
        }
    }
    let mut live_configs: HashMap<String, String> = HashMap::new();
    let ids: Vec<String> = pending_live.keys().cloned().collect();
    for chunk in ids.chunks(500) {
        let revisions: Vec<i64> = chunk
            .iter()
            .filter_map(|id| pending_live.get(id).copied())
            .collect();
        for r in offer_campaign_revision::Entity::find()
            .filter(offer_campaign_revision::Column::CampaignId.is_in(chunk.to_vec()))
            .filter(offer_campaign_revision::Column::Revision.is_in(revisions))
            .all(db)
            .await?
        {
            if pending_live.get(&r.campaign_id) == Some(&r.revision) {
                live_configs.insert(r.campaign_id, r.config);
            }
        }
    }
    let all_ids: Vec<String> = rows.iter().map(|c| c.id.clone()).collect();
    let mut reserves: HashMap<(String, String), i64> = HashMap::new();
    for chunk in all_ids.chunks(500) {
        for a in ledger_account::Entity::find()
            .filter(ledger_account::Column::Kind.eq(Kind::Reserved.as_str()))
            .filter(ledger_account::Column::ReferenceId.is_in(chunk.to_vec()))
            .all(db)
            .await?
        {
            reserves.insert((a.owner_account_id, a.reference_id), a.balance_micros);
        }
    }
    let mut out = Vec::new();
    for campaign in rows {
        let config = match live_configs.get(&campaign.id) {
            Some(text) => parse_config(text)?,
            None if pending_live.contains_key(&campaign.id) => return Err(AppError::internal()),
            None => config_of(&campaign)?,
        };
        if let Some(now) = now {
            let started = config.schedule.start_at.is_none_or(|s| s <= now);
            let not_ended = config.schedule.end_at.is_none_or(|e| now < e);
            if !(started && not_ended) {
                continue;
            }
        }
        let reserved_micros = reserves
            .get(&(campaign.advertiser_id.clone(), campaign.id.clone()))
            .copied()
            .unwrap_or(0);
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
