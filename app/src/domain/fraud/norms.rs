//! How long a campaign goal's paid conversions usually take from click to conversion (the
//! median of the latest 200 with their timing), for the FAST_CONVERSION signal.
//!
//! Cached per process by (campaign, goal) for [`TTL`] of the domain clock, then read again
//! with one indexed query. Nothing announces a new median: it is a statistic that moves
//! slowly, so another process's view of it is at most [`TTL`] old, which is the bound.
//! Bounded by [`MAX_ENTRIES`] (the map starts over past it).

use std::collections::HashMap;
use std::sync::RwLock;

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use super::signals::{NORM_MIN_SAMPLES, Norm};
use crate::error::AppError;
use crate::model::campaign::conversions::Settlement;
use entity::conversion;

/// How long a median is used before it is read again.
pub const TTL: Duration = Duration::minutes(10);
const MAX_ENTRIES: usize = 10_000;
const SAMPLE: u64 = 200;

/// The per-process cache of goal norms.
#[derive(Default)]
pub struct Norms {
    entries: RwLock<HashMap<(String, String), (DateTime<Utc>, Option<Norm>)>>,
}

impl Norms {
    /// The goal's norm (`None` until it has enough paid conversions with their timing).
    pub async fn get<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
        campaign_id: &str,
        goal_id: &str,
    ) -> Result<Option<Norm>, AppError> {
        let key = (campaign_id.to_owned(), goal_id.to_owned());
        if let Ok(map) = self.entries.read()
            && let Some((at, norm)) = map.get(&key)
            && now - *at < TTL
        {
            return Ok(*norm);
        }
        let mut seconds: Vec<i64> = conversion::Entity::find()
            .select_only()
            .column(conversion::Column::SecondsToConvert)
            .filter(conversion::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(conversion::Column::Settlement.eq(Settlement::Approved.as_str()))
            .filter(conversion::Column::GoalId.eq(goal_id.to_owned()))
            .filter(conversion::Column::SecondsToConvert.is_not_null())
            .order_by_desc(conversion::Column::CreatedAt)
            .limit(SAMPLE)
            .into_tuple::<Option<i64>>()
            .all(db)
            .await?
            .into_iter()
            .flatten()
            .collect();
        let norm = (seconds.len() >= NORM_MIN_SAMPLES).then(|| {
            seconds.sort_unstable();
            Norm {
                median_seconds: seconds[seconds.len() / 2],
                samples: seconds.len(),
            }
        });
        if let Ok(mut map) = self.entries.write() {
            if map.len() >= MAX_ENTRIES {
                map.clear();
            }
            map.insert(key, (now, norm));
        }
        Ok(norm)
    }
}
