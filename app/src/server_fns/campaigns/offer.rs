//! The offer side of a campaign from the dashboard, in one form with PATCH semantics (only
//! what changed makes a revision): what users read (description, preview link, creatives),
//! when it runs (schedule, UTC), how much it delivers (caps) and its goals. Times arrive as
//! `datetime-local` text, amounts as decimal USD, creatives one per line as `KIND URL` (or
//! `KIND <creative id>` for an uploaded one); the rules stay in `model::campaign::rules`.

use leptos::prelude::*;

use super::GoalRow;
use crate::error::AppError;
use crate::model::campaign::*;

#[cfg(feature = "ssr")]
use super::support;

/// Replaces the offer details that differ from the campaign's current revision.
#[server(prefix = "/fn", endpoint = "campaigns_offer")]
#[allow(clippy::too_many_arguments)]
pub async fn edit_campaign_offer(
    campaign_id: String,
    description: Option<String>,
    preview_url: Option<String>,
    creatives: Option<String>,
    start_at: Option<String>,
    end_at: Option<String>,
    daily_conversions: Option<String>,
    total_conversions: Option<String>,
    per_user: Option<String>,
    daily_budget: Option<String>,
    #[server(default)] goals: Vec<GoalRow>,
    csrf: String,
) -> Result<Campaign, AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::campaigns::store;
        use crate::model::money::Micros;
        let (ctx, _, p) = support::writer(&csrf).await?;
        let mut errs = crate::error::FieldErrors::new();
        let schedule = Schedule {
            start_at: errs.check("schedule.startAt", instant(start_at)).flatten(),
            end_at: errs.check("schedule.endAt", instant(end_at)).flatten(),
        };
        let count = |errs: &mut crate::error::FieldErrors, f: &str, v: Option<String>| {
            errs.check(f, whole(v)).flatten()
        };
        let caps = Caps {
            daily_conversions: count(&mut errs, "caps.dailyConversions", daily_conversions),
            total_conversions: count(&mut errs, "caps.totalConversions", total_conversions),
            per_user: count(&mut errs, "caps.perUser", per_user),
            daily_budget_micros: match support::text(daily_budget) {
                None => None,
                Some(b) => errs
                    .check("caps.dailyBudgetMicros", support::usd(&b))
                    .map(Micros),
            },
        };
        let creatives = errs
            .check(
                "creatives",
                creative_lines(creatives.as_deref().unwrap_or_default()),
            )
            .unwrap_or_default();
        let (rows, goal_inputs) = support::goal_inputs(&goals, &mut errs);
        errs.finish()?;
        let id = campaign_id.trim();
        let current = store::get(&ctx, &p, id).await?.config;
        let description = description.unwrap_or_default().trim().to_owned();
        let preview_url = preview_url.unwrap_or_default().trim().to_owned();
        let unchanged_goals = goal_inputs.len() == current.goals.len()
            && goal_inputs.iter().zip(&current.goals).all(|(a, b)| {
                a.external_goal_id == b.external_goal_id
                    && a.name == b.name
                    && a.payout_micros == b.payout_micros
                    && a.pending_minutes.unwrap_or(0) == b.pending_minutes
            });
        let patch = CampaignInput {
            description: (description != current.description.clone().unwrap_or_default())
                .then_some(description),
            preview_url: (preview_url != current.preview_url.clone().unwrap_or_default())
                .then_some(preview_url),
            creatives: (creatives != current.creatives).then_some(creatives),
            schedule: (schedule != current.schedule).then_some(schedule),
            caps: (caps != current.caps).then_some(caps),
            goals: (!unchanged_goals).then_some(goal_inputs),
            ..CampaignInput::default()
        };
        store::update(&ctx, &p, id, patch)
            .await
            .map_err(|e| support::at_rows(e, &rows))
    })
    .await
}

/// `2026-12-01T09:30` (a `datetime-local` field, read as UTC); empty is no bound.
#[cfg(feature = "ssr")]
fn instant(v: Option<String>) -> Result<Option<chrono::DateTime<chrono::Utc>>, String> {
    let Some(v) = support::text(v) else {
        return Ok(None);
    };
    chrono::NaiveDateTime::parse_from_str(&v, "%Y-%m-%dT%H:%M")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(&v, "%Y-%m-%dT%H:%M:%S"))
        .map(|t| Some(t.and_utc()))
        .map_err(|_| "must be a date and time such as 2026-12-01T09:30 (UTC)".to_owned())
}

/// A whole number, or nothing when the field is empty (no cap).
#[cfg(feature = "ssr")]
fn whole(v: Option<String>) -> Result<Option<i64>, String> {
    support::text(v)
        .map(|v| v.replace(['_', ' ', ','], "").parse::<i64>())
        .transpose()
        .map_err(|_| "must be a whole number (leave it empty for no cap)".to_owned())
}

/// One creative per line: `KIND https://…` or `KIND <creative id>`; a bare URL is an ICON.
#[cfg(feature = "ssr")]
fn creative_lines(text: &str) -> Result<Vec<CreativeRef>, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (kind, target) = match line.split_once(char::is_whitespace) {
                Some((k, t)) => (
                    CreativeKind::parse(&k.to_ascii_uppercase())
                        .ok_or_else(|| format!("{k}: must be ICON, BANNER, SCREENSHOT or VIDEO"))?,
                    t.trim(),
                ),
                None => (CreativeKind::Icon, line),
            };
            let url = target.starts_with("https://") || target.starts_with("http://");
            Ok(CreativeRef {
                kind,
                url: url.then(|| target.to_owned()),
                creative_id: (!url).then(|| target.to_owned()),
            })
        })
        .collect()
}

/// The creatives as the form's text, one per line.
pub fn creatives_text(creatives: &[CreativeRef]) -> String {
    creatives
        .iter()
        .map(|c| {
            let target = c
                .url
                .clone()
                .or_else(|| c.creative_id.clone())
                .unwrap_or_default();
            format!("{} {target}", c.kind.as_str())
        })
        .collect::<Vec<_>>()
        .join("\n")
}
