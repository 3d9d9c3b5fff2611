//! One build of the live surveys: every campaign that can take a respondent today (LIVE,
//! paid, in field, under its total and daily limits), grouped by locale and ranked, with
//! its quotas' open state and parsed qualifications. Matching a respondent against it runs
//! no query (issue 31); the hosted entry still re-checks the chosen survey in the database.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, NaiveDate, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use crate::domain::surveys::matching::{self, Facts};
use crate::error::AppError;
use crate::model::survey::campaign::{Hundredths, SurveyStatus};
use crate::model::survey::targeting::Criteria;
use entity::{survey_campaign as survey, survey_qualification as qual, survey_quota as quota};

/// The length assumed for a campaign that gives none (15 minutes).
pub const DEFAULT_LOI: Hundredths = Hundredths(1_500);

/// A quota as matching reads it.
pub struct LiveQuota {
    pub id: String,
    /// Completes counted are still under the quota's size.
    pub open: bool,
    /// `(question id, criteria)`, all of which a respondent must pass.
    pub qualifications: Vec<(String, Criteria)>,
}

/// A campaign that can take respondents today.
pub struct LiveSurvey {
    pub campaign: survey::Model,
    /// Devices it accepts (empty: any).
    pub devices: Vec<String>,
    pub quotas: Vec<LiveQuota>,
    pub research_category: Option<String>,
    /// Expected earnings per minute: CPI × completion rate ÷ length (the ranking).
    pub value: i64,
}

impl LiveSurvey {
    fn new(m: survey::Model, quotas: Vec<LiveQuota>) -> Self {
        let devices = serde_json::from_str(&m.supported_devices).unwrap_or_default();
        let meta: serde_json::Value = serde_json::from_str(&m.metadata).unwrap_or_default();
        let research_category = meta
            .get("research_category")
            .and_then(|v| v.as_str())
            .map(str::to_owned);
        let loi = m.loi_hundredths.unwrap_or(DEFAULT_LOI.0).max(1);
        let conv = m.conversion_hundredths.unwrap_or(5_000); // 50 %
        let value = m.cpi_micros.unwrap_or(0).saturating_mul(conv) / loi;
        LiveSurvey {
            campaign: m,
            devices,
            quotas,
            research_category,
            value,
        }
    }

    /// The quota the respondent counts against (`Some(None)`: the campaign has no quotas),
    /// or `None` when no open quota takes them.
    fn quota_for(&self, facts: &Facts) -> Option<Option<&str>> {
        if self.quotas.is_empty() {
            return Some(None);
        }
        self.quotas
            .iter()
            .find(|q| {
                q.open
                    && q.qualifications
                        .iter()
                        .all(|(question, c)| facts.passes(question, c))
            })
            .map(|q| Some(q.id.as_str()))
    }
}

/// A survey that fits a respondent, with the quota it counts against.
pub struct Fit<'a> {
    pub survey: &'a LiveSurvey,
    pub quota_id: Option<&'a str>,
}

/// The live surveys of one build.
pub struct Snapshot {
    /// Counts builds; 0 is the empty snapshot before the first.
    pub generation: u64,
    /// The day the build counted completes and field dates for.
    pub day: NaiveDate,
    pub built: Instant,
    /// Per locale code, best expected earnings first.
    by_locale: HashMap<String, Vec<Arc<LiveSurvey>>>,
}

impl Default for Snapshot {
    fn default() -> Self {
        Self::empty()
    }
}

impl Snapshot {
    pub fn empty() -> Self {
        Snapshot {
            generation: 0,
            day: NaiveDate::MIN,
            built: Instant::now(),
            by_locale: HashMap::new(),
        }
    }

    /// Surveys in this snapshot (metrics and tests).
    pub fn len(&self) -> usize {
        self.by_locale.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Up to `limit` surveys of `locale` that fit the respondent, best first: device,
    /// not already entered, and an open quota whose qualifications they pass.
    pub fn fits<'a>(
        &'a self,
        locale: &str,
        facts: &Facts,
        entered: &HashSet<String>,
        limit: usize,
    ) -> Vec<Fit<'a>> {
        let Some(all) = self.by_locale.get(locale) else {
            return Vec::new();
        };
        all.iter()
            .filter(|s| {
                s.devices.is_empty() || facts.device.as_ref().is_none_or(|d| s.devices.contains(d))
            })
            .filter(|s| !entered.contains(&s.campaign.id))
            .filter_map(|s| {
                s.quota_for(facts).map(|quota_id| Fit {
                    survey: s.as_ref(),
                    quota_id,
                })
            })
            .take(limit)
            .collect()
    }

    /// Reads the live surveys for `now`'s day: the campaigns, their quotas and
    /// qualifications, and completes counted for the campaigns with limits (500 at a time).
    pub async fn build<C: ConnectionTrait>(
        db: &C,
        now: DateTime<Utc>,
        generation: u64,
    ) -> Result<Snapshot, AppError> {
        let day = now.date_naive();
        let campaigns: Vec<survey::Model> = survey::Entity::find()
            .filter(survey::Column::Status.eq(SurveyStatus::Live.as_str()))
            .all(db)
            .await?
            .into_iter()
            .filter(|m| matching::live(m, day))
            .collect();
        let limited: Vec<String> = campaigns
            .iter()
            .filter(|m| m.total_completes.is_some() || m.max_daily_completes.is_some())
            .map(|m| m.id.clone())
            .collect();
        let start_of_day = day.and_hms_opt(0, 0, 0).map(|d| d.and_utc());
        let mut total = HashMap::new();
        let mut daily = HashMap::new();
        for chunk in limited.chunks(500) {
            total.extend(matching::counts(db, chunk, None).await?);
            daily.extend(matching::counts(db, chunk, start_of_day).await?);
        }
        let ids: Vec<String> = campaigns.iter().map(|m| m.id.clone()).collect();
        let mut quotas: HashMap<String, Vec<quota::Model>> = HashMap::new();
        let mut quals: HashMap<String, Vec<(String, Criteria)>> = HashMap::new();
        for chunk in ids.chunks(500) {
            for q in quota::Entity::find()
                .filter(quota::Column::CampaignId.is_in(chunk.to_vec()))
                .all(db)
                .await?
            {
                quotas.entry(q.campaign_id.clone()).or_default().push(q);
            }
            for x in qual::Entity::find()
                .filter(qual::Column::CampaignId.is_in(chunk.to_vec()))
                .all(db)
                .await?
            {
                let c: Criteria = serde_json::from_str(&x.criteria).unwrap_or_default();
                quals
                    .entry(x.quota_id)
                    .or_default()
                    .push((x.question_id, c));
            }
        }
        let mut by_locale: HashMap<String, Vec<Arc<LiveSurvey>>> = HashMap::new();
        for m in campaigns {
            let done = |counts: &HashMap<String, i64>| counts.get(&m.id).copied().unwrap_or(0);
            if m.total_completes.is_some_and(|t| done(&total) >= t)
                || m.max_daily_completes.is_some_and(|d| done(&daily) >= d)
            {
                continue;
            }
            let mut own = quotas.remove(&m.id).unwrap_or_default();
            // Quotas in creation order: the first open one that takes a respondent is theirs.
            own.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
            let own = own
                .into_iter()
                .map(|q| LiveQuota {
                    open: q.completes < q.num_respondents,
                    qualifications: quals.remove(&q.id).unwrap_or_default(),
                    id: q.id,
                })
                .collect();
            let s = LiveSurvey::new(m, own);
            by_locale
                .entry(s.campaign.country_language_id.clone())
                .or_default()
                .push(Arc::new(s));
        }
        for list in by_locale.values_mut() {
            list.sort_by(|a, b| {
                b.value
                    .cmp(&a.value)
                    .then(a.campaign.id.cmp(&b.campaign.id))
            });
        }
        Ok(Snapshot {
            generation,
            day,
            built: Instant::now(),
            by_locale,
        })
    }
}
