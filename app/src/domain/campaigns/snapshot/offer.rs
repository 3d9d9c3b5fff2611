//! One live offer as a snapshot holds it, and the delivery counters that rank it: the
//! grouped read that takes them and the scores computed from them. They change together
//! whenever ranking does, apart from how snapshots are stored and swapped.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::domain::campaigns::inventory::LiveOffer;
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::OfferSort;
use entity::{conversion, sdk_launch};

/// Ranking statistics look at this many days of delivery.
const STATS_DAYS: i64 = 30;

/// Delivery counters of one campaign, as of the snapshot.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    /// Launches in the last 30 days.
    pub clicks: i64,
    /// Approved conversions and publisher earnings in the last 30 days.
    pub conversions: i64,
    pub earnings_micros: Micros,
    /// Approved conversions ever, and on the snapshot's UTC day (for listing caps).
    pub approved_total: i64,
    pub approved_today: i64,
    pub spent_today_micros: Micros,
}

/// One live offer with what delivery computes from it once per snapshot.
pub struct Offer {
    /// The campaign and its parsed configuration, shared by every snapshot until the
    /// campaign's row changes (a recount or reload does not copy 10,000 campaigns).
    pub live: Arc<LiveOffer>,
    /// The reserve as of this snapshot's build (`live.reserved_micros` is the reserve
    /// when the campaign was last read whole).
    pub reserved_micros: Micros,
    /// Destination host, for domain blacklists.
    pub host: String,
    /// Sum of the goals' payouts.
    pub total_payout_micros: Micros,
    pub stats: Stats,
}

impl std::ops::Deref for Offer {
    type Target = LiveOffer;
    fn deref(&self) -> &LiveOffer {
        &self.live
    }
}

impl Offer {
    /// Whether a listing should treat a cap as used up (exact checks happen at launch and
    /// settlement). Day counters only count on the snapshot's own day.
    pub fn caps_reached(&self, snapshot_day: NaiveDate, now: DateTime<Utc>) -> bool {
        let caps = &self.live.config.caps;
        let same_day = now.date_naive() == snapshot_day;
        let (today, spent) = if same_day {
            (self.stats.approved_today, self.stats.spent_today_micros)
        } else {
            (0, Micros::ZERO)
        };
        caps.total_conversions
            .is_some_and(|c| self.stats.approved_total >= c)
            || caps.daily_conversions.is_some_and(|c| today >= c)
            || caps
                .daily_budget_micros
                .is_some_and(|c| spent.get() + 1 > c.get())
    }

    /// Whether the schedule delivers at `now`.
    pub fn in_schedule(&self, now: DateTime<Utc>) -> bool {
        self.live.config.schedule.delivers_at(now)
    }
}

/// CONVERSION_RATE, EPC and ECPM scores in parts per million so comparisons stay integral;
/// offers without launches rank after those with them (`None` sorts first in Rust, so the
/// comparison above is reversed).
pub(super) fn score(o: &Offer, by: OfferSort) -> Option<i128> {
    let c = i128::from(o.stats.clicks);
    if c == 0 {
        return None;
    }
    Some(match by {
        OfferSort::ConversionRate => i128::from(o.stats.conversions) * 1_000_000 / c,
        _ => i128::from(o.stats.earnings_micros) * 1_000 / c,
    })
}

/// Delivery counters of every campaign: four grouped reads, whatever the inventory size.
pub(super) async fn stats<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
) -> Result<HashMap<String, Stats>, AppError> {
    let since = now - chrono::Duration::days(STATS_DAYS);
    let day_start = now
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map(|d| d.and_utc())
        .unwrap_or(now);
    let mut out: HashMap<String, Stats> = HashMap::new();
    let clicks: Vec<(String, i64)> = sdk_launch::Entity::find()
        .select_only()
        .column(sdk_launch::Column::CampaignId)
        .column_as(Expr::cust("COUNT(*)"), "n")
        .filter(sdk_launch::Column::CreatedAt.gte(since))
        .group_by(sdk_launch::Column::CampaignId)
        .into_tuple()
        .all(db)
        .await?;
    for (id, n) in clicks {
        out.entry(id).or_default().clicks = n;
    }
    let approved = |from: Option<DateTime<Utc>>, sum: &'static str| {
        let mut q = conversion::Entity::find()
            .select_only()
            .column(conversion::Column::CampaignId)
            .column_as(Expr::cust("COUNT(*)"), "n")
            .column_as(Expr::cust(sum), "s")
            .filter(conversion::Column::Settlement.eq("APPROVED"));
        if let Some(t) = from {
            q = q.filter(conversion::Column::CreatedAt.gte(t));
        }
        q.group_by(conversion::Column::CampaignId)
            .into_tuple::<(String, i64, i64)>()
    };
    let earnings = "CAST(COALESCE(SUM(publisher_earnings_micros), 0) AS BIGINT)";
    let payouts = "CAST(COALESCE(SUM(payout_micros), 0) AS BIGINT)";
    for (id, n, s) in approved(Some(since), earnings).all(db).await? {
        let e = out.entry(id).or_default();
        e.conversions = n;
        e.earnings_micros = Micros(s);
    }
    for (id, n, _) in approved(None, payouts).all(db).await? {
        out.entry(id).or_default().approved_total = n;
    }
    for (id, n, s) in approved(Some(day_start), payouts).all(db).await? {
        let e = out.entry(id).or_default();
        e.approved_today = n;
        e.spent_today_micros = Micros(s);
    }
    Ok(out)
}
