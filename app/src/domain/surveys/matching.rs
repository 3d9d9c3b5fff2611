//! Which live surveys fit a respondent: locale, field dates, device, allocation and daily
//! limits, an open quota whose qualifications the stored profile passes, and not already
//! entered. A fixed number of queries per fetch (candidates, quotas, qualifications, counts,
//! entries), never one per survey.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use super::profile::Profile;
use crate::error::AppError;
use crate::model::survey::campaign::{PaymentStatus, SurveyStatus};
use crate::model::survey::targeting::Criteria;
use entity::{
    survey_campaign as survey, survey_entry as entry, survey_qualification as qual,
    survey_quota as quota,
};

/// Entry states.
pub use entity::values::EntryStatus;

/// What matching knows about the respondent: the fetch's fields and stored answers.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub today: Option<NaiveDate>,
    pub date_of_birth: Option<NaiveDate>,
    pub gender: Option<String>,
    pub zip: Option<String>,
    pub device: Option<String>,
    pub answers: HashMap<String, Vec<String>>,
}

impl Facts {
    pub fn from_profile(
        p: &Profile,
        stored: HashMap<String, Vec<String>>,
        today: NaiveDate,
    ) -> Self {
        Facts {
            today: Some(today),
            date_of_birth: p.date_of_birth,
            gender: p.gender.map(str::to_owned),
            zip: p.zip.clone(),
            device: p.device.clone(),
            answers: stored,
        }
    }

    pub(crate) fn passes(&self, question: &str, c: &Criteria) -> bool {
        match question {
            "AGE" => {
                let (Some(dob), Some(today)) = (self.date_of_birth, self.today) else {
                    return false;
                };
                let age = i64::from(today.years_since(dob).unwrap_or(0));
                c.ranges.iter().any(|r| (r.min..=r.max).contains(&age))
            }
            "ZIP" => self.zip.as_ref().is_some_and(|z| {
                let z = z.replace(' ', "");
                c.values.iter().any(|v| z.starts_with(&v.replace(' ', "")))
            }),
            "GENDER" if self.gender.is_some() => self
                .gender
                .as_ref()
                .is_some_and(|g| c.answer_ids.contains(g)),
            _ => self
                .answers
                .get(question)
                .is_some_and(|given| given.iter().any(|a| c.answer_ids.contains(a))),
        }
    }
}

/// A survey the respondent may take, with the quota it counts against.
#[derive(Debug, Clone)]
pub struct Match {
    pub campaign: survey::Model,
    pub quota_id: Option<String>,
}

fn in_field(m: &survey::Model, today: NaiveDate) -> bool {
    m.start_date.is_none_or(|s| s <= today) && m.end_date.is_none_or(|e| today <= e)
}

/// Whether a campaign is live, paid and in field today.
pub fn live(m: &survey::Model, today: NaiveDate) -> bool {
    m.status == SurveyStatus::Live
        && m.payment_status != PaymentStatus::Unpaid
        && in_field(m, today)
}

pub(crate) async fn counts<C: ConnectionTrait>(
    db: &C,
    ids: &[String],
    since: Option<DateTime<Utc>>,
) -> Result<HashMap<String, i64>, AppError> {
    let mut q = entry::Entity::find()
        .select_only()
        .column(entry::Column::CampaignId)
        .column_as(Expr::col(entry::Column::Id).count(), "n")
        .filter(entry::Column::CampaignId.is_in(ids.to_vec()))
        .filter(entry::Column::Status.eq(EntryStatus::Complete))
        .filter(entry::Column::Test.eq(false));
    if let Some(s) = since {
        q = q.filter(entry::Column::FinishedAt.gte(s));
    }
    Ok(q.group_by(entry::Column::CampaignId)
        .into_tuple::<(String, i64)>()
        .all(db)
        .await?
        .into_iter()
        .collect())
}

/// Live surveys that fit, among `candidates` (already filtered by locale).
pub async fn matches<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    respondent_id: Option<&str>,
    facts: &Facts,
    candidates: Vec<survey::Model>,
) -> Result<Vec<Match>, AppError> {
    let today = now.date_naive();
    let candidates: Vec<survey::Model> = candidates
        .into_iter()
        .filter(|m| live(m, today))
        .filter(|m| {
            let devices: Vec<String> =
                serde_json::from_str(&m.supported_devices).unwrap_or_default();
            devices.is_empty() || facts.device.as_ref().is_none_or(|d| devices.contains(d))
        })
        .collect();
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<String> = candidates.iter().map(|m| m.id.clone()).collect();
    let entered: HashSet<String> = match respondent_id {
        Some(r) => entry::Entity::find()
            .select_only()
            .column(entry::Column::CampaignId)
            .filter(entry::Column::RespondentId.eq(r.to_owned()))
            .filter(entry::Column::CampaignId.is_in(ids.clone()))
            .into_tuple::<String>()
            .all(db)
            .await?
            .into_iter()
            .collect(),
        None => HashSet::new(),
    };
    let total = counts(db, &ids, None).await?;
    let start_of_day = today.and_hms_opt(0, 0, 0).map(|d| d.and_utc());
    let daily = counts(db, &ids, start_of_day).await?;
    let quotas = quota::Entity::find()
        .filter(quota::Column::CampaignId.is_in(ids.clone()))
        .all(db)
        .await?;
    let quals = qual::Entity::find()
        .filter(qual::Column::CampaignId.is_in(ids.clone()))
        .all(db)
        .await?;
    let mut out = Vec::new();
    for m in candidates {
        if entered.contains(&m.id) {
            continue;
        }
        let done = total.get(&m.id).copied().unwrap_or(0);
        if m.total_completes.is_some_and(|t| done >= t) {
            continue;
        }
        if m.max_daily_completes
            .is_some_and(|d| daily.get(&m.id).copied().unwrap_or(0) >= d)
        {
            continue;
        }
        let own: Vec<&quota::Model> = quotas.iter().filter(|q| q.campaign_id == m.id).collect();
        if own.is_empty() {
            out.push(Match {
                campaign: m,
                quota_id: None,
            });
            continue;
        }
        let fits = own.iter().find(|q| {
            q.completes < q.num_respondents
                && quals.iter().filter(|x| x.quota_id == q.id).all(|x| {
                    let c: Criteria = serde_json::from_str(&x.criteria).unwrap_or_default();
                    facts.passes(&x.question_id, &c)
                })
        });
        if let Some(q) = fits {
            let quota_id = Some(q.id.clone());
            out.push(Match {
                campaign: m,
                quota_id,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::survey::targeting::NumericRange;

    #[test]
    fn qualifications_use_the_profile() {
        let f = Facts {
            today: NaiveDate::from_ymd_opt(2026, 6, 1),
            date_of_birth: NaiveDate::from_ymd_opt(2000, 7, 1),
            gender: Some("2".into()),
            zip: Some("78701".into()),
            answers: HashMap::from([("EDUCATION".to_owned(), vec!["5".to_owned()])]),
            ..Default::default()
        };
        let range = |min, max| Criteria {
            ranges: vec![NumericRange { min, max }],
            ..Default::default()
        };
        let ids = |v: &[&str]| Criteria {
            answer_ids: v.iter().map(|s| (*s).to_owned()).collect(),
            ..Default::default()
        };
        assert!(
            f.passes("AGE", &range(18, 25)),
            "25 years old on 2026-06-01"
        );
        assert!(!f.passes("AGE", &range(26, 34)));
        assert!(f.passes("GENDER", &ids(&["2"])) && !f.passes("GENDER", &ids(&["1"])));
        assert!(f.passes("EDUCATION", &ids(&["4", "5"])) && !f.passes("INCOME", &ids(&["1"])));
        let zip = Criteria {
            values: vec!["787".into()],
            ..Default::default()
        };
        assert!(f.passes("ZIP", &zip));
    }
}
