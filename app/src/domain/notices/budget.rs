//! Telling an advertiser about a live campaign's budget, from the settlement that spent it:
//! once when the remaining budget falls below the advertiser's alert share, once when it is
//! used up. Both are crossings of a line by one spend (the remaining budget before is at or
//! above the line, after is below), so a campaign tells once per crossing however many
//! conversions follow, and again only after a top-up lifted it above the line.

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, EntityTrait, QuerySelect};

use super::{MAX_BUDGET_ALERT_PERCENT, Notice, tell};
use crate::domain::Ctx;
use crate::error::AppError;
use crate::model::NoticeTopic;
use crate::model::money::{Micros, format_micros};
use entity::account;

/// One spend of a live campaign's remaining budget.
#[derive(Debug, Clone, Copy)]
pub struct Spend<'a> {
    pub advertiser_id: &'a str,
    pub campaign_id: &'a str,
    pub campaign_name: &'a str,
    pub budget: Micros,
    /// The remaining budget before and after the spend.
    pub before: Micros,
    pub after: Micros,
    /// The cheapest goal's payout: below it nothing more can be paid.
    pub cheapest: Micros,
}

/// Whether a spend moved the remaining budget from at or above `line` to below it.
pub fn crossed(before: i64, after: i64, line: i64) -> bool {
    line > 0 && before >= line && after < line
}

/// `percent` of `budget` (rounded down).
pub fn alert_line(budget: i64, percent: i32) -> i64 {
    let line = i128::from(budget) * i128::from(percent.clamp(0, 100)) / 100;
    i64::try_from(line).unwrap_or(i64::MAX)
}

/// Tells the advertiser when `s` crossed its alert line or used the budget up. The alert
/// share is read only when the spend could have crossed the highest possible line, so
/// most settlements cost nothing more.
pub async fn after_spend<C: ConnectionTrait>(
    ctx: &Ctx,
    txn: &C,
    now: DateTime<Utc>,
    s: Spend<'_>,
) -> Result<(), AppError> {
    let link = format!("/advertiser/campaigns/{}", s.campaign_id);
    let (before, after, budget) = (s.before.get(), s.after.get(), s.budget.get());
    if crossed(before, after, s.cheapest.get().max(1)) {
        let n = Notice::new(
            NoticeTopic::CampaignBudgetExhausted,
            format!("The budget of “{}” ran out", s.campaign_name),
            format!(
                "Campaign “{}” has {} USD of its {} USD budget left, less than its cheapest \
                 goal pays, so its offers are no longer shown. Raise its budget to run it again.",
                s.campaign_name,
                format_micros(after),
                format_micros(budget)
            ),
        )
        .about("campaign", s.campaign_id, link);
        tell(ctx, txn, now, s.advertiser_id, n).await?;
        return Ok(());
    }
    if after >= alert_line(budget, MAX_BUDGET_ALERT_PERCENT) {
        return Ok(());
    }
    let percent: i32 = account::Entity::find_by_id(s.advertiser_id.to_owned())
        .select_only()
        .column(account::Column::BudgetAlertPercent)
        .into_tuple()
        .one(txn)
        .await?
        .unwrap_or(0);
    if !crossed(before, after, alert_line(budget, percent)) {
        return Ok(());
    }
    let n = Notice::new(
        NoticeTopic::CampaignBudgetLow,
        format!(
            "“{}” has less than {percent} % of its budget left",
            s.campaign_name
        ),
        format!(
            "Campaign “{}” has {} USD of its {} USD budget left. Raise its budget before it \
             runs out, or let it end.",
            s.campaign_name,
            format_micros(after),
            format_micros(budget)
        ),
    )
    .about("campaign", s.campaign_id, link);
    tell(ctx, txn, now, s.advertiser_id, n).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_crossed_once_by_the_spend_that_passes_it() {
        let line = alert_line(100_000_000, 20);
        assert_eq!(line, 20_000_000);
        assert!(crossed(21_000_000, 19_000_000, line));
        assert!(
            crossed(20_000_000, 19_999_999, line),
            "at the line is above it"
        );
        assert!(!crossed(19_000_000, 17_000_000, line), "already below");
        assert!(!crossed(30_000_000, 20_000_000, line), "not yet below");
        assert!(!crossed(30_000_000, 0, 0), "a zero line is off");
        assert_eq!(alert_line(i64::MAX, 50), i64::MAX / 2);
    }
}
