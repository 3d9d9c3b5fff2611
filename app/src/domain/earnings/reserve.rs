//! The rolling reserve of new publishers (issue 51): a share of each release of a new
//! publisher's earnings is held [`DEFAULT_RESERVE_DAYS`] more days in a PUBLISHER_RESERVE
//! account of its due day, then made available. So a reversal after a payout (which takes
//! the money from the available balance, possibly below zero, netted from the next payout)
//! is covered by the publisher's own money waiting in the reserve rather than by the
//! platform. A publisher is new for [`NEW_PUBLISHER_DAYS`] days after its account was
//! created; an administrator may set any publisher's share and days (0 % exempts it).

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use crate::domain::billing::ledger::{self, Kind};
use crate::domain::{Ctx, db};
use crate::error::AppError;
use entity::{account, ledger_account, publisher_earning_terms as terms};

/// Days after its account was created during which a publisher's earnings are reserved.
pub const NEW_PUBLISHER_DAYS: i64 = 90;
/// The share of a release held in the reserve (percent) unless the terms say otherwise.
pub const DEFAULT_RESERVE_PERCENT: i64 = 10;
/// Days the reserve is held after the release unless the terms say otherwise.
pub const DEFAULT_RESERVE_DAYS: i64 = 60;
/// The largest share an administrator may set.
pub const MAX_RESERVE_PERCENT: i64 = 50;

/// A reserve in force: the share of each release and how long it is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reserve {
    pub percent: i64,
    pub days: i64,
}

impl Reserve {
    /// The reserved part of a release of `amount` (rounded down: the publisher never waits
    /// for more than the share).
    pub fn share(&self, amount: i64) -> i64 {
        i64::try_from(i128::from(amount) * i128::from(self.percent) / 100).unwrap_or(0)
    }

    /// The reserve account's due day for a release at `now`.
    pub fn due(&self, now: DateTime<Utc>) -> String {
        (now + Duration::days(self.days))
            .date_naive()
            .format("%Y-%m-%d")
            .to_string()
    }
}

/// When a publisher stops being new (its reserve then ends unless its terms set one).
pub fn new_until(created_at: DateTime<Utc>) -> DateTime<Utc> {
    created_at + Duration::days(NEW_PUBLISHER_DAYS)
}

/// The reserve in force at `now` for a publisher created at `created_at` with its terms.
pub fn in_force(
    row: Option<&terms::Model>,
    created_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Option<Reserve> {
    let default_percent = if now < new_until(created_at) {
        DEFAULT_RESERVE_PERCENT
    } else {
        0
    };
    let percent = row
        .and_then(|r| r.reserve_percent)
        .map_or(default_percent, i64::from);
    let days = row
        .and_then(|r| r.reserve_days)
        .map_or(DEFAULT_RESERVE_DAYS, i64::from);
    (percent > 0 && days > 0).then_some(Reserve { percent, days })
}

/// The reserves in force for `publishers` (two queries, whatever their number).
pub async fn for_publishers<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    publishers: &[String],
) -> Result<HashMap<String, Reserve>, AppError> {
    let rows: HashMap<String, terms::Model> = terms::Entity::find()
        .filter(terms::Column::AccountId.is_in(publishers.iter().cloned()))
        .all(db)
        .await?
        .into_iter()
        .map(|r| (r.account_id.clone(), r))
        .collect();
    let accounts = account::Entity::find()
        .filter(account::Column::Id.is_in(publishers.iter().cloned()))
        .all(db)
        .await?;
    Ok(accounts
        .into_iter()
        .filter_map(|a| in_force(rows.get(&a.id), a.created_at, now).map(|r| (a.id, r)))
        .collect())
}

/// Makes every reserve whose day has come available; returns how many accounts it
/// released. Each is posted once (its once-only key names the publisher and the day, and
/// nothing is added to a reserve once its day has come), so two processes at once release
/// it once.
pub async fn release_due(ctx: &Ctx) -> Result<u64, AppError> {
    let today = ctx.now().date_naive().format("%Y-%m-%d").to_string();
    let due = ledger_account::Entity::find()
        .filter(ledger_account::Column::Kind.eq(Kind::PublisherReserve.as_str()))
        .filter(ledger_account::Column::BalanceMicros.gt(0))
        .filter(ledger_account::Column::ReferenceId.lte(today))
        .all(&ctx.db)
        .await?;
    let mut released = 0;
    for a in due {
        let txn = db::begin(&ctx.db).await?;
        let posted = ledger::post(
            &txn,
            ctx.now(),
            ledger::TransactionKind::ReserveRelease,
            &a.owner_account_id,
            ("publisher_reserve", &a.reference_id),
            &format!("reserve_release:{}:{}", a.owner_account_id, a.reference_id),
            &ledger::reserve_release_legs(&a.owner_account_id, &a.reference_id, a.balance_micros),
        )
        .await;
        match posted {
            Ok(_) => {
                txn.commit().await?;
                released += 1;
            }
            Err(ledger::PostError::AlreadyPosted) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(released)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_publishers_reserve_a_share_until_they_are_not_new() {
        let created = chrono::Utc::now();
        let r = in_force(None, created, created + Duration::days(10)).expect("new");
        assert_eq!(
            r,
            Reserve {
                percent: 10,
                days: 60
            }
        );
        assert_eq!(r.share(1_000_001), 100_000);
        assert_eq!(in_force(None, created, created + Duration::days(90)), None);
    }
}
