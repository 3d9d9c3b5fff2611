//! Attribution of a reported conversion: its launch (the click), the revision the user was
//! shown, the goal, the placement and slot, the payout and the user's reward. Read before
//! the campaign lock, batched by the settler through [`Lookups`].

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use super::super::reported::{Reported, Settlement};
use crate::domain::billing::share::publisher_share;
use crate::domain::campaigns::ATTRIBUTION_WINDOW_HOURS;
use crate::domain::campaigns::live_config;
use crate::domain::publisher::slots;
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::RewardPreview;
use crate::model::publisher::rules::format_minor;
use entity::{ad_slot, offer_campaign, offer_campaign_revision, placement, sdk_launch};

/// What the conversion is attributed to.
pub(in crate::domain) struct Attribution {
    pub(super) launch: sdk_launch::Model,
    pub(super) placement: placement::Model,
    pub(super) slot: Option<ad_slot::Model>,
    pub(super) payout_micros: Micros,
    pub(super) pending_minutes: i64,
    pub(super) reward: RewardPreview,
    /// The campaign's first goal, when the reported goal is a later one (the funnel
    /// signal asks whether the user reached it).
    pub(super) first_goal: Option<String>,
}

pub(in crate::domain) async fn attribute<C: ConnectionTrait>(
    txn: &C,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    seen: &mut Lookups,
) -> Result<Result<Attribution, Settlement>, AppError> {
    let launch = match seen.launches.get(&ev.click_id) {
        Some(l) => Some(l.clone()),
        None => {
            sdk_launch::Entity::find()
                .filter(sdk_launch::Column::ClickId.eq(ev.click_id.clone()))
                .filter(sdk_launch::Column::CampaignId.eq(campaign.id.clone()))
                .one(txn)
                .await?
        }
    };
    let Some(launch) = launch else {
        return Ok(Err(Settlement::UnmatchedClick));
    };
    let window = chrono::Duration::hours(ATTRIBUTION_WINDOW_HOURS);
    if ev.occurred_at > launch.created_at + window {
        return Ok(Err(Settlement::OutOfWindow));
    }
    let config = match seen.configs.get(&launch.campaign_revision) {
        Some(c) => c,
        None => {
            let c = launched_config(txn, campaign, launch.campaign_revision).await?;
            seen.configs.entry(launch.campaign_revision).or_insert(c)
        }
    };
    let Some(goal) = config
        .goals
        .iter()
        .find(|g| g.external_goal_id == ev.goal_id)
    else {
        return Ok(Err(Settlement::UnknownGoal));
    };
    let (payout_micros, pending_minutes) = (goal.payout_micros, goal.pending_minutes);
    let first_goal = config
        .goals
        .first()
        .filter(|g| g.external_goal_id != ev.goal_id)
        .map(|g| g.external_goal_id.clone());
    let placement = match seen.placements.get(&launch.placement_id) {
        Some(p) => p.clone(),
        None => {
            let p = placement::Entity::find_by_id(launch.placement_id.clone())
                .one(txn)
                .await?
                .ok_or_else(AppError::internal)?;
            seen.placements.insert(p.id.clone(), p.clone());
            p
        }
    };
    let slot = match seen.slots.get(&launch.ad_slot_id) {
        Some(s) => s.clone(),
        None => {
            let s = ad_slot::Entity::find_by_id(launch.ad_slot_id.clone())
                .one(txn)
                .await?;
            seen.slots.insert(launch.ad_slot_id.clone(), s.clone());
            s
        }
    };
    let earnings = publisher_share(payout_micros);
    let reward = match &slot {
        Some(s) => slots::preview(&slots::currency_of(s), earnings)?,
        None => RewardPreview {
            usd_micros: earnings,
            minor_units: 0,
            currency: String::new(),
            decimals: 0,
            display: format_minor(0, 0),
            meets_minimum_payout: false,
        },
    };
    Ok(Ok(Attribution {
        launch,
        placement,
        slot,
        payout_micros,
        pending_minutes,
        reward,
        first_goal,
    }))
}

/// Rows a batch of settlements would read one by one or again for every report (launches,
/// a revision's configuration, placements, slots), read once per batch. Only rows that
/// never change once written, or whose reading a moment earlier means nothing.
#[derive(Default)]
pub(in crate::domain) struct Lookups {
    launches: std::collections::HashMap<String, sdk_launch::Model>,
    configs: std::collections::HashMap<i64, crate::model::campaign::CampaignConfig>,
    placements: std::collections::HashMap<String, placement::Model>,
    slots: std::collections::HashMap<String, Option<ad_slot::Model>>,
}

impl Lookups {
    /// The launches read so far (a batch names them to its fraud screen).
    pub(in crate::domain) fn launches(&self) -> impl Iterator<Item = &sdk_launch::Model> {
        self.launches.values()
    }

    /// Reads the campaign's launches behind these click ids in one query.
    pub(in crate::domain) async fn with_launches<C: ConnectionTrait>(
        db: &C,
        campaign_id: &str,
        click_ids: impl Iterator<Item = String>,
    ) -> Result<Self, AppError> {
        let launches = sdk_launch::Entity::find()
            .filter(sdk_launch::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(sdk_launch::Column::ClickId.is_in(click_ids))
            .all(db)
            .await?
            .into_iter()
            .map(|l| (l.click_id.clone(), l))
            .collect();
        Ok(Self {
            launches,
            ..Self::default()
        })
    }
}

/// The configuration the user was shown at launch (its revision), so the payout and reward
/// are the ones the offer promised.
async fn launched_config<C: ConnectionTrait>(
    txn: &C,
    campaign: &offer_campaign::Model,
    revision: i64,
) -> Result<crate::model::campaign::CampaignConfig, AppError> {
    let rev = offer_campaign_revision::Entity::find()
        .filter(offer_campaign_revision::Column::CampaignId.eq(campaign.id.clone()))
        .filter(offer_campaign_revision::Column::Revision.eq(revision))
        .one(txn)
        .await?;
    match rev {
        Some(r) => crate::domain::campaigns::parse_config(&r.config),
        None => live_config(txn, campaign).await,
    }
}
