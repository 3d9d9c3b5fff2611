//! The validation of a campaign configuration's parts: its goals (ids, payouts, pending
//! periods), its caps and its creative references. `rules::merge` calls them.

use std::collections::BTreeSet;

use super::*;
use crate::model::money::{Micros, format_micros};
use crate::model::publisher::rules::store_url;
use crate::model::validate::Errors;

/// Longest pending period of a goal: 30 days.
pub const MAX_PENDING_MINUTES: i64 = 43_200;
/// Largest campaign budget: 10,000,000 USD.
pub const MAX_BUDGET_MICROS: i64 = 10_000_000_000_000;

/// A goal id as postbacks send it.
fn goal_id(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    let ok = (1..=64).contains(&s.len())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
    if ok {
        Ok(s.to_owned())
    } else {
        Err("must be 1-64 letters, digits, '_', '-', '.' or ':'".to_owned())
    }
}

pub(super) fn goals(raw: &[GoalInput], errs: &mut Errors) -> Vec<Goal> {
    if raw.is_empty() {
        errs.insert("goals".into(), "must have at least one goal".into());
    }
    if raw.len() > 50 {
        errs.insert("goals".into(), "must have at most 50 goals".into());
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, g) in raw.iter().enumerate() {
        let at = |f: &str| format!("goals[{i}].{f}");
        let id = match goal_id(&g.external_goal_id) {
            Ok(id) => id,
            Err(e) => {
                errs.insert(at("externalGoalId"), e);
                continue;
            }
        };
        if !seen.insert(id.clone()) {
            errs.insert(
                at("externalGoalId"),
                "must be unique within the campaign".into(),
            );
        }
        let name = g.name.trim();
        if name.is_empty() || name.chars().count() > 120 {
            errs.insert(at("name"), "must be 1-120 characters".into());
        } else if crate::model::validate::has_bidi_control(name) {
            errs.insert(at("name"), crate::model::validate::BIDI_REFUSED.into());
        }
        if g.payout_micros <= Micros(0) || g.payout_micros > Micros(MAX_BUDGET_MICROS) {
            errs.insert(
                at("payoutMicros"),
                "must be a positive amount of micros".into(),
            );
        }
        let pending = g.pending_minutes.unwrap_or(0);
        if !(0..=MAX_PENDING_MINUTES).contains(&pending) {
            errs.insert(
                at("pendingMinutes"),
                format!("must be between 0 and {MAX_PENDING_MINUTES}"),
            );
        }
        out.push(Goal {
            external_goal_id: id,
            name: name.to_owned(),
            payout_micros: g.payout_micros,
            payout: format_micros(g.payout_micros),
            pending_minutes: pending,
        });
    }
    out
}

pub(super) fn caps(c: &Caps, errs: &mut Errors) {
    for (field, v) in [
        ("caps.dailyConversions", c.daily_conversions),
        ("caps.totalConversions", c.total_conversions),
        ("caps.perUser", c.per_user),
        (
            "caps.dailyBudgetMicros",
            c.daily_budget_micros.map(Micros::get),
        ),
    ] {
        if v.is_some_and(|v| v <= 0) {
            errs.insert(field.into(), "must be positive when set".into());
        }
    }
    if let (Some(d), Some(t)) = (c.daily_conversions, c.total_conversions)
        && d > t
    {
        errs.insert(
            "caps.dailyConversions".into(),
            "must not exceed totalConversions".into(),
        );
    }
}

pub(super) fn creatives(raw: &[CreativeRef], errs: &mut Errors) {
    if raw.len() > 20 {
        errs.insert("creatives".into(), "must have at most 20 creatives".into());
    }
    for (i, c) in raw.iter().enumerate() {
        match (&c.url, &c.creative_id) {
            (Some(u), None) => {
                if let Err(e) = store_url(u) {
                    errs.insert(format!("creatives[{i}].url"), e);
                }
            }
            (None, Some(_)) => {}
            _ => {
                errs.insert(
                    format!("creatives[{i}]"),
                    "needs exactly one of url or creativeId".into(),
                );
            }
        }
    }
}
