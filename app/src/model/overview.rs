//! The figures a dashboard home page leads with: money and conversions by day over the last
//! 30 days, totals of the last 7 and 30, and what needs the account's attention.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::model::money::Micros;

/// One UTC day: the publisher's earnings or the advertiser's spend, with conversions and
/// reversals (offer conversions and survey completes together).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OverviewDay {
    pub date: NaiveDate,
    pub money_micros: Micros,
    pub conversions: i64,
    pub reversals: i64,
}

/// Sums over a number of days.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OverviewTotals {
    pub days: i64,
    pub money_micros: Micros,
    pub conversions: i64,
    pub reversals: i64,
}

/// Something to act on, with where to act.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attention {
    /// A stable code (`failed_callbacks`, `out_of_budget`, …) for tests and styling.
    pub code: String,
    pub count: i64,
    /// A sentence naming the count.
    pub text: String,
    pub href: String,
}

/// A home page's figures. `balance_micros` is the advertiser's available balance (absent for
/// publishers, who have no balance yet).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    pub currency: String,
    /// Oldest first, every day of the last 30 (today included).
    pub days: Vec<OverviewDay>,
    pub last7: OverviewTotals,
    pub last30: OverviewTotals,
    pub balance_micros: Option<Micros>,
    pub attention: Vec<Attention>,
}

impl Overview {
    /// Fills `last7` and `last30` from `days` (oldest first).
    pub fn with_totals(mut self) -> Self {
        let sum = |n: usize| {
            let tail = &self.days[self.days.len().saturating_sub(n)..];
            OverviewTotals {
                days: tail.len() as i64,
                money_micros: tail.iter().map(|d| d.money_micros).sum(),
                conversions: tail.iter().map(|d| d.conversions).sum(),
                reversals: tail.iter().map(|d| d.reversals).sum(),
            }
        };
        self.last7 = sum(7);
        self.last30 = sum(30);
        self
    }

    /// Adds an attention item when `count` is above zero.
    pub fn attend(&mut self, code: &str, count: i64, text: impl FnOnce(i64) -> String, href: &str) {
        if count > 0 {
            self.attention.push(Attention {
                code: code.to_owned(),
                count,
                text: text(count),
                href: href.to_owned(),
            });
        }
    }
}

/// "1 campaign", "3 campaigns".
pub fn plural(n: i64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
