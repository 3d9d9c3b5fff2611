//! Live inventory as stored: the offer campaigns that can deliver (status LIVE, with money
//! left in the reserve for their cheapest goal). The in-memory snapshot (`snapshot.rs`) is
//! built from it; launches read one campaign from it to check money exactly.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use super::{config_of, parse_config};
use crate::domain::billing::ledger::Kind;
use crate::error::AppError;
use crate::model::campaign::{CampaignConfig, CampaignStatus};
use crate::model::money::Micros;
use entity::{ledger_account, offer_campaign, offer_campaign_revision};

/// A live campaign with its delivering (approved) configuration and remaining reserve.
#[derive(Clone)]
pub struct LiveOffer {
    pub campaign: offer_campaign::Model,
    pub config: CampaignConfig,
    pub reserved_micros: Micros,
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

/// Only `campaign_id`, when it can deliver (single-offer reads, impressions, launches).
pub async fn live_offer<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    campaign_id: &str,
) -> Result<Vec<LiveOffer>, AppError> {
    let ids = [campaign_id.to_owned()];
    let reserves = reserves(db, &ids).await?;
    let mut out = Vec::new();
    for (campaign, config) in live_rows(db, &ids).await? {
        if !config.schedule.delivers_at(now) {
            continue;
        }
        let reserved_micros = reserve_of(&reserves, &campaign.advertiser_id, &campaign.id);
        if !can_pay(&config, reserved_micros) {
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

/// Whether a reserve still pays the campaign's cheapest goal.
pub fn can_pay(config: &CampaignConfig, reserved_micros: Micros) -> bool {
    let cheapest = config
        .goals
        .iter()
        .map(|g| g.payout_micros)
        .min()
        .unwrap_or(Micros(i64::MAX));
    reserved_micros >= cheapest
}

/// What says whether a stored campaign changed since it was read: every update of a
/// campaign row moves `updated_at`, and a new or approved revision moves the revision
/// numbers. A reload compares these and reads whole rows only for campaigns that moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowMark {
    pub revision: i64,
    pub live_revision: Option<i64>,
    pub updated_at: DateTime<Utc>,
}

impl RowMark {
    pub fn of(m: &offer_campaign::Model) -> Self {
        RowMark {
            revision: m.revision,
            live_revision: m.live_revision,
            updated_at: m.updated_at,
        }
    }
}

/// A LIVE campaign as the narrow read sees it.
pub struct Marked {
    pub id: String,
    pub advertiser_id: String,
    pub mark: RowMark,
}

/// The ids and marks of every LIVE campaign, newest approval first: one narrow read,
/// without configurations.
pub async fn live_marks<C: ConnectionTrait>(db: &C) -> Result<Vec<Marked>, AppError> {
    let rows: Vec<(String, String, i64, Option<i64>, DateTime<Utc>)> =
        offer_campaign::Entity::find()
            .select_only()
            .column(offer_campaign::Column::Id)
            .column(offer_campaign::Column::AdvertiserId)
            .column(offer_campaign::Column::Revision)
            .column(offer_campaign::Column::LiveRevision)
            .column(offer_campaign::Column::UpdatedAt)
            .filter(offer_campaign::Column::Status.eq(CampaignStatus::Live.as_str()))
            .order_by_desc(offer_campaign::Column::ApprovedAt)
            .into_tuple()
            .all(db)
            .await?;
    Ok(rows
        .into_iter()
        .map(
            |(id, advertiser_id, revision, live_revision, updated_at)| Marked {
                id,
                advertiser_id,
                mark: RowMark {
                    revision,
                    live_revision,
                    updated_at,
                },
            },
        )
        .collect())
}

/// The LIVE campaigns among `ids` with their delivering configurations, whatever their
/// reserve and schedule, read 500 at a time.
pub async fn live_rows<C: ConnectionTrait>(
    db: &C,
    ids: &[String],
) -> Result<Vec<(offer_campaign::Model, CampaignConfig)>, AppError> {
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(500) {
        let rows = offer_campaign::Entity::find()
            .filter(offer_campaign::Column::Status.eq(CampaignStatus::Live.as_str()))
            .filter(offer_campaign::Column::Id.is_in(chunk.to_vec()))
            .all(db)
            .await?;
        out.extend(with_live_configs(db, rows).await?);
    }
    Ok(out)
}

/// Each campaign with the configuration that delivers: its own, or for a campaign whose
/// newest revision awaits review, the approved revision's (one batched read, not one per
/// campaign).
async fn with_live_configs<C: ConnectionTrait>(
    db: &C,
    rows: Vec<offer_campaign::Model>,
) -> Result<Vec<(offer_campaign::Model, CampaignConfig)>, AppError> {
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
    let mut out = Vec::with_capacity(rows.len());
    for campaign in rows {
        let config = match live_configs.get(&campaign.id) {
            Some(text) => parse_config(text)?,
            None if pending_live.contains_key(&campaign.id) => return Err(AppError::internal()),
            None => config_of(&campaign)?,
        };
        out.push((campaign, config));
    }
    Ok(out)
}

/// Reserves by (advertiser, campaign).
pub type Reserves = HashMap<(String, String), i64>;

/// A campaign's reserve (0 when it has none).
pub fn reserve_of(reserves: &Reserves, advertiser_id: &str, campaign_id: &str) -> Micros {
    Micros(
        reserves
            .get(&(advertiser_id.to_owned(), campaign_id.to_owned()))
            .copied()
            .unwrap_or(0),
    )
}

/// The reserve of each campaign in `ids`, read 500 at a time.
pub async fn reserves<C: ConnectionTrait>(db: &C, ids: &[String]) -> Result<Reserves, AppError> {
    let mut reserves = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(500) {
        for a in ledger_account::Entity::find()
            .filter(ledger_account::Column::Kind.eq(Kind::Reserved.as_str()))
            .filter(ledger_account::Column::ReferenceId.is_in(chunk.to_vec()))
            .all(db)
            .await?
        {
            reserves.insert((a.owner_account_id, a.reference_id), a.balance_micros);
        }
    }
    Ok(reserves)
}
