//! Offer campaigns from the advertiser dashboard: list, create, detail (edit, lifecycle,
//! clone) and report. Form posts arrive form-urlencoded, so amounts come in as decimal USD
//! text, lists as comma-separated text and checkboxes as present/absent; they are parsed
//! here into `CampaignInput` and every rule stays in `domain::campaigns`.
//!
//! Tracking setup lives in `tracking`, the administrator review in `admin`, targeting in
//! `targeting`.

pub mod admin;
pub mod conversions;
pub mod offer;
pub mod targeting;
pub mod tracking;
pub mod translations;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::billing::Balance;
use crate::model::campaign::*;
#[cfg(feature = "ssr")]
use crate::model::money::Micros;

/// What the campaign list shows: the campaigns and the wallet they reserve from (absent
/// for administrators, who have no wallet of their own).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CampaignsOverview {
    pub campaigns: CampaignList,
    pub balance: Option<Balance>,
}

/// Everything the campaign page shows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CampaignOverview {
    pub campaign: Campaign,
    pub readiness: CampaignReadiness,
    pub revisions: Vec<CampaignRevision>,
    pub audit: Vec<AuditEntry>,
    pub balance: Option<Balance>,
}

/// The report page: the campaign it belongs to and the rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReportOverview {
    pub campaign: Campaign,
    pub report: CampaignReport,
}

/// One goal row of the create form; a row whose fields are all empty is ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GoalRow {
    #[serde(default)]
    pub external_goal_id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub payout: Option<String>,
    #[serde(default)]
    pub pending_minutes: Option<String>,
}

impl GoalRow {
    /// Whether every field of the row was left empty.
    pub fn is_empty(&self) -> bool {
        [
            &self.external_goal_id,
            &self.name,
            &self.payout,
            &self.pending_minutes,
        ]
        .iter()
        .all(|v| v.as_deref().is_none_or(|s| s.trim().is_empty()))
    }
}

/// The wire field name of a goal field at `index` (`goals[0].payoutMicros`).
pub fn goal_field(index: usize, field: &str) -> String {
    format!("goals[{index}].{field}")
}

#[cfg(feature = "ssr")]
pub(crate) mod support {
    use crate::domain::{Ctx, Principal};
    use crate::error::AppError;
    use crate::model::billing::Balance;

    pub use super::super::web::{reader, writer};
    pub use crate::server_fns::fields::{number, text, usd};

    /// Session slot of a local S2S test result left for a plain form post.
    pub const S2S_TEST: &str = "campaign_flash_test";

    /// A comma-separated list; an empty field is an empty list.
    pub fn list(v: Option<String>) -> Vec<String> {
        v.unwrap_or_default()
            .split([',', '\n'])
            .map(|e| e.trim().to_owned())
            .filter(|e| !e.is_empty())
            .collect()
    }

    /// The caller's wallet, when the caller is an advertiser.
    pub async fn wallet(ctx: &Ctx, p: &Principal) -> Result<Option<Balance>, AppError> {
        if p.role.is_admin() {
            return Ok(None);
        }
        let adv = crate::domain::billing::acting_advertiser(ctx, p, None).await?;
        Ok(Some(
            crate::domain::billing::ledger::balance(&ctx.db, &adv).await?,
        ))
    }

    /// The goal rows a form sent, as goals for the domain, skipping empty rows; `rows[i]` is
    /// the form row of the i-th goal, so errors can be shown where they were typed.
    pub fn goal_inputs(
        goals: &[super::GoalRow],
        errs: &mut crate::error::FieldErrors,
    ) -> (Vec<usize>, Vec<crate::model::campaign::GoalInput>) {
        use super::goal_field;
        let mut rows = Vec::new();
        let mut inputs = Vec::new();
        for (row, g) in goals.iter().enumerate().filter(|(_, g)| !g.is_empty()) {
            let payout = errs.check(
                &goal_field(row, "payoutMicros"),
                usd(g.payout.as_deref().unwrap_or_default()),
            );
            let pending = match text(g.pending_minutes.clone()) {
                None => None,
                Some(m) => errs.check(
                    &goal_field(row, "pendingMinutes"),
                    m.parse::<i64>()
                        .map_err(|_| "must be a whole number of minutes".to_owned()),
                ),
            };
            rows.push(row);
            inputs.push(crate::model::campaign::GoalInput {
                external_goal_id: g.external_goal_id.clone().unwrap_or_default(),
                name: g.name.clone().unwrap_or_default(),
                // A placeholder keeps the other rules checking while the payout is refused.
                payout_micros: crate::model::money::Micros(payout.unwrap_or(1)),
                pending_minutes: pending,
            });
        }
        (rows, inputs)
    }

    /// Goal errors name the domain's index; the form shows them at the typed row.
    pub fn at_rows(e: AppError, rows: &[usize]) -> AppError {
        if e.field_errors.is_empty() {
            return e;
        }
        let fields = e
            .field_errors
            .into_iter()
            .map(|(f, why)| (renumber_goal(&f, rows), why))
            .collect();
        AppError::fields(fields)
    }

    /// `goals[i].x` → `goals[rows[i]].x`; other fields unchanged.
    pub fn renumber_goal(field: &str, rows: &[usize]) -> String {
        let Some(rest) = field.strip_prefix("goals[") else {
            return field.to_owned();
        };
        let Some((index, tail)) = rest.split_once(']') else {
            return field.to_owned();
        };
        match index.parse::<usize>().ok().and_then(|i| rows.get(i)) {
            Some(row) => format!("goals[{row}]{tail}"),
            None => field.to_owned(),
        }
    }
}

/// The caller's campaigns, newest first, 50 a page (`cursor`: the previous page's
/// `nextCursor`), with the wallet.
#[server(prefix = "/fn", endpoint = "campaigns_list")]
pub async fn offer_campaigns(cursor: Option<String>) -> Result<CampaignsOverview, AppError> {
    super::web::run(async move {
        use crate::domain::campaigns::store;
        let (ctx, p) = support::reader().await?;
        let query = store::ListQuery {
            page: crate::domain::paging::Page::parse(Some(50), cursor.as_deref(), "cmp")?,
            ..store::ListQuery::default()
        };
        let campaigns = store::list(&ctx, &p, query).await?;
        let balance = support::wallet(&ctx, &p).await?;
        Ok(CampaignsOverview { campaigns, balance })
    })
    .await
}

/// The tracking providers a new campaign can select.
#[server(prefix = "/fn", endpoint = "campaigns_options")]
pub async fn new_campaign_options() -> Result<Vec<ProviderCapability>, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        p.require_approved_advertiser()?;
        Ok(crate::domain::campaigns::providers::catalogue(&ctx)
            .items
            .into_iter()
            .filter(|c| c.selectable)
            .collect())
    })
    .await
}

/// Creates a DRAFT campaign and opens its page. Platforms are three checkboxes, countries
/// comma-separated, budget and payouts decimal USD; goal rows left empty are ignored and
/// field errors name the row as shown on the form.
#[server(prefix = "/fn", endpoint = "campaigns_create")]
#[allow(clippy::too_many_arguments)]
pub async fn create_offer_campaign(
    name: Option<String>,
    destination_url: Option<String>,
    android: Option<String>,
    ios: Option<String>,
    web: Option<String>,
    countries: Option<String>,
    category: Option<String>,
    task_type: Option<String>,
    tracking_provider: Option<String>,
    budget: Option<String>,
    #[server(default)] goals: Vec<GoalRow>,
    csrf: String,
) -> Result<Campaign, AppError> {
    super::web::run(async move {
        use support::text;
        let (ctx, _, p) = support::writer(&csrf).await?;
        let mut errs = crate::error::FieldErrors::new();
        let platforms = [
            (android, Platform::Android),
            (ios, Platform::Ios),
            (web, Platform::Web),
        ]
        .into_iter()
        .filter_map(|(v, p)| v.map(|_| p))
        .collect();
        let budget_micros = errs.check("budgetMicros", support::usd(&budget.unwrap_or_default()));
        let (rows, inputs) = support::goal_inputs(&goals, &mut errs);
        let input = CampaignInput {
            name,
            destination_url,
            platforms: Some(platforms),
            countries: Some(support::list(countries)),
            category: text(category),
            task_type: text(task_type),
            tracking_provider: text(tracking_provider),
            budget_micros: budget_micros.map(Micros),
            goals: Some(inputs),
            ..CampaignInput::default()
        };
        let renumber = |e: AppError| support::at_rows(e, &rows);
        let form_errors = errs.finish();
        if let Err(mut e) = form_errors {
            // Report the other fields' problems together with the unreadable amounts.
            if let Err(rules) = crate::model::campaign::rules::merge(None, &input) {
                for (f, why) in rules {
                    e.field_errors
                        .entry(support::renumber_goal(&f, &rows))
                        .or_insert(why);
                }
            }
            return Err(AppError::fields(e.field_errors));
        }
        let created = crate::domain::campaigns::store::create(&ctx, &p, input)
            .await
            .map_err(renumber)?;
        leptos_axum::redirect(&format!("/advertiser/campaigns/{}", created.campaign_id));
        Ok(created)
    })
    .await
}

/// The campaign with its readiness, revisions, audit trail and the wallet.
#[server(prefix = "/fn", endpoint = "campaigns_detail")]
pub async fn campaign_page_data(campaign_id: String) -> Result<CampaignOverview, AppError> {
    super::web::run(async move {
        use crate::domain::campaigns::{readiness, store};
        let (ctx, p) = support::reader().await?;
        let id = campaign_id.trim();
        let campaign = store::get(&ctx, &p, id).await?;
        Ok(CampaignOverview {
            readiness: readiness::get(&ctx, &p, id).await?,
            // The first pages: the 100 newest of each.
            revisions: store::revisions(&ctx, &p, id, &Default::default())
                .await?
                .items,
            audit: store::audit_trail(&ctx, &p, id, &Default::default())
                .await?
                .items,
            balance: support::wallet(&ctx, &p).await?,
            campaign,
        })
    })
    .await
}

/// Edits name, budget and destination URL (PATCH: an empty field keeps its value).
#[server(prefix = "/fn", endpoint = "campaigns_update")]
pub async fn edit_offer_campaign(
    campaign_id: String,
    name: Option<String>,
    budget: Option<String>,
    destination_url: Option<String>,
    csrf: String,
) -> Result<Campaign, AppError> {
    super::web::run(async move {
        use support::text;
        let (ctx, _, p) = support::writer(&csrf).await?;
        let budget_micros = match text(budget) {
            None => None,
            Some(b) => Some(support::usd(&b).map_err(|why| AppError::field("budgetMicros", why))?),
        };
        // The form always sends every field; the PATCH names only the changed ones, so the
        // audit trail records what the advertiser actually changed.
        let id = campaign_id.trim();
        let current = crate::domain::campaigns::store::get(&ctx, &p, id)
            .await?
            .config;
        let patch = CampaignInput {
            name: text(name).filter(|n| *n != current.name),
            budget_micros: budget_micros
                .map(Micros)
                .filter(|b| *b != current.budget_micros),
            destination_url: text(destination_url).filter(|u| *u != current.destination_url),
            ..CampaignInput::default()
        };
        crate::domain::campaigns::store::update(&ctx, &p, id, patch).await
    })
    .await
}

/// A lifecycle move of the advertiser (`to`: IN_REVIEW, DRAFT, PAUSED, LIVE, ENDED, ARCHIVED).
#[server(prefix = "/fn", endpoint = "campaigns_move")]
pub async fn move_campaign(
    campaign_id: String,
    to: String,
    csrf: String,
) -> Result<Campaign, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let to = CampaignStatus::parse(to.trim())
            .ok_or_else(|| AppError::field("to", "is not a campaign status"))?;
        let req = TransitionRequest { to, reason: None };
        crate::domain::campaigns::lifecycle::transition(&ctx, &p, campaign_id.trim(), req).await
    })
    .await
}

/// Copies the campaign into a new DRAFT and opens it.
#[server(prefix = "/fn", endpoint = "campaigns_clone")]
pub async fn clone_offer_campaign(
    campaign_id: String,
    name: Option<String>,
    csrf: String,
) -> Result<Campaign, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let req = CloneRequest {
            name: support::text(name),
        };
        let copy =
            crate::domain::campaigns::store::clone(&ctx, &p, campaign_id.trim(), req).await?;
        leptos_axum::redirect(&format!("/advertiser/campaigns/{}", copy.campaign_id));
        Ok(copy)
    })
    .await
}

/// The report over `[from, to]` (`YYYY-MM-DD`; empty: the last 30 days).
#[server(prefix = "/fn", endpoint = "campaigns_report")]
pub async fn campaign_report_data(
    campaign_id: String,
    from: Option<String>,
    to: Option<String>,
) -> Result<ReportOverview, AppError> {
    super::web::run(async move {
        use crate::domain::campaigns::{report, store};
        let (ctx, p) = support::reader().await?;
        let mut errs = crate::error::FieldErrors::new();
        let mut day = |field: &str, v: Option<String>| {
            support::text(v).and_then(|d| {
                errs.check(
                    field,
                    chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d")
                        .map_err(|_| "must be a date such as 2026-11-30".to_owned()),
                )
            })
        };
        let (from, to) = (day("from", from), day("to", to));
        errs.finish()?;
        let id = campaign_id.trim();
        let campaign = store::get(&ctx, &p, id).await?;
        let report = report::report(&ctx, &p, id, from, to).await?;
        Ok(ReportOverview { campaign, report })
    })
    .await
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::support::renumber_goal;

    #[test]
    fn goal_errors_point_at_form_rows() {
        let rows = [0, 2];
        assert_eq!(
            renumber_goal("goals[1].payoutMicros", &rows),
            "goals[2].payoutMicros"
        );
        assert_eq!(renumber_goal("goals[0].name", &rows), "goals[0].name");
        assert_eq!(renumber_goal("goals", &rows), "goals");
        assert_eq!(renumber_goal("budgetMicros", &rows), "budgetMicros");
    }
}
