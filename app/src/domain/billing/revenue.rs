//! The platform's revenue by day for the administrator: from the platform's own ledger
//! accounts (the spend mirror, what externally paying advertisers owe, and the revenue), so
//! it agrees with the advertisers' spend and the publishers' earnings by construction. One
//! grouped query over the range (at most a year).

use chrono::{Duration, NaiveDate};

use super::ledger::Kind;
use super::ledger::daily::{self, EARNING, REVERSING};
use crate::domain::{Ctx, Principal, report_range};
use crate::error::AppError;
use crate::model::billing::{RevenueDay, RevenueReport};
use crate::model::money::Micros;

/// The platform accounts a conversion's posting moves.
const PLATFORM: [Kind; 3] = [
    Kind::SpendClearing,
    Kind::ExternalReceivable,
    Kind::PlatformRevenue,
];

/// `GET /admin/v1/revenue`.
pub async fn by_day(
    ctx: &Ctx,
    actor: &Principal,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> Result<RevenueReport, AppError> {
    actor.require_admin()?;
    let (from, to) = report_range::resolve(from, to, ctx.now().date_naive(), 366)?;
    let (start, until) = daily::instants(from, to);
    let totals = daily::by_day(&ctx.db, "", &PLATFORM, start, until).await?;
    let mut days: Vec<RevenueDay> = (0..=(to - from).num_days())
        .map(|i| RevenueDay {
            day: Some(from + Duration::days(i)),
            ..RevenueDay::default()
        })
        .collect();
    for t in totals {
        let earning = EARNING.contains(&t.transaction_kind);
        if !earning && !REVERSING.contains(&t.transaction_kind) {
            continue;
        }
        let Some(day) = daily::day_index(&t.day, from).and_then(|i| days.get_mut(i)) else {
            continue;
        };
        let count = u64::try_from(t.transactions).unwrap_or(0);
        match t.account_kind {
            // The mirror and the receivable are credited negative by what was paid.
            Kind::SpendClearing | Kind::ExternalReceivable => {
                day.gross_micros = Micros(day.gross_micros.get() - t.micros);
            }
            Kind::PlatformRevenue => {
                day.platform_micros = Micros(day.platform_micros.get() + t.micros);
                // Every paid conversion and reversal moves revenue once.
                if earning {
                    day.conversions += count;
                } else {
                    day.reversals += count;
                }
            }
            _ => {}
        }
    }
    let mut sum = RevenueDay::default();
    for d in &mut days {
        d.publisher_micros = Micros(d.gross_micros.get() - d.platform_micros.get());
        sum.gross_micros = Micros(sum.gross_micros.get() + d.gross_micros.get());
        sum.publisher_micros = Micros(sum.publisher_micros.get() + d.publisher_micros.get());
        sum.platform_micros = Micros(sum.platform_micros.get() + d.platform_micros.get());
        sum.conversions += d.conversions;
        sum.reversals += d.reversals;
    }
    Ok(RevenueReport {
        currency: super::CURRENCY.to_owned(),
        from,
        to,
        days,
        totals: sum,
    })
}
