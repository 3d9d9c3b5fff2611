//! A publisher's monthly statement: the earnings balances at the start and the end of the
//! month and what moved them (earned, reversed, paid out), from the ledger entries of the
//! publisher's earnings accounts, so a statement and the ledger export of the same month
//! agree to the micro. Three aggregate queries a statement.

use std::collections::HashMap;

use chrono::{DateTime, Datelike, NaiveDate, Utc};

use crate::domain::billing::CURRENCY;
use crate::domain::billing::ledger::daily::{self, EARNING, REVERSING};
use crate::domain::billing::ledger::export::{account_kinds, by_account_before};
use crate::domain::billing::ledger::{Kind, TransactionKind};
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::earnings::{
    EarningsDaily, EarningsDay, EarningsSnapshot, EarningsStatement, StatementPeriods,
};

/// The publisher's earnings accounts.
pub const EARNINGS_KINDS: [Kind; 4] = [
    Kind::PublisherPending,
    Kind::PublisherAvailable,
    Kind::PublisherReserve,
    Kind::PayoutHeld,
];

/// Transaction kinds that take money out to the publisher (or bring a returned payout back).
const PAYING_OUT: [TransactionKind; 2] =
    [TransactionKind::PayoutPaid, TransactionKind::PayoutReturn];

/// `GET /publisher/v2/earnings/statements`: the months from the publisher's first earnings
/// to now, newest first.
pub async fn periods(ctx: &Ctx, actor: &Principal) -> Result<StatementPeriods, AppError> {
    actor.require_publisher()?;
    let accounts = account_kinds(&ctx.db, &actor.account_id, &EARNINGS_KINDS).await?;
    let first = match accounts.is_empty() {
        true => None,
        false => {
            use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
            entity::ledger_entry::Entity::find()
                .filter(
                    entity::ledger_entry::Column::LedgerAccountId.is_in(accounts.keys().cloned()),
                )
                .order_by_asc(entity::ledger_entry::Column::CreatedAt)
                .one(&ctx.db)
                .await?
                .map(|e| e.created_at)
        }
    };
    let now = ctx.now();
    let mut periods = Vec::new();
    if let Some(first) = first {
        let (mut y, mut m) = (now.year(), now.month());
        while (y, m) >= (first.year(), first.month()) && periods.len() < 240 {
            periods.push(format!("{y:04}-{m:02}"));
            (y, m) = if m == 1 { (y - 1, 12) } else { (y, m - 1) };
        }
    }
    Ok(StatementPeriods { periods })
}

/// `GET /publisher/v2/earnings/statements/{period}`.
pub async fn month(
    ctx: &Ctx,
    actor: &Principal,
    period: &str,
) -> Result<EarningsStatement, AppError> {
    actor.require_publisher()?;
    let now = ctx.now();
    let (start, end) = bounds(period)?;
    if start > now {
        return Err(AppError::field("period", "must not be a future month"));
    }
    let publisher = &actor.account_id;
    let accounts = account_kinds(&ctx.db, publisher, &EARNINGS_KINDS).await?;
    let ids: Vec<String> = accounts.keys().cloned().collect();
    let (opening, closing) = if ids.is_empty() {
        (EarningsSnapshot::default(), EarningsSnapshot::default())
    } else {
        (
            snapshot(
                &accounts,
                by_account_before(&ctx.db, &ids, Some(start)).await?,
            ),
            snapshot(
                &accounts,
                by_account_before(&ctx.db, &ids, Some(end)).await?,
            ),
        )
    };
    let totals = daily::by_day(&ctx.db, publisher, &EARNINGS_KINDS, start, end).await?;
    // A transaction touches one earnings account of its kind at most (a release two, but
    // releases are not counted), so summing the days' counts counts each once.
    let sum = |kinds: &[TransactionKind]| -> (i64, u64) {
        totals
            .iter()
            .filter(|t| kinds.contains(&t.transaction_kind))
            .fold((0, 0), |(m, n), t| {
                (m + t.micros, n + u64::try_from(t.transactions).unwrap_or(0))
            })
    };
    let (earned, conversions) = sum(&EARNING);
    let (reversed, reversals) = sum(&REVERSING);
    let (paid_out, _) = sum(&PAYING_OUT);
    let moved = closing.total_micros.get() - opening.total_micros.get();
    Ok(EarningsStatement {
        publisher_id: publisher.clone(),
        period: period.to_owned(),
        status: if now < end { "OPEN" } else { "CLOSED" }.to_owned(),
        currency: CURRENCY.to_owned(),
        opening,
        earned_micros: Micros(earned),
        reversed_micros: Micros(reversed),
        paid_out_micros: Micros(paid_out),
        // Releases and payout holds move money between the publisher's own balances; what
        // is left over is an operator's adjustment.
        adjustments_micros: Micros(moved - earned - reversed - paid_out),
        closing,
        conversions,
        reversals,
    })
}

/// `GET /publisher/v2/earnings/daily`: earned and reversed per day of the range (the last
/// 30 days by default, at most a year), every day listed.
pub async fn daily(
    ctx: &Ctx,
    actor: &Principal,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> Result<EarningsDaily, AppError> {
    use chrono::Duration;
    actor.require_publisher()?;
    let (from, to) = crate::domain::report_range::resolve(from, to, ctx.now().date_naive(), 366)?;
    let (start, until) = daily::instants(from, to);
    let totals = daily::by_day(&ctx.db, &actor.account_id, &EARNINGS_KINDS, start, until).await?;
    let mut days: Vec<EarningsDay> = (0..=(to - from).num_days())
        .map(|i| EarningsDay {
            day: from + Duration::days(i),
            earned_micros: Micros(0),
            reversed_micros: Micros(0),
            conversions: 0,
            reversals: 0,
        })
        .collect();
    for t in totals {
        let Some(day) = daily::day_index(&t.day, from).and_then(|i| days.get_mut(i)) else {
            continue;
        };
        let count = u64::try_from(t.transactions).unwrap_or(0);
        if EARNING.contains(&t.transaction_kind) {
            day.earned_micros = Micros(day.earned_micros.get() + t.micros);
            day.conversions += count;
        } else if REVERSING.contains(&t.transaction_kind) {
            day.reversed_micros = Micros(day.reversed_micros.get() + t.micros);
            day.reversals += count;
        }
    }
    Ok(EarningsDaily {
        currency: CURRENCY.to_owned(),
        days,
    })
}

/// The first instant of the month `YYYY-MM` and of the month after it.
fn bounds(period: &str) -> Result<(DateTime<Utc>, DateTime<Utc>), AppError> {
    let bad = || AppError::field("period", "must be a month as YYYY-MM");
    let (y, m) = period.split_once('-').ok_or_else(bad)?;
    let (y, m): (i32, u32) = (y.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    if period.len() != 7 || !(1970..=9998).contains(&y) {
        return Err(bad());
    }
    let first = NaiveDate::from_ymd_opt(y, m, 1).ok_or_else(bad)?;
    let next = if m == 12 {
        NaiveDate::from_ymd_opt(y + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(y, m + 1, 1)
    }
    .ok_or_else(bad)?;
    let at = |d: NaiveDate| d.and_hms_opt(0, 0, 0).map(|t| t.and_utc()).ok_or_else(bad);
    Ok((at(first)?, at(next)?))
}

fn snapshot(accounts: &HashMap<String, Kind>, sums: HashMap<String, i64>) -> EarningsSnapshot {
    let mut s = EarningsSnapshot::default();
    for (id, micros) in sums {
        let slot = match accounts.get(&id) {
            Some(Kind::PublisherPending) => &mut s.pending_micros,
            Some(Kind::PublisherAvailable) => &mut s.available_micros,
            Some(Kind::PayoutHeld) => &mut s.held_for_payout_micros,
            Some(Kind::PublisherReserve) => &mut s.reserve_micros,
            _ => continue,
        };
        *slot = Micros(slot.get() + micros);
    }
    s.total_micros = Micros(
        s.pending_micros.get()
            + s.available_micros.get()
            + s.reserve_micros.get()
            + s.held_for_payout_micros.get(),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_are_checked() {
        let (s, e) = bounds("2026-12").expect("a month");
        assert_eq!(s.to_rfc3339(), "2026-12-01T00:00:00+00:00");
        assert_eq!(e.to_rfc3339(), "2027-01-01T00:00:00+00:00");
        for bad in [
            "2026-13",
            "2026-1",
            "26-01",
            "2026-00",
            "x",
            "0001-01",
            "2026-01-01",
        ] {
            assert!(bounds(bad).is_err(), "{bad}");
        }
    }
}
