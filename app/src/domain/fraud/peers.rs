//! A placement's conversion and reversal rates on a campaign against the campaign's other
//! placements over the last [`WINDOW_DAYS`] days (the CONVERSION_RATE and REVERSAL_RATE
//! signals).
//!
//! Read per campaign with two grouped, indexed queries and cached per process for [`TTL`]
//! of the domain clock. Nothing announces a change: rates over a week move slowly, so a
//! process's view is at most [`TTL`] old, which is the bound. Bounded by [`MAX_ENTRIES`].

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use super::signals::Rates;
use crate::error::AppError;
use crate::model::campaign::conversions::Settlement;
use entity::{conversion, sdk_launch};

pub const WINDOW_DAYS: i64 = 7;
pub const TTL: Duration = Duration::minutes(10);
const MAX_ENTRIES: usize = 5_000;

/// Launches, conversions and reversals of one placement.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    launches: i64,
    conversions: i64,
    reversed: i64,
}

/// One campaign's counts by placement, and its totals.
#[derive(Debug, Default)]
struct CampaignCounts {
    by_placement: HashMap<String, Counts>,
    total: Counts,
}

/// The per-process cache of campaign counts.
#[derive(Default)]
pub struct Peers {
    entries: RwLock<HashMap<String, (DateTime<Utc>, Arc<CampaignCounts>)>>,
}

impl Peers {
    /// The placement's rates on the campaign against its peers'.
    pub async fn rates<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
        campaign_id: &str,
        placement_id: &str,
    ) -> Result<Rates, AppError> {
        let counts = self.counts(db, now, campaign_id).await?;
        let own = counts
            .by_placement
            .get(placement_id)
            .copied()
            .unwrap_or_default();
        Ok(Rates {
            launches: own.launches,
            conversions: own.conversions,
            reversed: own.reversed,
            peer_launches: counts.total.launches - own.launches,
            peer_conversions: counts.total.conversions - own.conversions,
            peer_reversed: counts.total.reversed - own.reversed,
        })
    }

    async fn counts<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
        campaign_id: &str,
    ) -> Result<Arc<CampaignCounts>, AppError> {
        if let Ok(map) = self.entries.read()
            && let Some((at, c)) = map.get(campaign_id)
            && now - *at < TTL
        {
            return Ok(c.clone());
        }
        let since = now - Duration::days(WINDOW_DAYS);
        let launches: Vec<(String, i64)> = sdk_launch::Entity::find()
            .select_only()
            .column(sdk_launch::Column::PlacementId)
            .column_as(Expr::cust("COUNT(*)"), "n")
            .filter(sdk_launch::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(sdk_launch::Column::CreatedAt.gte(since))
            .group_by(sdk_launch::Column::PlacementId)
            .into_tuple()
            .all(db)
            .await?;
        let settled: Vec<(Option<String>, Settlement, i64)> = conversion::Entity::find()
            .select_only()
            .column(conversion::Column::PlacementId)
            .column(conversion::Column::Settlement)
            .column_as(Expr::cust("COUNT(*)"), "n")
            .filter(conversion::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(conversion::Column::CreatedAt.gte(since))
            .group_by(conversion::Column::PlacementId)
            .group_by(conversion::Column::Settlement)
            .into_tuple()
            .all(db)
            .await?;
        let mut c = CampaignCounts::default();
        for (placement, n) in launches {
            c.by_placement.entry(placement).or_default().launches += n;
            c.total.launches += n;
        }
        for (placement, settlement, n) in settled {
            let Some(placement) = placement else { continue };
            let (converted, reversed) = match settlement {
                Settlement::Reversed => (true, true),
                Settlement::Approved | Settlement::Pending | Settlement::Held => (true, false),
                _ => (false, false),
            };
            let e = c.by_placement.entry(placement).or_default();
            if converted {
                e.conversions += n;
                c.total.conversions += n;
            }
            if reversed {
                e.reversed += n;
                c.total.reversed += n;
            }
        }
        let c = Arc::new(c);
        if let Ok(mut map) = self.entries.write() {
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
            map.insert(campaign_id.to_owned(), (now, c.clone()));
        }
        Ok(c)
    }
}
