//! A survey campaign's own fields from the dashboard: create, edit (while DRAFT or awaiting
//! approval), clone and delete, the same domain calls as the signed survey API's `create`,
//! `PUT /{campaignId}`, `clonecampaigns` and `DELETE /{campaignId}`. Fields arrive as form
//! text: amounts and percentages as decimals, dates as `YYYY-MM-DD`, devices as checkboxes.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::survey::campaign::SurveyCampaign;

/// The form's fields, as typed (`None` or empty: not given).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SurveyFields {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub country_language_id: Option<String>,
    #[serde(default)]
    pub cpi: Option<String>,
    #[serde(default)]
    pub length_of_interview: Option<String>,
    #[serde(default)]
    pub conversion: Option<String>,
    #[serde(default)]
    pub start_date: Option<String>,
    #[serde(default)]
    pub end_date: Option<String>,
    #[serde(default)]
    pub total_completes: Option<String>,
    #[serde(default)]
    pub max_daily_completes: Option<String>,
    #[serde(default)]
    pub survey_live_link: Option<String>,
    #[serde(default)]
    pub survey_test_link: Option<String>,
    #[serde(default)]
    pub desktop: Option<String>,
    #[serde(default)]
    pub mobile: Option<String>,
    #[serde(default)]
    pub tablet: Option<String>,
}

/// The active markets a campaign can target: `(code, "English (United States)")`.
#[server(prefix = "/fn", endpoint = "survey_markets")]
pub async fn survey_markets() -> Result<Vec<(String, String)>, AppError> {
    crate::server_fns::web::run(async move {
        let q = crate::model::survey::targeting::CountryLanguageQuery::default();
        Ok(crate::domain::surveys::reference::country_languages(&q)
            .country_languages
            .into_iter()
            .map(|l| (l.code, format!("{} ({})", l.language, l.country_name)))
            .collect())
    })
    .await
}

/// Creates a DRAFT campaign and opens its page.
#[server(prefix = "/fn", endpoint = "survey_create")]
pub async fn create_survey_campaign(
    #[server(flatten)] fields: SurveyFields,
    csrf: String,
) -> Result<String, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let input = parse::input(&fields, true)?;
        let created = crate::domain::surveys::campaigns::create(&ctx, &p, input).await?;
        let id = created.campaign._id;
        leptos_axum::redirect(&format!("/advertiser/surveys/{id}"));
        Ok(id)
    })
    .await
}

/// Replaces the campaign's fields (the domain refuses what its status does not allow).
#[server(prefix = "/fn", endpoint = "survey_edit")]
pub async fn edit_survey_campaign(
    campaign_id: String,
    #[server(flatten)] fields: SurveyFields,
    csrf: String,
) -> Result<SurveyCampaign, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let input = parse::input(&fields, false)?;
        crate::domain::surveys::campaigns::update(&ctx, &p, campaign_id.trim(), input).await
    })
    .await
}

/// Copies the campaign with its quotas, qualifications and questions as a new DRAFT.
#[server(prefix = "/fn", endpoint = "survey_clone")]
pub async fn clone_survey_campaign(
    campaign_id: String,
    name: Option<String>,
    csrf: String,
) -> Result<String, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let input = crate::model::survey::targeting::SurveyCloneInput {
            campaign_id: Some(campaign_id),
            name: name.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty()),
        };
        let created = crate::domain::surveys::search::clone(&ctx, &p, input).await?;
        let id = created.campaign._id;
        leptos_axum::redirect(&format!("/advertiser/surveys/{id}"));
        Ok(id)
    })
    .await
}

/// Deletes an unpaid DRAFT or pending campaign and returns to the list.
#[server(prefix = "/fn", endpoint = "survey_delete")]
pub async fn delete_survey_campaign(campaign_id: String, csrf: String) -> Result<(), AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::surveys::campaigns::delete(&ctx, &p, campaign_id.trim()).await?;
        leptos_axum::redirect("/advertiser/surveys");
        Ok(())
    })
    .await
}

#[cfg(feature = "ssr")]
mod parse {
    use super::SurveyFields;
    use crate::error::{AppError, FieldErrors};
    use crate::model::survey::campaign::{Hundredths, SurveyCampaignInput, UsdDecimal};

    fn text(v: &Option<String>) -> Option<String> {
        v.as_ref()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    }

    /// A decimal with at most two places, in hundredths (`"12.5"` → 1250).
    fn hundredths(raw: &str) -> Result<Hundredths, String> {
        let micros = crate::model::money::parse_decimal(raw)?;
        if micros % 10_000 != 0 {
            return Err("has more than two decimal places".to_owned());
        }
        Ok(Hundredths(micros / 10_000))
    }

    /// The API input of the form: every field given (an edit sends them all; the domain
    /// keeps what did not change). `creating` requires the base fields.
    pub fn input(f: &SurveyFields, creating: bool) -> Result<SurveyCampaignInput, AppError> {
        let mut errs = FieldErrors::new();
        let cpi = text(&f.cpi).and_then(|c| {
            errs.check(
                "cpi",
                crate::model::money::parse_decimal(c.trim_start_matches('$')),
            )
            .map(UsdDecimal)
        });
        let loi = text(&f.length_of_interview)
            .and_then(|v| errs.check("length_of_interview", hundredths(&v)));
        let conversion = text(&f.conversion).and_then(|v| errs.check("conversion", hundredths(&v)));
        let date = |errs: &mut FieldErrors, field: &str, v: &Option<String>| {
            text(v).and_then(|d| {
                errs.check(
                    field,
                    d.parse::<chrono::NaiveDate>()
                        .map_err(|_| "must be a date such as 2026-12-01".to_owned()),
                )
            })
        };
        let start_date = date(&mut errs, "start_date", &f.start_date);
        let end_date = date(&mut errs, "end_date", &f.end_date);
        let count = |errs: &mut FieldErrors, field: &str, v: &Option<String>| {
            text(v).and_then(|n| {
                errs.check(
                    field,
                    n.replace([',', '_', ' '], "")
                        .parse::<i64>()
                        .map_err(|_| "must be a whole number".to_owned()),
                )
            })
        };
        let total_completes = count(&mut errs, "total_completes", &f.total_completes);
        let max_daily_completes = count(&mut errs, "max_daily_completes", &f.max_daily_completes);
        errs.finish()?;
        let devices: Vec<String> = [
            ("desktop", &f.desktop),
            ("mobile", &f.mobile),
            ("tablet", &f.tablet),
        ]
        .into_iter()
        .filter(|(_, on)| on.is_some())
        .map(|(d, _)| d.to_owned())
        .collect();
        Ok(SurveyCampaignInput {
            name: text(&f.name),
            country_language_id: text(&f.country_language_id),
            cpi,
            length_of_interview: loi,
            conversion,
            start_date,
            end_date,
            survey_live_link: text(&f.survey_live_link),
            survey_test_link: text(&f.survey_test_link),
            max_daily_completes,
            total_completes,
            supported_devices: (creating || !devices.is_empty()).then_some(devices),
            ..SurveyCampaignInput::default()
        })
    }
}
